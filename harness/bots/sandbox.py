"""A bot in its own process: confinement, deadlines enforced by killing, crash detection.

One :class:`SandboxedAgent` is one bot process for one game (a fresh process per game, so a bot
that died in one game simply gets a new process in the next). A Python bot's process is forked
by this process's jailed start-up server (:mod:`harness.bots.starter`), never used before, in
namespaces of its own; an external command's runner (:mod:`harness.bots.runner`) starts in a
new session, in a jail of bubblewrap's of its own (:mod:`harness.bots.jail`); where no jail
can be built, the runner starts alone and confines itself. Either way the bot is confined
before any bot code runs by the policy of :mod:`harness.bots.isolation`: its own control
group (memory, processes and CPU counted for the bot's whole tree, :mod:`harness.bots.cgroups`),
rlimits per process, new network, mount, PID, IPC and UTS namespaces, an allow-list file
system with a private size-limited ``/tmp``, and when tourney runs as root the unprivileged
``nobody`` user. The bot file (or a bot directory's files) is read by the referee with its
owner's rights and written only inside the bot's own in-memory root: nothing of it is left on
disk.

The referee waits for each answer with ``poll`` on the pipe until the deadline, then kills the
bot's whole process tree: a looping or sleeping bot is stopped at its deadline, not judged
afterwards. Between its turns the whole tree is stopped (:meth:`SandboxedAgent.suspend`), so a
bot cannot think, or keep helpers busy, on its opponent's time. The bot's own output (fd 1 and
2) goes to a separate log pipe that is drained while waiting and kept to its last
``Limits.log_bytes``.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import errno
import importlib.util
import json
import marshal
import os
import pwd
import select
import shutil
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from games import native
from harness.bots import cgroups, isolation, jail, starter, syscalls
from harness.bots import runner as bot_runner
from harness.bots.jail import JailError
from harness.bots.protocol import (
    JSON,
    AgentCrash,
    AgentError,
    AgentProtocolError,
    AgentTimeout,
    LogTail,
    decode,
    encode,
    expect,
    tracer,
)
from harness.bots.spec import (
    AGENTS_DIR,
    BUILTINS,
    MAX_DIR_BYTES,
    BotSpec,
    BotSpecError,
    directory_files,
)
from harness.records import Limits

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MAX_LINE = 4 << 20  # longest protocol line accepted from a bot
FILE_SIZE_LIMIT = 64 << 20  # largest file a bot may write (RLIMIT_FSIZE)
CPU_CHECK_EVERY = 16  # stops between checks of a bot's total CPU time (bounded by its turns)
FALLBACK_PREFIX = "tourney-bot-"  # private copies of bot files where no own root is possible
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
    # (the kernel gives the working directory with no link in it: nothing to resolve)
    paths = {_PROJECT_RESULTS, os.path.join(os.getcwd(), "results"), *_HIDDEN}
    paths.update(p for p in os.environ.get("TOURNEY_HIDE", "").split(os.pathsep) if p)
    return sorted(p for p in paths if os.path.isdir(p))


_PROJECT_RESULTS = str(PROJECT_ROOT / "results")


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


def _env(jailed: bool = False) -> dict[str, str]:
    """The environment of a bot's runner; in a jail its import path names the jail's paths
    (:func:`harness.bots.isolation.in_jail`)."""
    path = isolation.bot_sys_path()
    engines = str(native.build_root())  # the compiled engines, as the bot's Python finds them
    if jailed:
        path = tuple(isolation.in_jail(entry) for entry in path)
        engines = isolation.in_jail(engines)
    return {
        native.BUILD_DIR: engines,
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": os.pathsep.join(path),
        # a bot runs on one CPU: numerical libraries need not start a thread per core
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def _namespaces_allowed() -> bool:
    """False when ``$TOURNEY_NO_NAMESPACES`` is set: to try the fallback of a locked-down
    container on a machine that is not one."""
    return not os.environ.get("TOURNEY_NO_NAMESPACES")


@cache
def report() -> dict[str, Any]:
    """What confinement is in force on this machine: probed once per process by starting the
    runner in probe mode (in bubblewrap's jail where it can be built, else alone), confined
    exactly as for a bot; it reports and exits."""
    mechanism = cgroups.mechanism()
    achieved = _probe_jailed() if _jail_allowed() else {}
    jailed = bool(achieved)
    starts = "a new jail each"
    if jailed:  # Python bots come from the start-up server: what holds for them, as well
        forked = _probe_forked()
        if forked:
            achieved = _weaker(achieved, forked)
            starts = "Python bots forked by the start-up server, commands in a new jail each"
        elif starter_trouble():
            starts += f" (no start-up server: {starter_trouble()})"
    else:
        achieved = probe_runner()
        starts = "a new process each"
    return {
        "mechanism": mechanism,
        "engine": "bubblewrap" if jailed else "none (the runner alone)",
        "starts": starts,
        "cgroups": mechanism != "rlimits",
        "pid_namespace": bool(achieved.get("pid_namespace")),
        "ipc_namespace": bool(achieved.get("ipc_namespace")),
        "network": bool(achieved.get("network")),
        "filesystem": achieved.get("filesystem") == "allow-list",
        "user": bool(achieved.get("unprivileged")),
        "capabilities": achieved.get("capabilities", "unknown"),
        "seccomp": bool(achieved.get("seccomp")),
        # measured: the socket families the probe could open (AF_UNIX only, under the filter)
        "sockets": achieved.get("sockets"),
        "freeze": _freeze(achieved.get("freezer", ""), bool(achieved.get("seccomp")),
                          mechanism),
        # measured by the probe: the process limit counts the bot's processes alone
        "processes_per_bot": mechanism != "rlimits" or (
            bool(achieved.get("own_user_namespace")) and 0 < int(achieved.get("nproc", -1))
            < (1 << 30)),
        "writable": achieved.get("writable", []),
    }


def _freeze(freezer: str, seccomp: bool, mechanism: str) -> str:
    """How a bot is stopped between its turns, in the report's words: frozen by its control
    group (nothing it does undoes that); stopped by signals to its whole tree, checked thread by
    thread, with the filter refusing whatever would have the kernel resume it or take a process
    out of the tree; or, without the filter, by signals a bot may undo."""
    if freezer:
        return "whole tree (freezer)"
    if seccomp:
        return "whole tree (signals)"
    return "process group only" if mechanism == "rlimits" else "signals (undoable: no filter)"


def _jail_allowed() -> bool:
    return _namespaces_allowed() and jail.bwrap() is not None


@cache
def _seccomp_program(unfrozen: bool) -> bytes:
    """The filter for a bot that is frozen between its turns, or stopped by signals
    (``unfrozen``: :data:`harness.bots.syscalls.UNFROZEN` refused too)."""
    return syscalls.bot_filter(unfrozen) or b""


@cache
def _filter(unfrozen: bool) -> JSON:
    """The system-call filter for the runner to install where no jail is possible (base64 BPF),
    where libseccomp is; encoded once per process."""
    program = _seccomp_program(unfrozen)
    return {"seccomp": base64.b64encode(program).decode()} if program else {}


def _compiled(module: Any, where: str) -> list[tuple[str, bytes]]:
    """A program for a jail: compiled by this interpreter (the one the jail runs), as a ``.pyc``
    at ``where`` that Python runs directly, and its source beside it (for tracebacks)."""
    source = Path(module.__file__).read_bytes()
    shown = where.removesuffix("c")
    code = compile(source, shown, "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + (2).to_bytes(4, "little")  # hash-based, unchecked
    return [(where, header + importlib.util.source_hash(source) + marshal.dumps(code)),
            (shown, source)]


@cache
def _runner_files() -> tuple[tuple[str, bytes], ...]:
    """The runner for a jail (:func:`_compiled`)."""
    return tuple(_compiled(bot_runner, jail.RUNNER))


@cache
def server_files() -> tuple[tuple[str, bytes], ...]:
    """The start-up server's jail's programs: the runner and the server (:func:`_compiled`)."""
    from harness.bots import forkserver

    return (*_runner_files(), *_compiled(forkserver, jail.FORKSERVER))


def jail_argv(command: Sequence[str], cwd: str) -> list[str]:
    """An external command's arguments as its jail sees them: those that name an existing path
    (relative to ``cwd``) inside tourney's environment are translated
    (:func:`harness.bots.isolation.in_jail`); every other argument is left as it is."""
    return [isolation.in_jail(arg, cwd) if os.path.exists(os.path.join(cwd, arg)) else arg
            for arg in command]


def _room_for_descriptors(count: int) -> None:
    """Let this process hold ``count`` more descriptors at once (a bot directory's files are
    handed to bubblewrap one descriptor each): the soft limit is raised towards the hard one;
    :class:`AgentCrash` with the fix where even that is too low."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = count + 256
    if soft == resource.RLIM_INFINITY or soft >= need:
        return
    if hard != resource.RLIM_INFINITY and hard < need:
        raise AgentCrash(f"could not start: its {count} files are more than this process may "
                         f"hold open at once (ulimit -Hn {hard}); raise the limit or ship the "
                         "bot in fewer files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (need * 2 if hard == resource.RLIM_INFINITY
                                                else min(hard, need * 2), hard))


@cache
def _jail_view() -> tuple[dict[str, str], tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Every jail's read-only part, worked out once a process: the system view's links, its
    binds as (host path, path in the jail) and its devices."""
    view = isolation.system_view()
    shown = tuple((path, isolation.in_jail(path)) for path in view["binds"])
    return view["links"], shown, tuple(view["devices"])


def make_jail(limits: Limits, *, binds: list[str], bot: list[tuple[str, bytes]] | None,
              unfrozen: bool, cwd: str = "/", forking: bool = False) -> jail.Jail:
    """A jail for one runner: the allow-list view plus ``binds`` (at their own paths), the
    bot's files at ``/bot``, results folders hidden; ``unfrozen``: the filter of a bot stopped
    between its turns by signals rather than frozen. ``forking``: the start-up server's jail
    (:mod:`harness.bots.starter`), without the filter, which each bot's process installs."""
    _room_for_descriptors(len(bot or []))
    user = sandbox_user()
    links, shown, devices = _jail_view()
    return jail.Jail(links=links, binds=[*shown, *((path, path) for path in binds)],
                     devices=devices, bot=bot,
                     hide=[isolation.in_jail(path) for path in hidden_paths()],
                     scratch=limits.scratch_bytes, cwd=cwd,
                     runner=server_files() if forking else _runner_files(),
                     seccomp=b"" if forking else _seccomp_program(unfrozen),
                     as_root=user is not None, forking=forking,
                     reachable=lambda path: user is not None or os.access(path, os.R_OK))


def start_jailed(cage: jail.Jail, python: str, cfg: JSON, args: list[str], join: list[str],
                 **popen: Any) -> subprocess.Popen[bytes]:
    """Start the runner in ``cage`` (bubblewrap).

    The confinement ``cfg``, the protocol's two pipes and the bot's control groups' ``join``
    files (opened here, written by the runner to move itself in first thing) go to the runner
    alone, through a socket it inherits (``--confine FD``): bubblewrap and its init never hold
    the protocol, so a bot that closes it is seen at once. The pipes are the returned
    process's ``stdin`` and ``stdout``."""
    taken: list[int] = []
    sockets: list[socket.socket] = []
    try:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        sockets = [ours, theirs]
        groups = []
        for path in join:
            groups.append(os.open(path, os.O_WRONLY | os.O_CLOEXEC))
            taken.append(groups[-1])
        to_bot, bot_in = os.pipe()
        taken += [to_bot, bot_in]
        bot_out, from_bot = os.pipe()
        taken += [bot_out, from_bot]
    except BaseException:  # e.g. out of descriptors: give back every one taken so far
        for fd in taken:
            with contextlib.suppress(OSError):
                os.close(fd)
        for sock in sockets:
            sock.close()
        cage.close()
        raise
    try:
        command, fds = cage.command([python, "-P", "-S", jail.RUNNER, "--confine",
                                     str(theirs.fileno()), *args])
        proc = subprocess.Popen(["bwrap", *command[1:]], executable=command[0],
                                pass_fds=(*fds, theirs.fileno()), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, **popen)
    except BaseException:
        for fd in (to_bot, bot_in, bot_out, from_bot, *groups):
            os.close(fd)
        ours.close()
        cage.close()
        raise
    finally:
        theirs.close()
    cage.started()
    with contextlib.suppress(OSError), ours:
        socket.send_fds(ours, [json.dumps(cfg).encode()], [to_bot, from_bot, *groups])
    for fd in (to_bot, from_bot, *groups):
        os.close(fd)
    proc.stdin = os.fdopen(bot_in, "wb", buffering=0)
    proc.stdout = os.fdopen(bot_out, "rb", buffering=0)
    return proc


@cache
def jail_python() -> str:
    """The interpreter a jail runs: this one's installation binary (a virtual environment's
    ``bin/python`` is only a link to it, and the environment is shown elsewhere in a jail,
    with its packages on the import path)."""
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


# what the start-up server imports before it forks any bot: the modules of tourney's engines and
# of its built-in bots, and the standard modules they and the runner start with
PRELOAD = ("random", "json", "orjson", "typing", "dataclasses", "pathlib", "collections",
           "itertools", "functools", "math", "games.battleline", "games.warchest", "agents.greedy",
           "agents.greedy_battleline", "agents.greedy_warchest")
_starters: dict[tuple[str, ...], starter.Starter] = {}
_starter_lock = threading.Lock()
_starter_trouble: list[str] = []  # why this process has no start-up server, once it failed


_offered: list[bool] = []  # the next process forked takes this one's start-up server over
_handed: list[subprocess.Popen[bytes]] = []  # servers' bubblewrap processes handed over


def offer_starter() -> None:
    """The next process forked from this one takes this process's start-up server over, and
    this one lets go of it (starting another if it needs one again): a league's first worker
    plays on the server that the league's isolation probe and preflight started, which hides
    the league's folder already, rather than starting one of its own (~75 ms)."""
    _offered[:] = [bool(_starters)]
    _handed[:] = [proc for proc in _handed if proc.poll() is None]  # reaped once they end


def _after_fork_in_child() -> None:
    """In a child forked from a referee: its parent's start-up servers are not its own, but
    for the one offered it (:func:`offer_starter`)."""
    taken = bool(_offered and _offered[0])
    for made in _starters.values():
        if taken:
            made.adopt()
        else:
            made.forget()
    if not taken:
        _starters.clear()
    _offered.clear()
    _handed.clear()


def _after_fork_in_parent() -> None:
    if _offered and _offered[0]:
        _handed.extend(made.hand_over() for made in _starters.values())
        _starters.clear()
    _offered.clear()


os.register_at_fork(after_in_child=_after_fork_in_child, after_in_parent=_after_fork_in_parent)


def _covers(paths: list[str]) -> tuple[str, ...]:
    """The hidden folders a jail covers: those not inside another (a league's ``logs/``, made
    at its first game, is hidden with its results folder, and changes no jail)."""
    ordered = sorted(paths)
    kept: list[str] = []
    for path in ordered:
        if not any(path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return tuple(kept)


def bot_starter() -> starter.Starter | None:
    """This process's start-up server for Python bots (:mod:`harness.bots.starter`), started
    the first time, again when the folders hidden from bots changed or it ended; None where
    none can run here (bots then get a jail of their own each; :func:`starter_trouble` says
    why)."""
    if _starter_trouble or not _jail_allowed():
        return None
    key = _covers(hidden_paths())
    with _starter_lock:
        found = _starters.get(key)
        if found is not None and found.alive():
            return found
        for stale in _starters.values():
            stale.close()
        _starters.clear()
        made = _start_server()
        if isinstance(made, str):
            _starter_trouble.append(made)
            return None
        _starters[key] = made
        return made


def _start_server() -> starter.Starter | str:
    """A new start-up server, or why there is none. It is started from a thread of its own
    that lives as long as this process: bubblewrap dies with the thread that started it (its
    death signal follows the parent thread), and games may be played in threads that end (a
    Dask worker's, a server's)."""
    made: list[starter.Starter | str] = []
    ready = threading.Event()

    def start() -> None:
        try:
            cage = make_jail(Limits(), binds=[], bot=None, unfrozen=False, forking=True)
            early = syscalls.bot_filter(False, "early")
            late = [syscalls.bot_filter(unfrozen, "late") for unfrozen in (False, True)]
            made.append(starter.Starter(cage, jail_python(), _env(jailed=True), {
                "preload": PRELOAD,
                "compile_ahead": _builtin_sources(),
                "early_filter": base64.b64encode(early).decode() if early else "",
                "late_filters": [base64.b64encode(code).decode() for code in late if code]}))
        except (starter.StarterError, OSError) as exc:
            made.append(str(exc) or type(exc).__name__)
        finally:
            ready.set()
        threading.Event().wait()  # never set: the thread is the server's parent for good

    threading.Thread(target=start, name="tourney-start-up-server", daemon=True).start()
    ready.wait()
    return made[0]


def _builtin_sources() -> dict[str, str]:
    """The built-in bots' files, at the path each one's process loads it from (``/bot/NAME``):
    the start-up server compiles them once (:func:`harness.bots.runner.compile_ahead`), where
    each bot's process compiled its file anew (0.4-0.8 ms of a game's CPU a bot). They are
    public: every bot may read them in ``agents/``. Any other bot's file is compiled by its own
    process, at its start, on its own clock."""
    found = {}
    for name in BUILTINS:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            found[f"/bot/{name}.py"] = (AGENTS_DIR / f"{name}.py").read_bytes().decode("utf-8")
    return found


def starter_trouble() -> str:
    """Why this process starts each bot in a jail of its own, or "" (it has a start-up server)."""
    return _starter_trouble[0] if _starter_trouble else ""


def _forked_request(limits: Limits, cfg: JSON, args: list[str],
                    files: list[tuple[str, bytes]] | None, unfrozen: bool) -> JSON:
    """What the start-up server's member needs to become this bot
    (:func:`harness.bots.forkserver._become_bot`): with the late part of the filter
    (:data:`harness.bots.syscalls.LATE`)."""
    late = syscalls.bot_filter(unfrozen, "late")
    return {"cfg": {**cfg, "forked": True}, "args": args,
            "files": None if files is None else [[rel, len(data)] for rel, data in files],
            "scratch": limits.scratch_bytes,
            "late_filter": base64.b64encode(late).decode() if late else ""}


def _jail_cfg(limits: Limits, forked: bool = False) -> JSON:
    """The runner's part of a jail's confinement: as root, the user to become; otherwise the
    process limit, which the kernel counts in the bot's own user namespace (per bot; as root,
    where there is none, the control group counts them). In a jail of bubblewrap's that
    namespace holds the jail's init as well; a process from the start-up server has one of its
    own (``forked``), where its init is not."""
    user = sandbox_user()
    if user is None:
        return {"jailed": True, "nproc": limits.max_processes + (0 if forked else 1)}
    return {"jailed": True, "uid": user[0], "gid": user[1]}


def _probe_jailed() -> JSON:
    """Start a runner in a jail exactly as for a bot, without a bot; what it achieved, with the
    namespaces bubblewrap made (empty if the jail could not be built)."""
    limits = Limits()
    group = cgroups.BotGroup(limits.memory_bytes, limits.max_processes + 1)
    cage = make_jail(limits, binds=[], bot=None, unfrozen=not group.freezer)
    freezer = group.freezer
    try:
        proc = start_jailed(cage, jail_python(), _jail_cfg(limits), ["--probe"],
                            group.join_files, env=_env(jailed=True), stderr=subprocess.PIPE,
                            start_new_session=True, cwd="/")
    except OSError:
        group.close()
        return {}
    try:
        spaces = cage.namespaces(30)
    except (JailError, OSError):
        proc.kill()
        proc.communicate()
        group.close()
        return {}
    waiting, proc.stdin = proc.stdin, None  # kept open: a runner without a referee exits
    try:
        achieved = isolation.read_probe(proc)
    finally:
        if waiting is not None:
            waiting.close()
    group.close()
    if not achieved:
        return {}
    # the namespaces as the runner measured them from inside; bubblewrap's report as well
    inside = jail.compare(achieved.get("namespaces", {}))
    return {**achieved, **{key: flag and spaces[key] for key, flag in inside.items()},
            "freezer": freezer}


def _probe_forked() -> JSON:
    """Start a runner from the start-up server exactly as for a Python bot, without a bot; what
    it achieved, with its namespaces as the kernel shows them from outside (empty if there is
    no server, or it failed)."""
    server = bot_starter()
    if server is None:
        return {}
    limits = Limits()
    group = cgroups.BotGroup(limits.memory_bytes, limits.max_processes)
    # held until its namespaces are read: a probe that exited at once could take its PID 1,
    # and the namespaces with it, before the referee looked (it then reported no forked start)
    request = _forked_request(limits, {**_jail_cfg(limits, forked=True), "hold": True},
                              ["--probe"], None, not group.freezer)
    files = jail.memfd("nothing", b"")
    log_r, log_w = os.pipe()
    try:
        proc = server.spawn(request, files, group.join_files, log_w)
    except starter.StarterError:
        group.close()
        return {}
    finally:
        os.close(files)
        os.close(log_w)
        os.close(log_r)
    try:
        spaces = proc.namespaces()
        achieved = _read_probe_line(proc.stdout.fileno(), 30.0)
    finally:
        proc.kill()
        proc.stdin.close()
        proc.stdout.close()
        proc.close()
        group.close()
    if not achieved:
        return {}
    inside = jail.compare(achieved.get("namespaces", {}))
    return {**achieved, **{key: flag and spaces[key] for key, flag in inside.items()},
            "freezer": group.freezer or cgroups.backend().freezer}


def _read_probe_line(fd: int, timeout: float) -> JSON:
    """The runner's ``confined`` line on ``fd`` (empty if none came within ``timeout``)."""
    data = b""
    deadline = time.monotonic() + timeout
    waiting = select.poll()
    waiting.register(fd, select.POLLIN)
    while b"\n" not in data and time.monotonic() < deadline:
        if not waiting.poll(max(1, int((deadline - time.monotonic()) * 1000))):
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    with contextlib.suppress(ValueError):
        message = json.loads(data.split(b"\n", 1)[0])
        if isinstance(message, dict) and message.get("type") == "confined":
            return message
    return {}


def _weaker(first: JSON, second: JSON) -> JSON:
    """What holds for both of two probes: a protection only where both have it."""
    both: JSON = {**first, **second}
    for key, value in first.items():
        other = second.get(key)
        if isinstance(value, bool):
            both[key] = value and bool(other)
        elif key == "capabilities":
            both[key] = value if value != "none" else other
        elif key == "filesystem":
            both[key] = value if value != "allow-list" else other
        elif key in ("writable", "sockets") and isinstance(value, list):
            both[key] = sorted({*value, *(other or [])})
        elif key == "nproc":
            both[key] = max(int(value), int(other or 0))
    return both


def probe_runner() -> JSON:
    """Confine a runner alone (no jail) exactly as for a bot, without a bot; what it achieved.
    It runs the bots' interpreter (:func:`bot_python`), as a bot's runner does: as root, one
    under a private directory such as ``/root`` cannot import its standard library once it has
    become ``nobody``, and the probe would fail where the bots' runners do not."""
    user = sandbox_user()
    freezer = cgroups.backend().freezer
    cfg: JSON = {"parent": os.getpid(), **_filter(not freezer)}
    if user is not None:
        cfg["uid"], cfg["gid"] = user
    try:
        proc = start_runner([bot_python(), "-P", "-S"], cfg, ["--probe"], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError:
        return {}
    achieved = isolation.read_probe(proc)
    return {**achieved, "freezer": freezer} if achieved else {}


def start_runner(python: list[str], cfg: JSON, args: list[str],
                 **popen: Any) -> subprocess.Popen[bytes]:
    """Start the runner alone (``python`` and its flags, then the runner's ``args``) with its
    confinement ``cfg`` written to a pipe it inherits (``--confine FD``) rather than put on
    its command line, where the bot could read the host's paths and the referee's pid."""
    read, write = os.pipe()
    try:
        proc = subprocess.Popen([*python, bot_runner.__file__, "--confine", str(read), *args],
                                pass_fds=(read,), **popen)
    except BaseException:
        os.close(write)
        raise
    finally:
        os.close(read)
    with contextlib.suppress(OSError), os.fdopen(write, "wb") as pipe:
        pipe.write(json.dumps(cfg).encode())  # a runner that died first says why itself
    return proc


@cache
def _own_root_works() -> bool:
    return report()["engine"] == "bubblewrap" and bool(report()["filesystem"])


_stale_cleared = False


def _clear_stale_copies() -> None:
    """Private copies left by referees that were killed (fallback mode only), once a process."""
    global _stale_cleared
    if _stale_cleared:
        return
    _stale_cleared = True
    base = Path(tempfile.gettempdir())
    with contextlib.suppress(OSError):
        for entry in base.glob(f"{FALLBACK_PREFIX}*"):
            owner = entry.name.removeprefix(FALLBACK_PREFIX).split("-")[0]
            if owner.isdigit() and not cgroups.pid_alive(int(owner)):
                shutil.rmtree(entry, ignore_errors=True)


def _read_available(fd: int) -> bytes:
    """What is in the pipe ``fd`` now, without waiting for more."""
    os.set_blocking(fd, False)
    chunks = []
    with contextlib.suppress(OSError):
        while data := os.read(fd, 65536):
            chunks.append(data)
    return b"".join(chunks)


def _jail_proc(init: int) -> int:
    """A descriptor of a running jail's own /proc (its PID namespace's processes alone), through
    its PID 1's root; -1 where that is not to be had, or is not a /proc of its own."""
    try:
        fd = os.open(f"/proc/{init}/root/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return -1
    if os.fstat(fd).st_dev == os.stat("/proc").st_dev:  # not mounted yet: the host's
        os.close(fd)
        return -1
    return fd


def _any_running(proc: int, group: int | None) -> bool:
    """Whether a thread of a process in the /proc open as ``proc`` (those of process group
    ``group`` only, if given; else a jail's, but for its PID 1, tourney's idle init, which runs
    nothing of the bot's) is in a state that runs code (:data:`cgroups.STOPPED`)."""
    for name in os.listdir(proc):
        if not name.isdigit() or (group is None and name == "1"):
            continue
        try:
            if group is not None:
                with open(f"{name}/stat", "rb", opener=_at(proc)) as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if int(fields[2]) != group:
                    continue
            tasks = os.open(f"{name}/task", os.O_RDONLY | os.O_DIRECTORY, dir_fd=proc)
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        try:
            for tid in os.listdir(tasks):
                with contextlib.suppress(OSError), \
                        open(f"{tid}/stat", "rb", opener=_at(tasks)) as f:
                    state = cgroups.thread_state(f.read())
                    if state and state not in cgroups.STOPPED:
                        return True
        finally:
            os.close(tasks)
    return False


def _at(folder: int) -> Any:
    """An ``open`` opener for paths relative to the directory open as ``folder``."""
    return lambda path, flags: os.open(path, flags | os.O_CLOEXEC, dir_fd=folder)


_running: weakref.WeakSet[SandboxedAgent] = weakref.WeakSet()


def running_bots() -> set[int]:
    """The host pids of this process's sandboxed bots that are started and not yet closed (each
    the leader of its bot's processes: its jail's or runner's process, or from the start-up
    server, its namespace's init)."""
    return {agent.proc.pid for agent in list(_running) if not agent._closed and agent.made}


class SandboxedAgent:
    """One bot process for one game (see the module docstring). Raises AgentError subclasses."""

    proc: subprocess.Popen[bytes]  # set once its process is made (``made``)

    def __init__(self, source: BotSpec, limits: Limits, *, ahead: bool = False) -> None:
        """``ahead``: made ahead of its game (:mod:`harness.bots.spares`): where its process
        comes from the start-up server, it is asked for and not waited for; :meth:`usable`
        says whether it can be a game's."""
        self.source = source
        self.limits = limits
        self.sandbox: JSON = {}
        self._buf = bytearray()
        self._log = LogTail(limits.log_bytes)
        self._closed = False
        self._stopped = False
        self._held: list[int] = []
        self._suspends = 0
        self._spaces: JSON = {}
        self._init: int | None = None  # a pidfd of the jail's PID 1 (tourney's init)
        self._init_pid = 0  # its pid, and (once the bot runs) its /proc, for the stop's check
        self._jail_proc = -1
        self._trace = tracer()  # tourney play --trace: every wire line (None: off)
        self._who = source.label
        self._files: list[tuple[str, bytes]] = []  # what it was given of its bot's files
        self._asked: tuple[starter.Starter, starter.Asked] | None = None  # not yet made
        self._ahead = ahead
        own_root = _own_root_works()
        self.fallback_dir: Path | None = None  # where no jail is possible: its files' copy
        if not own_root:
            _clear_stale_copies()
            token = os.urandom(6).hex()
            self.fallback_dir = Path(tempfile.gettempdir()) / \
                f"{FALLBACK_PREFIX}{os.getpid()}-{token}"
        # a Python bot's process comes from the start-up server (its init is not in its
        # control groups); else in a jail, + its init (PID 1, idle: the runner forks the bot
        # off it)
        self._starter = bot_starter() if own_root and not source.command else None
        processes = limits.max_processes + (1 if own_root and self._starter is None else 0)
        self.group = cgroups.BotGroup(limits.memory_bytes, processes)
        self.spawned = time.perf_counter()
        self.made = False
        try:
            made = self._spawn(own_root)
            if made is not None:
                self.proc, self.made = made, True
        except BaseException:
            self._closed = True
            self.group.close()
            raise
        _running.add(self)
        if self._asked is not None:  # the pipes are ours already; the process is on its way
            self._in: int = self._asked[1].fds[1]
            self._out: int = self._asked[1].fds[2]
        else:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self._in = self.proc.stdin.fileno()
            self._out = self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._poll.register(self._log_fd, select.POLLIN)

    # ---------------------------------------------------------------- process life

    @property
    def forked(self) -> bool:
        """Whether its process came from the start-up server, so could be made ahead of its
        game (:mod:`harness.bots.spares`): it runs no code of its bot before its first
        ``start``."""
        return self._asked is not None or isinstance(self.proc, starter.ForkedBot)

    def usable(self) -> bool:
        """For a process made ahead of its game: whether it can still be a game's (its process
        waiting, its bot's files as they were when it was made); if so its start-up time
        counts from now."""
        try:
            self._arrive()
        except AgentError:
            return False
        if self._closed or self._reaped():
            return False
        try:
            if self._bot_files() != self._files:
                return False
        except AgentError:
            return False
        self.spawned = time.perf_counter()
        return True

    def _confinement(self) -> JSON:
        """The runner's confinement where no jail is possible: it confines itself."""
        user = sandbox_user()
        cfg: JSON = {
            "memory": self.limits.memory_bytes,
            "cpu": self.limits.cpu_seconds,
            "fsize": FILE_SIZE_LIMIT,
            "parent": os.getpid(),
            "cgroups": self.group.join_files,
            **_filter(not self.group.freezer),
        }
        if self.source.path is not None and not self.source.command:
            cfg["bot"] = {"source": str(self.source.path), "name": self.source.path.name,
                          "max_bytes": MAX_DIR_BYTES,
                          "fallback_dir": str(self.fallback_dir or ""), **self._directory()}
        if user is not None:
            cfg["uid"], cfg["gid"] = user
        return cfg

    def _runner_args(self) -> list[str]:
        if self.source.command:
            return ["--exec", *self.source.command]
        assert self.source.path is not None
        if not os.access(self.source.path, os.R_OK):
            raise AgentCrash(f"could not load bot: cannot read {self.source.path}")
        argv = ["--file", self.source.path.name]
        if self.source.entry:
            argv += ["--entry", self.source.entry]
        if self.source.is_directory:
            argv += ["--module", self.source.module]
        if self.source.options:  # a built-in's options, as its constructor's keywords
            argv += ["--options", json.dumps(self.source.kwargs())]
        return argv

    def _spawn(self, own_root: bool) -> subprocess.Popen[bytes] | None:
        argv = self._runner_args()
        log_r, log_w = os.pipe()
        try:
            if self._starter is not None:
                proc = self._spawn_forked(self._starter, argv, log_w)
            else:
                popen: dict[str, Any] = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=log_w, env=_env(), start_new_session=True,
                                             close_fds=True, bufsize=0)
                if own_root:
                    proc = self._spawn_jailed(argv, popen, log_r)
                else:
                    cwd = self._cwd() if self.source.command else "/"
                    proc = start_runner([bot_python(), "-P", "-S"], self._confinement(), argv,
                                        cwd=cwd, **popen)
        except OSError as exc:
            os.close(log_r)
            raise AgentCrash(f"could not start: {exc}") from None
        except BaseException:
            os.close(log_r)
            raise
        finally:
            os.close(log_w)
        os.set_blocking(log_r, False)
        self._log_fd = log_r
        return proc

    def _spawn_forked(self, server: starter.Starter, argv: list[str],
                      log: int) -> subprocess.Popen[bytes] | None:
        """The bot's process from the start-up server (:mod:`harness.bots.starter`): a fresh
        process in namespaces of its own, its files in its own ``/bot``, in the bot's control
        groups before it runs."""
        assert self.source.path is not None
        bot = self._files = self._bot_files()
        cfg: JSON = {**_jail_cfg(self.limits, forked=True), "memory": self.limits.memory_bytes,
                     "cpu": self.limits.cpu_seconds, "fsize": FILE_SIZE_LIMIT,
                     "allowed": isolation.allowed_imports(),
                     "bot_path": "/bot" if self.source.is_directory else f"/bot/{bot[0][0]}"}
        request = _forked_request(self.limits, cfg, argv, bot, not self.group.freezer)
        files = jail.memfd("bot", b"".join(data for _, data in bot))
        try:
            try:
                asked = server.ask(request, files, self.group.join_files, log)
            except starter.StarterError:
                fresh = None if server.alive() else bot_starter()
                if fresh is None:  # it did not die: the error is this bot's
                    raise
                server, asked = fresh, fresh.ask(request, files, self.group.join_files, log)
        except starter.StarterError as exc:
            raise AgentCrash(f"could not start its sandbox: {exc}") from None
        finally:
            os.close(files)
        self._asked = server, asked
        if self._ahead:
            return None
        self._arrive()
        return None

    def _arrive(self) -> None:
        """The process asked of the start-up server, once the server answers (it is being made
        meanwhile); :class:`AgentCrash` if it could not be made."""
        if self._asked is None:
            return
        server, asked = self._asked
        self._asked = None
        try:
            proc = server.answer(asked)
        except starter.StarterError as exc:
            raise AgentCrash(f"could not start its sandbox: {exc}") from None
        self._spaces = proc.namespaces()
        self._init = os.dup(proc.pidfd)
        self._init_pid = proc.init_pid
        self.proc = proc  # type: ignore[assignment]  # what the agent uses of a Popen
        self.made = True

    def _spawn_jailed(self, argv: list[str], popen: dict[str, Any],
                      log: int) -> subprocess.Popen[bytes]:
        """The runner in bubblewrap's jail (:mod:`harness.bots.jail`), in the bot's control
        groups before it runs; the namespaces the kernel made are kept for the report."""
        cfg: JSON = {**_jail_cfg(self.limits), "memory": self.limits.memory_bytes,
                     "cpu": self.limits.cpu_seconds, "fsize": FILE_SIZE_LIMIT,
                     "allowed": isolation.allowed_imports()}
        binds: list[str] = []
        bot = None
        cwd = "/"
        if self.source.command:
            binds = self._command_view()
            cwd = self._cwd()
        else:
            assert self.source.path is not None
            bot = self._bot_files()
            cfg["bot_path"] = "/bot" if self.source.is_directory else f"/bot/{bot[0][0]}"
        cage = make_jail(self.limits, binds=binds, bot=bot, unfrozen=not self.group.freezer,
                         cwd=isolation.in_jail(cwd) if cwd != "/" else cwd)
        popen = {k: v for k, v in popen.items() if k not in ("stdin", "stdout")}
        popen["env"] = _env(jailed=True)
        if self.source.command:  # a program in tourney's environment, as the jail shows it
            argv = ["--exec", *jail_argv(self.source.command, cwd)]
        proc = start_jailed(cage, jail_python(), cfg, argv, self.group.join_files, cwd="/",
                            **popen)
        try:
            self._spaces = cage.namespaces(30)
            self._init = jail.hold(cage.info)
            if self._init is not None:
                self._init_pid = int(cage.info["child-pid"])
        except (JailError, OSError) as exc:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait()
            cage.close()
            said = _read_available(log).decode("utf-8", "replace").strip().splitlines()
            why = said[-1].removeprefix("bwrap: ") if said else str(exc)
            raise AgentCrash(f"could not start its sandbox: {why}") from None
        return proc

    def _bot_files(self) -> list[tuple[str, bytes]]:
        """The bot's file (or a bot directory's files), read by the referee with the file
        access rights of the bot's owner and never following a symbolic link
        (:func:`harness.bots.runner.read_bot_files`)."""
        assert self.source.path is not None
        bot = {"source": str(self.source.path), "name": self.source.path.name,
               "max_bytes": MAX_DIR_BYTES,
               **self._directory()}
        try:
            return bot_runner.read_bot_files(bot)
        except OSError as exc:
            raise AgentCrash(f"could not load bot: cannot read {exc.filename or ''} "
                             f"({exc.strerror})") from None

    def _command_view(self) -> list[str]:
        """What an external command sees beyond the allow-list: its paths
        (:func:`harness.bots.isolation.command_paths`) not already in every bot's view,
        bound read-only at their own paths."""
        visible = [host for host, _ in _jail_view()[1]]
        return [path for path in isolation.command_paths(self.source)
                if not any(isolation.inside(os.path.realpath(path), b) for b in visible)]

    def _cwd(self) -> str:
        """An external command's working directory: its own (``cmd[cwd=DIR]:``) or ours."""
        return str(self.source.cwd) if self.source.cwd is not None else os.getcwd()

    def _directory(self) -> JSON:
        """For a bot directory, the files the runner copies into the bot's ``/bot``."""
        if not self.source.is_directory:
            return {}
        assert self.source.path is not None
        try:
            return {"files": [rel for rel, _ in directory_files(self.source.path)]}
        except BotSpecError as exc:
            raise AgentCrash(f"could not load bot: {exc}") from None

    def _kill(self) -> None:
        """Kill the whole tree (its control group; in a jail its PID 1, which ends every process
        of its PID namespace; else its process group), then reap the leader.

        Only while the leader is unreaped (alive or a zombie) does its id still name this bot's
        group; once reaped the id may be reused, so a second call does nothing.
        """
        if self._reaped():
            return
        # the end of its PID namespace kills every process of the group: it needs only thawing
        self.group.kill(covered=self._init is not None and jail.end(self._init))
        self._signal_group(signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            self.proc.kill()
        if isinstance(self.proc, starter.ForkedBot):
            return  # the start-up server reaps it (a kill ends the whole namespace)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)

    def suspend(self) -> None:
        """Stop the bot's whole tree until its next request (its opponent's turn is not its
        time); then check the limits of the whole tree: :class:`AgentCrash` if one was passed
        (memory every time, CPU every :data:`CPU_CHECK_EVERY` stops and at the game's end).

        Frozen by its control group where it has a freezer (nothing it does from inside undoes
        that); else stopped by SIGSTOP to every process (its group's, or its process group,
        which the filter keeps it in), repeated until every thread of every process reads
        stopped: :class:`AgentCrash` if that does not happen within
        :data:`harness.bots.cgroups.STOP_WAIT` seconds."""
        if self._closed or self._stopped:
            return
        if not self._freeze():
            if self.group.active:
                self._held, complete = self.group.stop_all()
            else:
                complete = self.proc.returncode is not None or self._stop_process_group()
            if not complete:
                self._unstoppable()
        self._stopped = True
        self._suspends += 1
        self._check_tree(self._suspends % CPU_CHECK_EVERY == 0)

    def _freeze(self) -> bool:
        """Freeze the bot's group where it has a freezer; whether it did (a kernel that refused,
        never seen, leaves the bot to be stopped by signals from then on)."""
        if not self.group.freezer:
            return False
        try:
            self.group.freeze()
        except OSError:
            self.group.freezer = ""
            return False
        return True

    def _unstoppable(self) -> None:
        self._kill()
        raise AgentCrash(f"kept running between its turns: a thread was still running "
                         f"{cgroups.STOP_WAIT:g} s after it was stopped; killed")

    def _stop_process_group(self) -> bool:
        """Without a control group: SIGSTOP the bot's process group (its outer bubblewrap's, or
        its runner's, which every process of the bot is in: the filter refuses ``setsid`` and
        ``setpgid`` to a bot that cannot be frozen) until every thread reads stopped; whether
        they all did within :data:`harness.bots.cgroups.STOP_WAIT` seconds."""
        deadline = time.monotonic() + cgroups.STOP_WAIT
        attempt = 0
        while True:
            self._signal_group(signal.SIGSTOP)
            attempt += 1
            cgroups.let_run(attempt)
            if not self._running():
                return True
            if time.monotonic() > deadline:
                return False

    def _reaped(self) -> bool:
        """Whether the bot's leader is reaped (never by asking: a Popen's ``poll`` reaps)."""
        if isinstance(self.proc, starter.ForkedBot):
            return self.proc.poll() is not None
        return self.proc.returncode is not None

    def _signal_group(self, sig: int) -> None:
        """Send ``sig`` to the bot's process group (its leader's pid), while the leader is not
        reaped: only then does that id still name this bot's group. (A process from the
        start-up server is reaped by the server, as soon as it ends: it is asked first.)"""
        if self._reaped():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def _running(self) -> bool:
        """Whether a thread of the bot is not stopped: every process of its jail (read in the
        jail's own /proc, reached through its PID 1's root), else of its process group."""
        if self._jail_proc < 0 and self._init is not None:
            self._jail_proc = _jail_proc(self._init_pid)
        if self._jail_proc >= 0:
            return _any_running(self._jail_proc, None)
        try:
            host = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            return _any_running(host, self.proc.pid)
        finally:
            os.close(host)

    def resume(self) -> None:
        if not self._stopped or self._closed:
            return
        if self.group.freezer:
            self.group.thaw()
        elif self.group.active:
            self.group.continue_all(self._held)
        else:
            self._signal_group(signal.SIGCONT)
        self._stopped = False

    def final_check(self) -> None:
        """At the game's end: stop the bot and check every limit of its whole tree."""
        self.suspend()
        self._check_tree(True)

    def _check_tree(self, cpu: bool) -> None:
        if not self.group.active:
            return
        if self.group.oom_kills():
            self._kill()
            raise AgentCrash(self._memory_reason())
        if not cpu:
            return
        used = self.group.cpu_seconds()
        if used > self.limits.cpu_seconds:
            self._kill()
            raise AgentCrash(f"used {used:.1f} s of CPU, over the CPU time limit of "
                             f"{self.limits.cpu_seconds} s for the bot and all its processes; "
                             "killed")

    def _memory_reason(self) -> str:
        return (f"exceeded the memory limit of {self.limits.memory_bytes >> 20} MB for the bot "
                "and all its processes; killed")

    def close(self) -> None:
        """Quit, kill everything the bot started, keep its log, remove its files and group."""
        if self._closed:
            return
        with contextlib.suppress(AgentError):
            self._arrive()
        self._closed = True
        if not self.made:  # asked ahead of its game and never made
            with contextlib.suppress(OSError):
                os.close(self._log_fd)
            self.group.close()
            return
        if not self._stopped and self.source.command:  # a program of its own: as the protocol
            with contextlib.suppress(OSError):         # says (tourney's runner is killed)
                quit_line = encode({"type": "quit"})
                if self._trace is not None:
                    self._trace(self._who, True, quit_line)
                os.write(self._in, quit_line)
        self._off_our_cpus()
        self._kill()
        self._drain_log()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        if isinstance(self.proc, starter.ForkedBot):
            self.proc.close()
        with contextlib.suppress(OSError):
            os.close(self._log_fd)
        for fd in (self._init, self._jail_proc):
            if fd is not None and fd >= 0:
                os.close(fd)
        self._init, self._jail_proc = None, -1
        self.group.close()
        if self.fallback_dir is not None and self.fallback_dir.exists():
            shutil.rmtree(self.fallback_dir, ignore_errors=True)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def _off_our_cpus(self) -> None:
        """Before the kill, the bot's process onto CPUs other than this referee's, where there
        are others: the kernel ends a process on its own CPU (its memory given back, ~1 ms for
        a Python bot), which would otherwise be the CPU of the game this referee plays next."""
        if self._reaped() or not hasattr(os, "sched_setaffinity"):
            return
        with contextlib.suppress(OSError):
            others = set(range(os.cpu_count() or 1)) - os.sched_getaffinity(0)
            if others:
                os.sched_setaffinity(self.proc.pid, others)

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
            self._log.add(data)

    def logs(self) -> str:
        return self._log.text()

    # ---------------------------------------------------------------- wire

    def _send(self, message: JSON, deadline: float, what: str,
              then: Callable[[], None] | None = None) -> None:
        """Write ``message``; ``then`` is called once the first part is written (or the pipe
        found full): the bot is resumed with its request waiting, so it wakes once, not twice."""
        line = encode(message)
        if self._trace is not None:
            self._trace(self._who, True, line)
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(self._in, view):]
                continue
            except BlockingIOError:
                pass
            except BrokenPipeError:
                raise self._output_ended(f"before {what}") from None
            finally:
                if then is not None:
                    resume, then = then, None
                    resume()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._kill()
                raise AgentTimeout(f"did not read its input in time for {what}; killed")
            writable = select.poll()  # not select(): a descriptor may be above 1023
            writable.register(self._in, select.POLLOUT)
            writable.poll(int(remaining * 1000) + 1)

    def _receive(self, deadline: float, what: str, budget: float) -> JSON:
        while True:
            newline = self._buf.find(b"\n")
            if newline >= 0:
                line = bytes(self._buf[:newline])
                del self._buf[: newline + 1]
                if self._trace is not None:
                    self._trace(self._who, False, line)
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
                    raise self._output_ended(what)
                self._buf += data

    def _died(self) -> str:
        """Why the bot's output ended: how its process exited (given a moment to exit)."""
        code = self._exit_status(0.5)
        said = _describe_exit(code)
        if self._spaces and code is not None and 128 < code < 128 + 65:
            # bubblewrap exits with 128 + the signal that killed the bot; a bot may also have
            # exited with that status itself, so both are said
            said = f"{_describe_exit(128 - code)} (or {said})"
        oom = self.group.oom_kills()
        self._kill()
        self._drain_log()
        if oom:
            return f"process {said}: {self._memory_reason()}"
        return f"process {said}"

    def _output_ended(self, what: str) -> AgentError:
        """The protocol output closed: a crash if the process died, else a protocol error (the
        bot closed its own protocol pipe and kept running)."""
        reason = self._died()
        if reason == f"process {_describe_exit(None)}":
            where = what if what.startswith("before") else f"during {what}"
            return AgentProtocolError(f"closed its protocol input or output {where} and kept "
                                      "running; killed")
        return AgentCrash(f"{reason} {what}" if what.startswith("before") else
                          f"{reason} during {what}")

    def _exit_status(self, timeout: float) -> int | None:
        """The leader's exit code (negative: killed by that signal) without reaping it, or None
        if it is still running after ``timeout`` seconds."""
        if isinstance(self.proc, starter.ForkedBot):  # reaped by the start-up server
            return self.proc.exit_status(timeout)
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
        self._arrive()
        deadline = (start if start is not None else time.perf_counter()) + budget
        self._send(message, deadline, what, then=self.resume)
        try:
            if message["type"] == "start":  # the runner's own report comes first
                confined = expect(self._receive(deadline, what, budget), "confined")
                self.sandbox = {**confined, **self._spaces}
                if self._spaces:  # what the runner measured from inside, as well
                    inside = jail.compare(confined.get("namespaces", {}))
                    self.sandbox.update({key: flag and self._spaces[key]
                                         for key, flag in inside.items()})
            return expect(self._receive(deadline, what, budget), reply)
        except AgentCrash as exc:
            raise AgentCrash(self._annotate(exc.reason)) from None

    def _annotate(self, reason: str) -> str:
        if "MemoryError" in reason:
            return f"{reason} (memory limit {self.limits.memory_bytes >> 20} MB)"
        return reason

    # ---------------------------------------------------------------- agent protocol

    def start(self, info: JSON, timeout: float) -> None:
        """Send ``start``; the start-up limit counts from the process launch. The bot is
        stopped once it is ready, until its first request."""
        if isinstance(info.get("seat"), int):
            self._who = f"seat {info['seat']} ({self.source.label})"
        self._arrive()
        self._onto_our_cpus()
        self._request({"type": "start", "info": info}, "ready", timeout, "start",
                      start=self.spawned)
        self.suspend()

    def _onto_our_cpus(self) -> None:
        """A process from the start-up server is made and confined on the server's CPUs, off
        the game being played, and waits there (its filter then refuses it a move of its own):
        when its game starts it, it is moved onto this referee's CPUs (a game's, pinned), where
        it runs as a bot the referee started itself would. One still being confined then (one
        in five of a fast league's second seats, beside the server's own work and the last
        game's bots' ends) goes on being confined here, where the referee would only wait."""
        if isinstance(getattr(self, "proc", None), starter.ForkedBot) and \
                hasattr(os, "sched_setaffinity"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(self.proc.pid, os.sched_getaffinity(0))

    def act(self, observation: JSON, legal_actions: list[str], timeout: float) -> Any:
        message = {"type": "act", "observation": observation, "legal_actions": legal_actions,
                   "time_left": timeout}
        return self._request(message, "action", timeout, "act").get("action")

    def end(self, result: JSON, timeout: float) -> None:
        self._request({"type": "end", "result": result}, "ok", timeout, "end")
