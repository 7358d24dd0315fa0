"""Runs one bot in a sandboxed child process and speaks the wire protocol for it.

This file imports nothing but the standard library: the sandbox starts it from where it lies
with a plain interpreter, before it switches to an unprivileged user. The harness also imports
it for :func:`load_bot_file` and :func:`find_entry`, so a bot is discovered by exactly the same
rules in-process and in the sandbox.

Start-up, in order, before any bot code runs:

1. ``--confine FD`` (the policy of :mod:`harness.bots.isolation`, as JSON read from the inherited
   descriptor FD and closed, so neither the bot's command line nor its descriptors hold the
   host's paths or the referee's pid). In bubblewrap's jail (:mod:`harness.bots.jail`, the
   usual case: ``jailed``) the namespaces, the bot's own root, its control groups, the dropped
   capabilities and the system-call filter are in place already; the runner sets the
   per-process resource limits (address space, CPU, file size, no core dumps), measures what
   holds, and forks: this process stays the jail's PID 1, an idle init out of the bot's reach,
   and the child goes on to be the bot (:func:`_split_init`). Where no jail is possible (no
   user namespaces, no bubblewrap), the runner does what it can alone: joins the bot's control
   groups (``cgroups``), reads the bot's files with its owner's rights, sets the limits, as
   root switches to the unprivileged user, then ``no_new_privs``, a parent-death signal, a
   private copy of the bot's files in a directory named by the referee, no capabilities and
   the filter.
2. The first protocol line is the runner's own ``confined`` report (what step 1 achieved).
3. The protocol moves to private file descriptors; the bot's ``stdout``/``stderr`` (fd 1 and 2)
   both go to the log pipe the referee drains, and its ``stdin`` is ``/dev/null``, so nothing the
   bot prints can corrupt the protocol.
4. ``--exec CMD...`` replaces this process with an external bot (after steps 1 and 2 only, so
   the command speaks the protocol on its own stdin/stdout); ``--file NAME [--entry NAME]``
   loads the Python bot file and serves it (with ``--module MODULE``: the bot directory
   ``NAME``'s entry module, imported from the directory, which is also the working
   directory); ``--probe`` only reports and exits.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from types import CodeType, FunctionType, ModuleType

# Start-up time is part of every sandboxed game, so this module imports only what it needs at
# once (typing, inspect, pathlib, importlib and ctypes would add ~25 ms to each bot's launch).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    BotFactory = Callable[[], Any]

_PR_SET_PDEATHSIG = 1
_PR_GET_DUMPABLE = 3
_PR_SET_DUMPABLE = 4
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAPBSET_READ = 23
_PR_CAPBSET_DROP = 24
_PR_SET_SECCOMP = 22
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SECCOMP_MODE_FILTER = 2
_CAPABILITY_VERSION_3 = 0x20080522


class BotLoadError(Exception):
    """The bot file cannot be turned into a bot; the message names the problem and the fix."""


# --------------------------------------------------------------------------------------------
# discovery (shared with the in-process loader)


class FunctionBot:
    """Adapts a plain ``act(observation, legal_actions)`` function to the bot interface."""

    def __init__(self, act: Callable[[Any, Any], Any]) -> None:
        self._act = act

    def act(self, observation: Any, legal_actions: Any) -> Any:
        return self._act(observation, legal_actions)


BOT_MODULE = "tourney_bot_"  # the name of a bot file's module, before a hash of its path


def load_bot_file(path: str | os.PathLike[str], entry: str | None = None,
                  module_name: str = "", allowed: str | None = None) -> BotFactory:
    """Execute a bot file as a fresh module and return a factory of fresh bot objects.

    ``allowed``: what the bot may import, for the message when an import fails (the sandbox
    passes the truth of its file system; in-process bots see this whole environment).
    """
    path = os.fspath(path)
    label = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        raise BotLoadError(
            f"bot file {path!r} cannot be read ({exc.strerror}); check the path"
        ) from None
    name = module_name or f"{BOT_MODULE}{abs(hash(os.path.abspath(path)))}"
    module = ModuleType(name)
    module.__file__ = path
    module.__loader__ = _SourceLoader(source)  # type: ignore[assignment]
    sys.modules[name] = module
    try:
        exec(_compiled(source, path), module.__dict__)
    except BaseException as exc:  # the bot's module code failed (or exited) while loading
        sys.modules.pop(name, None)
        raise _load_error(exc, label, allowed) from None
    return find_entry(module, entry, label)


#: bot files compiled before any bot runs (:func:`compile_ahead`): path -> (source, code)
_AHEAD: dict[str, tuple[bytes, CodeType]] = {}


def compile_ahead(path: str, source: bytes) -> None:
    """Compile a public bot file once, ahead of the processes that will load it: the start-up
    server does this for the built-in bots' files, at the path each bot's process loads its file
    from (``/bot/NAME.py``), so every process forked afterwards finds the code made. Only files
    every bot may read anyway: a server's memory is every bot's process's copy."""
    _AHEAD[path] = (source, compile(source, path, "exec"))


def _compiled(source: bytes, path: str) -> CodeType:
    """The code of a bot file: compiled ahead when this very source was, at this very path (the
    same call, so the same code), else compiled now."""
    ahead = _AHEAD.get(path)
    if ahead is not None and ahead[0] == source:
        return ahead[1]
    return compile(source, path, "exec")


def _load_error(exc: BaseException, label: str, allowed: str | None) -> BotLoadError:
    """Why loading ``label`` failed, with the fix."""
    if isinstance(exc, SyntaxError):
        where = os.path.basename(exc.filename or label)
        return BotLoadError(f"syntax error in {where} line {exc.lineno}: {exc.msg}; fix the file")
    if isinstance(exc, ImportError):
        missing = f" {exc.name!r}" if exc.name else ""
        may = allowed or "the standard library and the packages of this Python environment"
        return BotLoadError(f"{label} failed to import{missing}: {type(exc).__name__}: {exc}; "
                            f"a bot may import {may}")
    return BotLoadError(f"{label} raised while loading: {type(exc).__name__}: {exc}")


def load_bot_dir(directory: str, module: str, entry: str | None = None, label: str = "",
                 allowed: str | None = None) -> BotFactory:
    """Import a bot directory's entry ``module`` the way its author runs it: the directory is
    the working directory and first on the import path, so the bot imports its own modules
    and opens its data files by relative path. Returns a factory of fresh bot objects."""
    label = label or os.path.basename(directory.rstrip("/")) + "/"
    os.chdir(directory)
    sys.path.insert(0, directory)
    try:
        __import__(module)
    except BaseException as exc:  # the bot's modules failed (or exited) while loading
        raise _load_error(exc, label, f"its own modules, {allowed}" if allowed else None) \
            from None
    return find_entry(sys.modules[module], entry, label)


class _SourceLoader:
    """Gives tracebacks the bot's source lines even after the sandbox deleted its copy."""

    def __init__(self, source: bytes) -> None:
        self.source = source

    def get_source(self, name: str) -> str:
        return self.source.decode("utf-8", "replace")


def find_entry(module: ModuleType, entry: str | None, label: str) -> BotFactory:
    """The bot class (or plain ``act`` function) of a loaded module, by name or by uniqueness."""
    if entry:
        obj = getattr(module, entry, None)
        if obj is None:
            found = ", ".join(_candidates(module)) or "none"
            raise BotLoadError(f"{label} has no {entry!r} (bots found: {found})")
        return _factory(obj, f"{label}:{entry}")
    candidates = _candidates(module)
    if not candidates:
        raise BotLoadError(
            f"{label} defines no bot; define a class with a method "
            "act(self, observation, legal_actions) or a function act(observation, legal_actions)"
        )
    if len(candidates) > 1:
        listed = ", ".join(candidates)
        raise BotLoadError(
            f"{label} defines several bots ({listed}); choose one with {label}:{candidates[0]}"
        )
    return _factory(getattr(module, candidates[0]), f"{label}:{candidates[0]}")


def _candidates(module: ModuleType) -> list[str]:
    """Classes defined in the module that have ``act``, and a module-level ``act`` function."""
    found: list[str] = []
    for key, value in vars(module).items():
        if key.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        is_bot_class = isinstance(value, type) and callable(getattr(value, "act", None))
        if is_bot_class or (key == "act" and isinstance(value, FunctionType)):
            found.append(key)
    return found


def _factory(obj: Any, label: str) -> BotFactory:
    if isinstance(obj, type):
        if not callable(getattr(obj, "act", None)):
            raise BotLoadError(f"{label} has no act(observation, legal_actions) method")
        return obj
    if isinstance(obj, FunctionType):
        return lambda: FunctionBot(obj)
    raise BotLoadError(f"{label} is neither a bot class nor an act function")


# --------------------------------------------------------------------------------------------
# confinement (runs first, before any bot code)


_LIBC: list[Any] = []


def _libc() -> Any:
    """The C library, loaded once per process (a process forked by the start-up server finds
    the server's, with the functions it looks up already found)."""
    if not _LIBC:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def confine(cfg: dict[str, Any]) -> dict[str, Any]:
    """Apply the limits and isolation in ``cfg`` to this process (see the module docstring).

    Returns what was achieved (the runner's first protocol line, before any bot code runs).
    """
    if cfg.get("jailed"):
        return _in_jail(cfg)
    for procs in cfg.get("cgroups", []):  # first: everything from here on is counted
        with open(procs, "w") as f:
            f.write("0")
    libc = _libc() if sys.platform.startswith("linux") else None
    bot = cfg.get("bot")
    # read with the file access rights of the bot's owner, never more
    bot_files = _as_owner(libc, bot, _read_bot) if bot else []
    _set_limits(cfg)
    uid = cfg.get("uid")
    achieved: dict[str, Any] = {"filesystem": "host"}
    if libc is not None:
        _drop_bounding_set(libc)  # while the runner still may (CAP_SETPCAP)
    if uid is not None and os.geteuid() == 0:
        gid = int(cfg.get("gid", uid))
        os.setgroups([])
        os.setgid(gid)  # as root these set the real, effective and saved ids alike
        os.setuid(int(uid))
    if libc is not None:
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        parent = int(cfg.get("parent", 0))
        if parent and os.getppid() != parent:
            os._exit(70)  # the parent died before the death signal was armed
    achieved["uid"] = os.getuid()
    achieved["unprivileged"] = os.getuid() != 0 and uid is not None
    if bot:
        achieved["bot_path"] = _private_copy(bot, bot_files)
    achieved["namespaces"] = _namespaces()
    if libc is not None:  # last: what follows is the bot's, with no privilege and no way back
        _drop_capabilities(libc)
        if cfg.get("seccomp"):
            _install_filter(libc, cfg["seccomp"])
    achieved.update(_measured())
    return achieved


def _in_jail(cfg: dict[str, Any]) -> dict[str, Any]:
    """Inside bubblewrap's jail (:mod:`harness.bots.jail`): namespaces, root, capabilities and
    the filter are in place already; set the per-process limits, fork the jail's init off
    (:func:`_split_init`), and in the child that becomes the bot, as root, switch to the bots'
    user; then measure what holds."""
    _set_limits(cfg)
    _die_with_referee()
    libc = _libc()
    if not cfg.get("forked"):  # from the start-up server, whose init is PID 1 already
        _split_init(libc)
    uid = cfg.get("uid")
    if uid is not None and os.geteuid() == 0:  # root's jail: become the bots' user, for good
        _drop_bounding_set(libc)
        os.setgroups([])
        os.setgid(int(cfg.get("gid", uid)))
        os.setuid(int(uid))
        _drop_capabilities(libc)  # the inheritable set survives the switch
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    achieved: dict[str, Any] = {"uid": os.getuid(), "bot_path": cfg.get("bot_path", ""),
                                "filesystem": "host"}
    achieved.update(_measured())
    achieved["unprivileged"] = os.getuid() != 0 and achieved.get("capabilities") == "none"
    achieved.update(_measured_space())
    return achieved


def _die_with_referee() -> None:
    """In a jail the runner is its PID namespace's first process, and stays its init: when it
    dies, every process of the namespace dies. It dies when bubblewrap's outer process dies
    (which dies with the referee), by a death signal bubblewrap arms only late, just before it
    runs the runner: a referee that died before that would leave it running. So a runner whose
    referee is gone already (the protocol's input has no writer left) exits at once."""
    import select

    waiting = select.poll()
    waiting.register(0, select.POLLIN)
    if any(events & (select.POLLHUP | select.POLLERR) for _, events in waiting.poll(0)):
        os._exit(70)


def _split_init(libc: Any) -> None:
    """Fork the jail's PID 1 off the bot: this process stays PID 1 and the child returns, to be
    the bot.

    PID 1 is the namespace's init: its death ends every process of the namespace, so it must be
    out of the bot's reach. It is made non-dumpable first, before the fork (so there is no
    moment where a bot could reach it; the child is then made as dumpable as it was): a process
    of the same uid without CAP_SYS_PTRACE in its user namespace (the bot holds no capability)
    may then neither read nor write its memory (``/proc/1/mem``), nor read ``/proc/1/syscall``,
    ``maps``, its descriptors. In a normal user's jail it has the bot's uid; in root's it keeps
    root's, without a capability (its bounding set emptied, ``no_new_privs``), while the bot
    becomes nobody: the death signal bubblewrap armed (SIGKILL when its outer process dies)
    comes from that outer process, root's without capabilities, which the kernel lets signal
    only a process of its own uid. It holds nothing (every descriptor closed, the protocol's
    among them, so that the referee sees the bot close it), ignores every signal the bot may
    send (the kernel drops the others for a namespace's init), reaps every process the bot
    orphans, and when the bot's first process exits it exits with that status (``128 + N``
    for signal N, as bubblewrap reports it), which ends the rest."""
    dumpable = libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    bot = os.fork()
    if bot == 0:  # the bot, as dumpable as it was (as root, the switch to nobody clears that)
        libc.prctl(_PR_SET_DUMPABLE, max(dumpable, 0), 0, 0, 0)
        return
    # root's jail: what bubblewrap left it to switch users with; the start-up server's
    # member, what it made the namespaces and mounts with
    _drop_bounding_set(libc)
    _drop_capabilities(libc)
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the one signal Python handles by default
    import resource

    os.closerange(0, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(70)
        if pid == bot:
            code = os.waitstatus_to_exitcode(status)
            os._exit(128 - code if code < 0 else code)


def _namespaces() -> dict[str, int]:
    """The namespaces this process is in, by inode number (the referee compares them with its
    own: only a different number is a namespace of the bot's)."""
    spaces = {}
    for name in ("ipc", "net", "pid", "uts", "mnt", "cgroup"):
        try:
            spaces[name] = os.stat(f"/proc/self/ns/{name}").st_ino
        except OSError:
            continue
    return spaces


def _measured_space() -> dict[str, Any]:
    """What the bot may see and write, read back from the kernel in one pass over its mounts:
    whether ``/`` is a read-only in-memory tree (the jail's root, ``filesystem``), the mounts it
    can write to (devices and ``/proc`` aside), the size of its ``/tmp``, whether it has a user
    namespace of its own (where the process limit counts its processes alone), and the
    namespaces it is in (their inode numbers, which the referee compares with its own)."""
    writable = []
    own_root = False
    try:  # (read as bytes: a process just forked pays for each part of Python it first uses)
        for line in _read_proc("/proc/self/mountinfo").splitlines():
            fields = line.split()
            point, options = fields[4], fields[5].split(b",")
            if point == b"/":
                own_root = fields[fields.index(b"-") + 1] == b"tmpfs" and b"ro" in options
            if b"rw" in options and not point.startswith((b"/proc", b"/dev")) \
                    and os.access(point, os.W_OK):
                writable.append(point.decode("utf-8", "surrogateescape"))
        scratch = os.statvfs("/tmp")
        own_users = _read_proc("/proc/self/uid_map").split() != [b"0", b"0", b"4294967295"]
    except (OSError, IndexError, ValueError):
        return {}
    import resource

    # (a mount over another at the same point, as the start-up server's bot's /tmp over the
    # server's own, is listed once)
    return {"filesystem": "allow-list" if own_root else "host", "writable": sorted(set(writable)),
            "scratch_bytes": scratch.f_blocks * scratch.f_frsize,
            "own_user_namespace": own_users, "namespaces": _namespaces(),
            "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0]}


def _set_limits(cfg: dict[str, Any], pid: int = 0) -> None:
    """Per-process resource limits: address space, CPU, file size, no core dumps, and in a jail
    the process count; of this process, or of process ``pid`` (the jail's PID 1, made by the
    start-up server before the bot was known)."""
    import resource

    limits = [(resource.RLIMIT_CORE, (0, 0))]
    memory = int(cfg.get("memory", 0))
    if memory > 0:
        limits.append((resource.RLIMIT_AS, (memory, memory)))
    cpu = int(cfg.get("cpu", 0))
    if cpu > 0:
        limits.append((resource.RLIMIT_CPU, (cpu, cpu + 1)))
    fsize = int(cfg.get("fsize", 0))
    if fsize > 0:
        limits.append((resource.RLIMIT_FSIZE, (fsize, fsize)))
    nproc = int(cfg.get("nproc", 0))
    if nproc > 0:  # counted per user namespace (Linux 5.14+): in the bot's own, per bot
        limits.append((resource.RLIMIT_NPROC, (nproc, nproc)))
    for which, value in limits:
        resource.prlimit(pid, which, value)


def _drop_bounding_set(libc: Any, keep: tuple[int, ...] = ()) -> bool:
    """Empty the capability bounding set (but ``keep``), so that nothing the bot executes can
    gain one; whether every drop was allowed (a process without ``CAP_SETPCAP`` may drop none).
    Each drop costs the kernel a new set of credentials (~10 µs): only those in the set are
    dropped, asked of the kernel cap by cap (``PR_CAPBSET_READ``; reading ``/proc/self/status``
    would cost a process just forked from the start-up server far more)."""
    for cap in range(64):
        held = libc.prctl(_PR_CAPBSET_READ, cap, 0, 0, 0)
        if held < 0:
            break  # EINVAL past the last capability this kernel knows
        if held and cap not in keep and libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            return False
    return True


def _drop_capabilities(libc: Any) -> None:
    """Give up every capability that is left: the ambient set and the effective, permitted and
    inheritable sets. In a user namespace the runner holds them all until here (a Python bot is
    never executed anew, so nothing else would clear them); as root, the switch to the bot's
    user has already cleared them."""
    import ctypes

    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable (two words each): none
    libc.capset(header, data)


def _check(ok: int, what: str, path: str) -> None:
    if ok != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"{what} failed ({os.strerror(err)})", path)


def _install_filter(libc: Any, program: str) -> None:
    """Install the system-call filter (:mod:`harness.bots.syscalls`, BPF bytes in base64)."""
    _prepared_filter(libc, program)()


def _prepared_filter(libc: Any, program: str) -> Callable[[], None]:
    """:func:`_install_filter` in two steps: decoded now, installed when the result is called
    (a process made ahead of its game installs it at the game's start, at the cost of one
    system call)."""
    import base64
    import ctypes

    code = base64.b64decode(program)

    class _Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))

    def install(_program_memory: Any = buffer) -> None:  # kept alive with the function
        _check(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0),
               "seccomp", "the system-call filter")

    return install


def _measured() -> dict[str, Any]:
    """What the kernel says this process now holds (``/proc/self/status``), not what was asked:
    its capabilities, ``no_new_privs`` and seccomp mode."""
    try:
        text = _read_proc("/proc/self/status")
    except OSError:
        return {}
    status = {}
    for line in text.splitlines():
        key, _, value = line.partition(b":")
        status[key] = value.strip()
    caps = [int(status.get(k) or b"0", 16) for k in (b"CapEff", b"CapPrm", b"CapBnd", b"CapAmb",
                                                     b"CapInh")]
    names = ("effective", "permitted", "bounding", "ambient", "inheritable")
    held = [f"{name} {value:x}" for name, value in zip(names, caps, strict=True) if value]
    return {"capabilities": "none" if not held else ", ".join(held),
            "no_new_privs": status.get(b"NoNewPrivs") == b"1",
            "seccomp": status.get(b"Seccomp") == b"2"}


def _read_proc(path: str) -> bytes:
    """A /proc file's bytes, read whole."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _socket_families() -> list[str]:
    """The address families, of those a bot could reach something with, that this process can
    open a socket of (the probe's measure of the filter's socket rule): ``["AF_UNIX"]`` under
    tourney's filter."""
    import _socket

    opened = []
    for name, kind in (("AF_UNIX", _socket.SOCK_STREAM), ("AF_INET", _socket.SOCK_DGRAM),
                       ("AF_INET6", _socket.SOCK_DGRAM), ("AF_NETLINK", _socket.SOCK_RAW),
                       ("AF_VSOCK", _socket.SOCK_STREAM)):
        family = getattr(_socket, name, None)
        if family is None:
            continue
        try:
            _socket.socket(family, kind).close()
        except OSError:
            continue
        opened.append(name)
    return opened


BotFiles = list[tuple[str, bytes]]  # (path relative to the bot's folder, content)


def _read_bot(bot: dict[str, Any]) -> BotFiles:
    """The bot's files: its one file, or a bot directory's files (``bot["files"]``, the
    relative paths the referee listed), each opened one path component at a time without
    following a symbolic link anywhere (:func:`_open_beneath`). Only regular files are read (a
    FIFO or device swapped in after the listing is refused, never waited on), and at most
    ``bot["max_bytes"]`` bytes in all (a file grown after the listing is refused)."""
    limit = int(bot["max_bytes"])  # harness.bots.spec.MAX_DIR_BYTES, from the referee
    if "files" not in bot:
        fd = os.open(bot["source"], os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        return [(bot["name"], _read_regular(fd, bot["name"], limit))]
    found: BotFiles = []
    for rel in bot["files"]:
        data = _read_regular(_open_beneath(bot["source"], rel), rel, limit)
        limit -= len(data)
        found.append((rel, data))
    return found


def _read_regular(fd: int, name: str, limit: int) -> bytes:
    """Read the open file ``fd`` (closed after) if it is a regular file of at most ``limit``
    bytes; :class:`OSError` naming ``name`` otherwise."""
    import stat

    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(22, "not a regular file", name)
        os.set_blocking(fd, True)
        chunks = []
        left = limit + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise OSError(27, "larger than a bot may be", name)
    return data


def _open_beneath(folder: str, rel: str) -> int:
    """Open the regular file ``rel`` inside ``folder``: every component is opened relative to
    the one before with ``O_NOFOLLOW``, so a directory swapped for a symbolic link after the
    referee listed the files (to reach a file its owner may not read) fails with ``ELOOP``
    instead of being followed; a FIFO or device is refused rather than read."""
    import stat

    parts = rel.split("/")
    if rel.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise OSError(22, "not a path inside the bot directory", rel)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(folder, flags | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        found = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(found).st_mode):
        os.close(found)
        raise OSError(22, "not a regular file in the bot directory", rel)
    os.set_blocking(found, True)
    return found


def read_bot_files(bot: dict[str, Any]) -> BotFiles:
    """The bot's files (:func:`_read_bot`), read with its owner's rights (:func:`_as_owner`)."""
    return _as_owner(_libc() if sys.platform.startswith("linux") else None, bot, _read_bot)


def _as_owner(libc: Any, bot: dict[str, Any],
              read: Callable[[dict[str, Any]], BotFiles]) -> BotFiles:
    """``read(bot)`` with the file access rights of the owner of the bot's file or directory:
    as root the runner could read any file, and a bot directory is its author's to arrange."""
    if os.geteuid() != 0 or libc is None:
        return read(bot)
    owner = os.lstat(bot["source"])  # a link's own owner: never the rights of its target's
    libc.setfsgid(owner.st_gid)
    libc.setfsuid(owner.st_uid)
    try:
        return read(bot)
    finally:
        libc.setfsuid(0)
        libc.setfsgid(0)


def _write_bot(folder: str, files: BotFiles, uid: int, gid: int, dir_mode: int) -> None:
    """Write the bot's files under ``folder`` (which exists), owned by ``uid``:``gid``, files
    read-only (0400) and directories ``dir_mode``."""
    folders = {folder}
    for rel, data in files:
        path = os.path.join(folder, rel)
        parent = os.path.dirname(path)
        while parent not in folders:
            folders.add(parent)
            parent = os.path.dirname(parent)
        os.makedirs(os.path.dirname(path), 0o700, exist_ok=True)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400), "wb") as f:
            f.write(data)
        os.chown(path, uid, gid)
    for path in sorted(folders, key=len, reverse=True):
        os.chown(path, uid, gid)
        os.chmod(path, dir_mode)


def _private_copy(bot: dict[str, Any], files: BotFiles) -> str:
    """Without a root of its own the bot reads its file (or directory) from a directory only it
    may read, named by the referee (which removes it, and stale ones of dead referees)."""
    folder = str(bot["fallback_dir"])
    os.mkdir(folder, 0o700)
    _write_bot(folder, files, os.getuid(), os.getgid(), 0o700)
    return folder if "files" in bot else os.path.join(folder, bot["name"])


# --------------------------------------------------------------------------------------------
# serving the protocol


def _reader() -> Callable[[bytes], Any]:
    """What reads the referee's lines: orjson where the bot's Python has it (the environment's
    does; the start-up server imports it ahead), else the standard library."""
    try:
        import orjson
    except ImportError:
        return json.loads
    return orjson.loads


_loads = _reader()


def _writer() -> Callable[[Any], bytes] | None:
    """orjson's writer where the bot's Python has it: for replies whose values are all strings
    it writes the bytes the standard library's compact JSON does, in a fraction of the time."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.dumps


_dumps = _writer()


class _Wire:
    """The protocol on private descriptors; fd 0 becomes /dev/null and fd 1 joins fd 2 (the log)."""

    def __init__(self) -> None:
        self.inp = os.fdopen(os.dup(0), "rb")
        self.out = os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)

    def read(self) -> dict[str, Any] | None:
        line = self.inp.readline()
        if not line:
            return None
        message = _loads(line)
        return message if isinstance(message, dict) else {"type": "?"}

    def send(self, message: dict[str, Any]) -> None:
        data = b""
        if _dumps is not None and all(type(v) is str for v in message.values()):
            try:
                data = _dumps(message) + b"\n"
            except Exception:  # (a lone surrogate: as the standard library says)
                data = b""
        if not data:
            data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(self.out, view) :]


def _describe_error(where: str, exc: BaseException) -> str:
    import traceback

    traceback.print_exc()  # the full traceback goes to the bot's log
    return f"{where} raised {type(exc).__name__}: {exc}"


def _jsonable(value: Any) -> Any:
    if type(value) is str:
        return value
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return {"unserialisable": f"{type(value).__name__}: {repr(value)[:80]}"}
    return value


def serve(load: Callable[[], tuple[BotFactory | None, str]], wire: _Wire) -> None:
    """Answer requests until ``quit`` or end of input.

    ``load`` gives the bot's factory (or None and why not); it is called at the first
    ``start``, not before: a process made ahead of its game (see
    :mod:`harness.bots.spares`) runs no code of its bot until its game starts it.

    The bot's own output is flushed to its log before each reply, so the log is complete up to
    the moment the referee hears back (it may kill the process right after the last reply).
    """
    bot: Any = None
    loaded: tuple[BotFactory | None, str] | None = None
    while True:
        message = wire.read()
        if message is None or message.get("type") == "quit":
            return
        kind = message.get("type")
        reply: dict[str, Any]
        try:
            if kind == "start" and loaded is None:
                loaded = load()
            factory, load_error = loaded if loaded is not None else (None, "")
            if kind == "start" and factory is None:
                reply = {"type": "error", "message": load_error}
            elif kind == "start":
                assert factory is not None
                bot = factory()
                if callable(getattr(bot, "start", None)):
                    bot.start(message.get("info", {}))
                reply = {"type": "ready"}
            elif kind == "act":
                action = bot.act(message["observation"], message["legal_actions"])
                reply = {"type": "action", "action": _jsonable(action)}
            elif kind == "end":
                if callable(getattr(bot, "end", None)):
                    bot.end(message.get("result", {}))
                reply = {"type": "ok"}
            else:
                reply = {"type": "error", "message": f"runner got unknown request {kind!r}"}
        except Exception as exc:
            reply = {"type": "error", "message": _describe_error(str(kind), exc)}
        _flush_output()
        wire.send(reply)


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # the bot replaced or closed its own stream: nothing to keep
            continue


def _with_options(factory: BotFactory, options: dict[str, Any]) -> BotFactory:
    """A factory that passes ``options`` to the bot's constructor (a built-in's spec options)."""
    return lambda: factory(**options)


def _read_confinement(fd: int) -> bytes:
    """The confinement the referee wrote on the inherited descriptor ``fd``, which is then
    closed. In a jail ``fd`` is a socket that also brings the protocol's two pipes, which
    become this process's standard input and output (the jail started with neither), and the
    bot's control groups' files, opened by the referee, into which the runner moves itself
    before anything else."""
    import stat

    if not stat.S_ISSOCK(os.fstat(fd).st_mode):
        return _read_all(fd)
    import _socket  # not socket: its enums and selectors cost a few ms of every start
    import array

    sock = _socket.socket(fileno=fd)
    fds = array.array("i")
    try:
        data, ancillary, _, _ = sock.recvmsg(65536, _socket.CMSG_LEN(16 * fds.itemsize))
        for level, kind, payload in ancillary:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
        chunks = [data]
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    finally:
        sock.close()
    for group in fds[2:]:  # first: from here on everything is counted for the bot
        os.write(group, b"0")
        os.close(group)
    for fd_from, fd_to in zip(fds[:2], (0, 1), strict=True):
        os.dup2(fd_from, fd_to)
        os.close(fd_from)
    return b"".join(chunks)


def _read_all(fd: int) -> bytes:
    """Everything the referee wrote on the inherited descriptor ``fd``, which is then closed."""
    chunks = []
    try:
        while data := os.read(fd, 65536):
            chunks.append(data)
    finally:
        os.close(fd)
    return b"".join(chunks)


def main(argv: list[str]) -> None:
    """``bot_runner.py [--confine FD] (--file PATH [--entry NAME] [--options JSON] |
    --exec CMD... | --probe)``.

    The first line on the protocol output is the runner's own ``confined`` report (what the
    confinement achieved), written before any bot code runs, so the referee learns it from the
    runner rather than from the bot.
    """
    args = list(argv)
    cfg = None
    if args[:1] == ["--confine"]:
        try:
            cfg = json.loads(_read_confinement(int(args[1])))
        except OSError as exc:
            _cannot_confine(exc)
        args = args[2:]
    run(cfg, args)


def _cannot_confine(exc: OSError) -> None:
    """Say why the bot cannot even start confined, as the first line, and exit."""
    message = f"could not confine the bot: {exc}"
    os.write(1, json.dumps({"type": "error", "message": message}).encode() + b"\n")
    os._exit(71)


def run(cfg: dict[str, Any] | None, args: list[str],
        waiting: Callable[[], None] | None = None) -> None:
    """Confine this process by ``cfg`` (None: not at all), then run the bot ``args`` name
    (see :func:`main`); never returns. ``waiting``: the last of the confinement (the start-up
    server's process installs its filter's last part), done once its confinement is reported,
    before it waits for its first request (an :class:`OSError` there is the bot's start-up
    error)."""
    sandbox: dict[str, Any] = {}
    allowed = None
    if cfg is not None:
        try:
            sandbox = confine(cfg)
            if sandbox.get("filesystem") == "allow-list":
                allowed = cfg.get("allowed")
        except OSError as exc:
            _cannot_confine(exc)
    if args[:1] == ["--probe"]:  # measured as a bot would be: with the whole confinement
        if waiting is not None:
            waiting()
        sandbox["sockets"] = _socket_families()
        os.write(1, json.dumps({"type": "confined", **sandbox}).encode() + b"\n")
        if cfg is not None and cfg.get("hold"):
            # until the referee has looked at it from outside (its PID 1 ends with it)
            import select

            select.select([0], [], [])
        os._exit(0)
    report = json.dumps({"type": "confined", **sandbox}).encode() + b"\n"
    if args[:1] == ["--exec"]:
        os.write(1, report)
        try:
            os.execvp(args[1], args[1:])
        except OSError as exc:  # answer the referee's first request with the reason
            message = f"could not run {args[1]!r}: {exc.strerror}; check the cmd: command line"
            os.write(1, json.dumps({"type": "error", "message": message}).encode() + b"\n")
            os._exit(127)
    wire = _Wire()
    os.write(wire.out, report)
    if sys.flags.no_site:  # the sandbox starts bots without site (-S); keep what it defines
        import _sitebuiltins
        import builtins

        for name in ("exit", "quit"):
            setattr(builtins, name, _sitebuiltins.Quitter(name, "Ctrl-D (i.e. EOF)"))
    path = sandbox.get("bot_path") or args[args.index("--file") + 1]
    try:
        if waiting is not None:
            waiting()
    except OSError as exc:
        failed = f"could not confine the bot: {exc}"
        serve(lambda: (None, failed), wire)
    else:
        serve(lambda: _load(path, args, allowed), wire)
    _flush_output()
    os._exit(0)  # do not wait for threads the bot may have left running


def _load(path: str, args: list[str], allowed: str | None) -> tuple[BotFactory | None, str]:
    """The bot's factory from its file or directory, with a built-in's options; or None and
    the reason it could not be loaded."""
    entry = args[args.index("--entry") + 1] if "--entry" in args else None
    try:
        if "--module" in args:
            factory = load_bot_dir(path, args[args.index("--module") + 1], entry,
                                   args[args.index("--file") + 1] + "/", allowed)
        else:
            factory = load_bot_file(path, entry, module_name="bot", allowed=allowed)
    except BotLoadError as exc:
        return None, f"could not load bot: {exc}"
    if "--options" in args:  # keyword arguments for the constructor
        factory = _with_options(factory, json.loads(args[args.index("--options") + 1]))
    return factory, ""


if __name__ == "__main__":
    main(sys.argv[1:])
