"""A bot in its own process: limits, deadlines enforced by killing, crash detection.

One :class:`SandboxedAgent` is one bot process for one game (a fresh process per game, so a bot
that died in one game simply gets a new process in the next). The bot file is copied with the
runner (:mod:`harness.bots.runner`) into a private temporary directory, and the runner starts in
a new session (its own process group) and confines itself before any bot code runs: rlimits on
address space, CPU time and file size; new network, mount and PID namespaces (no network, its own
``/proc``) where the OS permits; and when tourney runs as root, the unprivileged ``nobody`` user.

The referee waits for each answer with ``poll`` on the pipe until the deadline, then kills the
bot's whole process group: a looping or sleeping bot is stopped at its deadline, not judged
afterwards. The bot's own output (fd 1 and 2) goes to a separate log pipe that is drained while
waiting and kept to its last ``Limits.log_bytes``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import pwd
import select
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

from harness.bots import runner as bot_runner
from harness.bots.protocol import (
    JSON,
    AgentCrash,
    AgentProtocolError,
    AgentTimeout,
    decode,
    encode,
    expect,
)
from harness.bots.spec import BotSpec
from harness.records import Limits

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MAX_LINE = 4 << 20  # longest protocol line accepted from a bot
FILE_SIZE_LIMIT = 64 << 20  # largest file a bot may write (RLIMIT_FSIZE)
_PR_SET_DUMPABLE = 4
_hardened = False
_HIDDEN: set[str] = set()


def hide_from_bots(path: str | os.PathLike[str]) -> None:
    """Cover ``path`` with an empty directory in every bot's view from now on.

    For results folders: ``league.json`` holds the league seed every deal seed derives from, so
    a bot that read it could rebuild the deal. ``results/`` under the project and under the
    current directory, and the directories in ``$TOURNEY_HIDE`` (os.pathsep-separated), are
    hidden by default. Needs the mount namespace (see the module docstring).
    """
    _HIDDEN.add(str(Path(path).resolve()))


def hidden_paths() -> list[str]:
    """The existing directories hidden from bots."""
    paths = {str(PROJECT_ROOT / "results"), str(Path.cwd().resolve() / "results"), *_HIDDEN}
    paths.update(p for p in os.environ.get("TOURNEY_HIDE", "").split(os.pathsep) if p)
    return sorted(p for p in paths if os.path.isdir(p))


def harden_referee() -> None:
    """Make this (the referee's) process non-dumpable: no ptrace, no ``/proc/<pid>/mem`` reads
    by processes of the same user. Idempotent; a no-op off Linux."""
    global _hardened
    if _hardened or not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    _hardened = True


def sandbox_user() -> tuple[int, int] | None:
    """The (uid, gid) bots run as: ``nobody`` when tourney runs as root, else None (unchanged)."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return 65534, 65534
    return entry.pw_uid, entry.pw_gid


def _reachable_by_others(path: Path) -> bool:
    """Whether a user with no special rights can read ``path`` (and search its directories)."""
    try:
        real = path.resolve()
        for parent in real.parents:
            if not parent.stat().st_mode & stat.S_IXOTH:
                return False
        return bool(real.stat().st_mode & stat.S_IROTH)
    except OSError:
        return False


@cache
def bot_python() -> str:
    """The interpreter for Python bots.

    This interpreter when the unprivileged bot user can read it and its standard library;
    otherwise (e.g. a Python installed under /root) a system ``python3`` of version 3.11 or
    newer. The project root goes on the bot's PYTHONPATH, so bots can import ``games``.
    """
    own = Path(sys.executable)
    if sandbox_user() is None or (
        _reachable_by_others(own) and _reachable_by_others(Path(sysconfig.get_paths()["stdlib"]))
    ):
        return sys.executable
    for candidate in ("/usr/local/bin/python3", "/usr/bin/python3"):
        if _reachable_by_others(Path(candidate)) and _modern(candidate):
            return candidate
    return sys.executable


def _modern(python: str) -> bool:
    check = "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)"
    try:
        return subprocess.run([python, "-c", check], timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "closed its output but kept running"
    if code < 0:
        sig = -code
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        if sig == signal.SIGXCPU:
            return f"was killed by {name}: CPU time limit exceeded"
        if sig == signal.SIGXFSZ:
            return f"was killed by {name}: file size limit exceeded"
        return f"was killed by {name}"
    return f"exited with status {code}"


class SandboxedAgent:
    """One bot process for one game (see the module docstring). Raises AgentError subclasses."""

    def __init__(self, source: BotSpec, limits: Limits) -> None:
        self.source = source
        self.limits = limits
        self.sandbox: JSON = {}
        self._buf = bytearray()
        self._log = bytearray()
        self._log_dropped = 0
        self._closed = False
        self.workdir = Path(tempfile.mkdtemp(prefix="tourney-bot-"))
        self.workdir.chmod(0o755)
        self.spawned = time.perf_counter()
        try:
            self.proc = self._spawn()
        except BaseException:
            self._closed = True
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._poll.register(self._log_fd, select.POLLIN)

    # ---------------------------------------------------------------- process life

    def _confinement(self) -> JSON:
        user = sandbox_user()
        cfg: JSON = {
            "memory": self.limits.memory_bytes,
            "cpu": self.limits.cpu_seconds,
            "fsize": FILE_SIZE_LIMIT,
            "parent": os.getpid(),
            "hide": hidden_paths(),
        }
        if user is not None:
            cfg["uid"], cfg["gid"] = user
        return cfg

    def _spawn(self) -> subprocess.Popen[bytes]:
        runner = self.workdir / "tourney_runner.py"
        shutil.copyfile(bot_runner.__file__, runner)
        runner.chmod(0o644)
        python = bot_python()
        confine = json.dumps(self._confinement())
        if self.source.command:
            argv = [python, "-P", "-s", str(runner), "--confine", confine, "--exec",
                    *self.source.command]
            cwd = os.getcwd()
        else:
            assert self.source.path is not None
            bot = self.workdir / self.source.path.name
            try:
                shutil.copyfile(self.source.path, bot)
            except OSError as exc:
                raise AgentCrash(
                    f"could not load bot: cannot read {self.source.path}: {exc}"
                ) from None
            bot.chmod(0o644)
            argv = [python, "-P", "-s", str(runner), "--confine", confine, "--file", str(bot)]
            if self.source.entry:
                argv += ["--entry", self.source.entry]
            if self.source.options:  # a built-in's options, as its constructor's keywords
                argv += ["--options", json.dumps(self.source.kwargs())]
            cwd = str(self.workdir)
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": str(self.workdir),
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONPATH": str(PROJECT_ROOT),
        }
        log_r, log_w = os.pipe()
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log_w, cwd=cwd,
                env=env, start_new_session=True, close_fds=True, bufsize=0,
            )
        except OSError as exc:
            os.close(log_r)
            raise AgentCrash(f"could not start: {exc}") from None
        finally:
            os.close(log_w)
        os.set_blocking(log_r, False)
        self._log_fd = log_r
        return proc

    def _kill(self) -> None:
        """Kill the whole process group, then reap the leader.

        Only while the leader is unreaped (alive or a zombie) does its id still name this bot's
        group; once reaped the id may be reused, so a second call does nothing.
        """
        if self.proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)

    def close(self) -> None:
        """Quit, kill everything the bot started, keep its log, remove its directory."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):
            os.write(self._in, encode({"type": "quit"}))
        self._kill()
        self._drain_log()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(OSError):
            os.close(self._log_fd)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    # ---------------------------------------------------------------- log

    def _drain_log(self) -> None:
        while True:
            try:
                data = os.read(self._log_fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                return
            if not data:
                with contextlib.suppress(KeyError, ValueError):
                    self._poll.unregister(self._log_fd)
                return
            self._log += data
            excess = len(self._log) - self.limits.log_bytes
            if excess > 0:
                del self._log[:excess]
                self._log_dropped += excess

    def logs(self) -> str:
        text = self._log.decode("utf-8", "replace")
        if self._log_dropped:
            return f"[... {self._log_dropped} earlier bytes dropped ...]\n{text}"
        return text

    # ---------------------------------------------------------------- wire

    def _send(self, message: JSON, deadline: float, what: str) -> None:
        view = memoryview(encode(message))
        while view:
            try:
                view = view[os.write(self._in, view):]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise AgentCrash(f"{self._died()} before {what}") from None
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._kill()
                raise AgentTimeout(f"did not read its input in time for {what}; killed")
            select.select([], [self._in], [], remaining)

    def _receive(self, deadline: float, what: str, budget: float) -> JSON:
        while True:
            newline = self._buf.find(b"\n")
            if newline >= 0:
                line = bytes(self._buf[:newline])
                del self._buf[: newline + 1]
                if line.strip():
                    return decode(line)
                continue
            if len(self._buf) > MAX_LINE:
                self._kill()
                raise AgentProtocolError(f"sent over {MAX_LINE} bytes without a newline")
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._kill()
                raise AgentTimeout(f"timed out: no answer to {what} within {budget:.3g} s; killed")
            for fd, _ in self._poll.poll(max(1, int(remaining * 1000) + 1)):
                if fd == self._log_fd:
                    self._drain_log()
                    continue
                try:
                    data = os.read(self._out, 1 << 16)
                except OSError as exc:
                    if exc.errno == errno.EINTR:
                        continue
                    data = b""
                if not data:
                    raise AgentCrash(f"{self._died()} during {what}")
                self._buf += data

    def _died(self) -> str:
        """Why the bot's output ended: how its process exited (given a moment to exit)."""
        code = self._exit_status(0.5)
        self._kill()
        self._drain_log()
        return f"process {_describe_exit(code)}"

    def _exit_status(self, timeout: float) -> int | None:
        """The leader's exit code (negative: killed by that signal) without reaping it, or None
        if it is still running after ``timeout`` seconds."""
        deadline = time.perf_counter() + timeout
        if not hasattr(os, "waitid"):  # not Linux: reap (the group is gone by then anyway)
            with contextlib.suppress(subprocess.TimeoutExpired):
                return self.proc.wait(timeout=timeout)
            return None
        while True:
            try:
                info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return self.proc.returncode
            if info is not None and info.si_pid:
                return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            if time.perf_counter() >= deadline:
                return None
            time.sleep(0.002)

    def _request(self, message: JSON, reply: str, budget: float, what: str,
                 start: float | None = None) -> JSON:
        if self._closed:
            raise AgentCrash("was already closed")
        deadline = (start if start is not None else time.perf_counter()) + budget
        self._send(message, deadline, what)
        try:
            return expect(self._receive(deadline, what, budget), reply)
        except AgentCrash as exc:
            raise AgentCrash(self._annotate(exc.reason)) from None

    def _annotate(self, reason: str) -> str:
        if "MemoryError" in reason:
            return f"{reason} (memory limit {self.limits.memory_bytes >> 20} MB)"
        return reason

    # ---------------------------------------------------------------- agent protocol

    def start(self, info: JSON, timeout: float) -> None:
        """Send ``start``; the start-up limit counts from the process launch."""
        ready = self._request({"type": "start", "info": info}, "ready", timeout, "start",
                              start=self.spawned)
        sandbox = ready.get("sandbox")
        self.sandbox = sandbox if isinstance(sandbox, dict) else {}
        self._remove_copies()

    def _remove_copies(self) -> None:
        """The bot has loaded: delete the copied files, so a referee killed mid-game (say, by a
        league's watchdog) leaves at most an empty directory behind."""
        for entry in self.workdir.iterdir():
            with contextlib.suppress(OSError):
                entry.unlink()

    def act(self, observation: JSON, legal_actions: list[str], timeout: float) -> Any:
        message = {"type": "act", "observation": observation, "legal_actions": legal_actions,
                   "time_left": timeout}
        return self._request(message, "action", timeout, "act").get("action")

    def end(self, result: JSON, timeout: float) -> None:
        self._request({"type": "end", "result": result}, "ok", timeout, "end")
