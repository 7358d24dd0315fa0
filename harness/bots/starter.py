"""The referee's side of the jailed start-up server (:mod:`harness.bots.forkserver`).

One server per referee process and jail view, started with the first sandboxed Python bot and
kept while the process lives: :meth:`Starter.spawn` hands it a bot (its confinement, its files
in a memory file, the protocol's pipes, the log pipe, its control groups' files) and gets back a
:class:`ForkedBot`, the bot's process as :class:`harness.bots.sandbox.SandboxedAgent` uses a
``subprocess.Popen``: a pidfd of its PID namespace's first process (killing it ends every
process of the namespace), its host pid, and its exit status, which the server writes on a pipe
when it reaps it. External commands (``cmd:``) still get a jail of their own from bubblewrap:
they need their own paths shown and a program executed.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
from collections.abc import Sequence
from typing import Any

from harness.bots import jail

MAX_REPLY = 4096
ANSWER_WAIT = 30.0  # seconds the server may take to answer (it forks ahead of time: ~1 ms)


class StarterError(Exception):
    """The start-up server could not start, or stopped answering; the message says why."""


def _host_pid(pidfd: int) -> int:
    """The pid, in this process's PID namespace, of the process ``pidfd`` refers to."""
    fd = os.open(f"/proc/self/fdinfo/{pidfd}", os.O_RDONLY | os.O_CLOEXEC)
    try:
        text = os.read(fd, 4096)
    finally:
        os.close(fd)
    for line in text.splitlines():
        if line.startswith(b"Pid:"):
            return int(line.split()[1])
    raise StarterError("the kernel did not say which process a pidfd names")


class ForkedBot:
    """A bot's process given by the start-up server (see the module docstring)."""

    def __init__(self, pidfd: int, status: int, stdin: int, stdout: int, bot: int) -> None:
        """``pidfd``: its PID 1's; ``bot``: its own process's (closed here: its pid is kept,
        for its process group, which is named after it)."""
        self.pidfd = pidfd
        self.init_pid = _host_pid(pidfd)
        try:
            self.pid = _host_pid(bot)
        finally:
            os.close(bot)
        namespace = os.stat(f"/proc/{self.init_pid}/ns/pid").st_ino  # (before files own them)
        self.returncode: int | None = None
        self._status = status
        self.stdin: Any = os.fdopen(stdin, "wb", buffering=0)
        self.stdout: Any = os.fdopen(stdout, "rb", buffering=0)
        self.info = {"child-pid": self.init_pid, "pid-namespace": namespace}

    def namespaces(self) -> dict[str, bool]:
        """Which namespaces are the bot's own, as the kernel shows them from outside
        (:func:`harness.bots.jail.compare`)."""
        seen = {}
        for name in jail.NAMESPACES:
            with contextlib.suppress(OSError):
                seen[name] = os.stat(f"/proc/{self.init_pid}/ns/{name}").st_ino
        return jail.compare(seen)

    def poll(self) -> int | None:
        return self.exit_status(0)

    def exit_status(self, timeout: float) -> int | None:
        """The exit code (negative: killed by that signal), or None while it runs after
        ``timeout`` seconds."""
        if self.returncode is not None or self._status < 0:
            return self.returncode
        waiting = select.poll()
        waiting.register(self._status, select.POLLIN)
        if not waiting.poll(max(0, int(timeout * 1000))):
            return None
        data = b""
        with contextlib.suppress(OSError):
            data = os.read(self._status, 64)
        os.close(self._status)
        self._status = -1
        try:
            self.returncode = int(data)
        except ValueError:  # the server died first: it took the bot with it
            self.returncode = -int(signal.SIGKILL)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        code = self.exit_status(3600.0 if timeout is None else timeout)
        if code is None:
            raise subprocess.TimeoutExpired("bot", timeout or 0)
        return code

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def close(self) -> None:
        for fd in (self.pidfd, self._status):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.pidfd = self._status = -1


class Asked:
    """A request sent to the start-up server, until its answer is read: the referee's ends of
    the process's status pipe and protocol pipes."""

    def __init__(self, status: int, stdin: int, stdout: int) -> None:
        self.fds = [status, stdin, stdout]
        self.reply: tuple[bytes, list[int]] | None = None

    def take(self) -> tuple[int, int, int]:
        status, stdin, stdout = self.fds
        self.fds = []
        return status, stdin, stdout

    def close(self) -> None:
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = []


class Starter:
    """One start-up server in its jail ``cage``, running ``python`` in the environment ``env``,
    with its ``settings`` (:func:`harness.bots.forkserver.serve`)."""

    def __init__(self, cage: jail.Jail, python: str, env: dict[str, str],
                 settings: dict[str, Any]) -> None:
        self._lock = threading.Lock()
        self._asked: collections.deque[Asked] = collections.deque()  # sent, not yet answered
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock = ours
        err_r, err_w = os.pipe()
        self._errors = err_r
        try:
            command, fds = cage.command([python, "-P", "-S", jail.FORKSERVER,
                                         str(theirs.fileno())])
            self._proc = subprocess.Popen(
                ["bwrap", *command[1:]], executable=command[0],
                pass_fds=(*fds, theirs.fileno()), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=err_w, env=env, cwd="/",
                start_new_session=True)
        except BaseException:
            ours.close()
            os.close(err_r)
            cage.close()
            raise
        finally:
            theirs.close()
            os.close(err_w)
        cage.started()
        os.set_blocking(err_r, False)
        self._init: int | None = None
        try:
            self.spaces = cage.namespaces(ANSWER_WAIT)
        except (jail.JailError, OSError) as exc:
            self.close()
            raise StarterError(self._said() or str(exc)) from None
        self._init = jail.hold(cage.info)
        self._pid = int(cage.info.get("child-pid", 0))  # the server, its jail's first process
        self._beside: set[int] = set()  # the referee's CPUs the server was last kept off
        try:
            self._sock.send(json.dumps(settings).encode())
        except OSError as exc:
            self.close()
            raise StarterError(self._said() or f"the start-up server ended at once ({exc})") \
                from None

    def _said(self) -> str:
        """The last line the server wrote on its standard error (bubblewrap's or Python's)."""
        with contextlib.suppress(OSError):
            lines = os.read(self._errors, 1 << 16).decode("utf-8", "replace").strip()
            if lines:
                return lines.splitlines()[-1].removeprefix("bwrap: ")
        return ""

    def alive(self) -> bool:
        """Whether the server runs: its PID 1's pidfd reads as ended once it has (which a
        process the server was handed to can ask too: bubblewrap is not its child)."""
        if self._init is not None:
            ended = select.poll()
            ended.register(self._init, select.POLLIN)
            return not ended.poll(0)
        return self._proc.poll() is None

    def spawn(self, request: dict[str, Any], files: int, groups: Sequence[str],
              log: int) -> ForkedBot:
        """A new bot process for ``request`` (see :func:`harness.bots.forkserver._become_bot`),
        its files in the memory file ``files``, joining the control groups whose join files are
        ``groups``, writing its log to ``log``. :class:`StarterError` if the server failed."""
        return self.answer(self.ask(request, files, groups, log))

    def ask(self, request: dict[str, Any], files: int, groups: Sequence[str],
            log: int) -> Asked:
        """Send :meth:`spawn`'s request without waiting for the answer (:meth:`answer` reads
        it): the process is made while the referee goes on. :class:`StarterError` if the
        server is gone."""
        taken: list[int] = []
        try:
            status_r, status_w = os.pipe()
            taken += [status_r, status_w]
            to_bot, bot_in = os.pipe()
            taken += [to_bot, bot_in]
            bot_out, from_bot = os.pipe()
            taken += [bot_out, from_bot]
            joins = []
            for path in groups:
                joins.append(os.open(path, os.O_WRONLY | os.O_CLOEXEC))
                taken.append(joins[-1])
            passed = [status_w, to_bot, from_bot, log, files, *joins]
            asked = Asked(status_r, bot_in, bot_out)
            with self._lock:
                self._keep_off_our_cpus()
                try:
                    socket.send_fds(self._sock, [json.dumps(request).encode()], passed)
                except OSError as exc:
                    raise StarterError(f"the start-up server stopped answering ({exc})") from None
                self._asked.append(asked)
        except BaseException:
            for fd in taken:
                with contextlib.suppress(OSError):
                    os.close(fd)
            raise
        for fd in (status_w, to_bot, from_bot, *joins):
            os.close(fd)
        return asked

    def answer(self, asked: Asked) -> ForkedBot:
        """The process :meth:`ask` asked for, once the server has made it (answers come in the
        order of the requests). :class:`StarterError` if the server failed."""
        try:
            with self._lock:
                while asked.reply is None:
                    self._read_answer()
            data, fds = asked.reply
            if not data:
                raise StarterError(self._said() or "the start-up server has ended")
            reply = json.loads(data)
            if "error" in reply or len(fds) != 2:
                for fd in fds:
                    os.close(fd)
                raise StarterError(str(reply.get("error", "no process was made")))
        except BaseException:
            asked.close()
            raise
        mine = [fds[0], *asked.take(), fds[1]]
        try:
            return ForkedBot(*mine)
        except OSError as exc:  # the process is gone already (the bot's pidfd is closed)
            for fd in mine[:-1]:
                with contextlib.suppress(OSError):
                    os.close(fd)
            raise StarterError(f"the bot's process ended at once ({exc.strerror})") from None

    def _read_answer(self) -> None:
        """Read the server's next answer, which is the oldest unanswered request's."""
        if not self._asked:
            raise StarterError("no request waits for an answer")
        try:
            self._sock.settimeout(ANSWER_WAIT)
            data, fds, _, _ = socket.recv_fds(self._sock, MAX_REPLY, 2)
        except OSError as exc:
            self._asked.popleft().reply = (b"", [])
            raise StarterError(f"the start-up server stopped answering ({exc})") from None
        self._asked.popleft().reply = (data, fds)

    def _keep_off_our_cpus(self) -> None:
        """Keep the server (and the processes it makes ahead of time) off the CPUs this
        referee plays on, where there are others: the kernel wakes a process on the CPU of the
        one that woke it, and the server, woken by a request, would make the next process there,
        before the referee (pinned to that CPU for its game) could go on. Each bot then moves to
        the referee's CPUs itself."""
        if not hasattr(os, "sched_setaffinity") or not self._pid:
            return
        ours = os.sched_getaffinity(0)
        if ours == self._beside:
            return
        self._beside = ours
        others = set(range(os.cpu_count() or 1)) - ours
        with contextlib.suppress(OSError):
            os.sched_setaffinity(self._pid, others or range(os.cpu_count() or 1))

    def forget(self) -> None:
        """In a child forked from the referee that started the server: let go of the child's
        copies of its descriptors, leaving the server to its referee."""
        self._let_go()
        self._proc.returncode = 0  # not this process's child: never to be waited for here

    def adopt(self) -> None:
        """In a child forked from the referee that started the server, which takes it over
        (:meth:`hand_over` in the referee): the server is the child's from now on, and ends
        with it (its requests' socket closes). Its bubblewrap process stays the referee's child,
        which reaps it."""
        self._proc.returncode = 0  # never to be waited for here
        self._beside = set()  # the child keeps to CPUs of its own

    def hand_over(self) -> subprocess.Popen[bytes]:
        """In the referee that started the server, once a child forked from it took it over
        (:meth:`adopt`): let go of the referee's copies of its descriptors; its bubblewrap
        process, still the referee's child, is returned to be reaped once it ends."""
        self._let_go()
        return self._proc

    def _let_go(self) -> None:
        for fd in (self._sock.detach(), self._errors, self._init):
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._init = None

    def close(self) -> None:
        """End the server and every process it started."""
        with contextlib.suppress(OSError):
            self._sock.close()
        if self._init is not None:
            jail.end(self._init)
            os.close(self._init)
            self._init = None
        with contextlib.suppress(ProcessLookupError):
            self._proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        with contextlib.suppress(OSError):
            os.close(self._errors)
