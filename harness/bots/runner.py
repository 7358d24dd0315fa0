"""Runs one bot in a sandboxed child process and speaks the wire protocol for it.

This file imports nothing but the standard library: the sandbox starts it from where it lies
with a plain interpreter, before it switches to an unprivileged user. The harness also imports
it for :func:`load_bot_file` and :func:`find_entry`, so a bot is discovered by exactly the same
rules in-process and in the sandbox.

Start-up, in order, before any bot code runs:

1. ``--confine FD`` (the policy of :mod:`harness.bots.isolation`, as JSON read from the inherited
   descriptor FD and closed, so neither the bot's command line nor its descriptors hold the
   host's paths or the referee's pid): join the bot's control groups
   (``cgroups``: everything from here on is counted for the bot), read the bot file while still
   privileged; resource limits (address space, CPU, file size, no core dumps); new network,
   mount and PID namespaces where the OS permits (without root inside a new user namespace),
   in which PID 1 builds the bot's own read-only root (``root``: the allow-list, a private
   ``/proc`` and ``/tmp``, the bot's copy of its file or directory at ``/bot``) and
   ``pivot_root``s into it; as root, the switch to the unprivileged user; then
   ``no_new_privs`` and a parent-death signal. Where no own root is possible, the bot's copy
   goes to a private directory named by the referee.
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
from types import FunctionType, ModuleType

# Start-up time is part of every sandboxed game, so this module imports only what it needs at
# once (typing, inspect, pathlib, importlib and ctypes would add ~25 ms to each bot's launch).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    BotFactory = Callable[[], Any]

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_MNT_DETACH = 2
_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
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
    name = module_name or f"tourney_bot_{abs(hash(os.path.abspath(path)))}"
    module = ModuleType(name)
    module.__file__ = path
    module.__loader__ = _SourceLoader(source)  # type: ignore[assignment]
    sys.modules[name] = module
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    except BaseException as exc:  # the bot's module code failed (or exited) while loading
        sys.modules.pop(name, None)
        raise _load_error(exc, label, allowed) from None
    return find_entry(module, entry, label)


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


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def confine(cfg: dict[str, Any]) -> dict[str, Any]:
    """Apply the limits and isolation in ``cfg`` to this process (see the module docstring).

    Returns what was achieved (the runner's first protocol line, before any bot code runs).
    """
    import resource

    for procs in cfg.get("cgroups", []):  # first: everything from here on is counted
        with open(procs, "w") as f:
            f.write("0")
    libc = _libc() if sys.platform.startswith("linux") else None
    bot = cfg.get("bot")
    # read before the namespaces (the original may sit in a private directory), with the file
    # access rights of the bot's owner, never more
    bot_files = _as_owner(libc, bot, _read_bot) if bot else []
    memory = int(cfg.get("memory", 0))
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(cfg.get("cpu", 0))
    if cpu > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    fsize = int(cfg.get("fsize", 0))
    if fsize > 0:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    uid = cfg.get("uid")
    achieved: dict[str, Any] = {"network": False, "pid_namespace": False, "filesystem": "host"}
    if libc is not None and cfg.get("isolate", True):
        # root creates the namespaces directly; anyone else first needs a user namespace
        as_root = uid is not None and os.geteuid() == 0
        achieved.update(_isolate(libc, not as_root, cfg, bot_files))
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
        if parent and not achieved["pid_namespace"] and os.getppid() != parent:
            os._exit(70)  # the parent died before the death signal was armed
    achieved["uid"] = os.getuid()
    achieved["unprivileged"] = os.getuid() != 0 and (uid is not None or
                                                      bool(achieved.get("user_namespace")))
    if bot and achieved["filesystem"] != "allow-list":
        achieved["bot_path"] = _private_copy(bot, bot_files)
    if libc is not None:  # last: what follows is the bot's, with no privilege and no way back
        _drop_capabilities(libc)
        if cfg.get("seccomp"):
            _install_filter(libc, cfg["seccomp"])
    achieved.update(_measured())
    return achieved


def _drop_bounding_set(libc: Any) -> None:
    """Empty the capability bounding set, so that nothing the bot executes can gain one."""
    for cap in range(64):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # EINVAL past the last capability this kernel knows (or EPERM: none to drop)


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


def _install_filter(libc: Any, program: str) -> None:
    """Install the system-call filter (:mod:`harness.bots.syscalls`, BPF bytes in base64)."""
    import base64
    import ctypes

    code = base64.b64decode(program)

    class _Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0),
           "seccomp", "the system-call filter")


def _measured() -> dict[str, Any]:
    """What the kernel says this process now holds (``/proc/self/status``), not what was asked:
    its capabilities, ``no_new_privs`` and seccomp mode."""
    try:
        with open("/proc/self/status") as f:
            status = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
    except OSError:
        return {}
    caps = [int(status.get(k, "0").strip() or "0", 16) for k in ("CapEff", "CapPrm", "CapBnd",
                                                                   "CapAmb", "CapInh")]
    names = ("effective", "permitted", "bounding", "ambient", "inheritable")
    held = [f"{name} {value:x}" for name, value in zip(names, caps, strict=True) if value]
    return {"capabilities": "none" if not held else ", ".join(held),
            "no_new_privs": status.get("NoNewPrivs", "").strip() == "1",
            "seccomp": status.get("Seccomp", "").strip() == "2"}


BotFiles = list[tuple[str, bytes]]  # (path relative to the bot's folder, content)


def _read_bot(bot: dict[str, Any]) -> BotFiles:
    """The bot's files: its one file, or a bot directory's files (``bot["files"]``, the
    relative paths the referee listed), each opened one path component at a time without
    following a symbolic link anywhere (:func:`_open_beneath`)."""
    if "files" not in bot:
        with open(bot["source"], "rb") as f:
            return [(bot["name"], f.read())]
    found: BotFiles = []
    for rel in bot["files"]:
        with os.fdopen(_open_beneath(bot["source"], rel), "rb") as f:
            found.append((rel, f.read()))
    return found


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


def _as_owner(libc: Any, bot: dict[str, Any],
              read: Callable[[dict[str, Any]], BotFiles]) -> BotFiles:
    """``read(bot)`` with the file access rights of the owner of the bot's file or directory:
    as root the runner could read any file, and a bot directory is its author's to arrange."""
    if os.geteuid() != 0 or libc is None:
        return read(bot)
    owner = os.stat(bot["source"])
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


def _isolate(libc: Any, user_namespace: bool, cfg: dict[str, Any],
             bot_files: BotFiles) -> dict[str, Any]:
    """New network, mount and PID namespaces, with three processes from here on.

    This process stays outside and waits (the referee's child); its child is PID 1 of the new
    namespace: it builds the bot's root (:func:`_build_root`, the allow-list file system, with a
    private ``/proc`` so the bot sees none of the referee's processes) and waits in turn; its
    child, PID 2, returns from here and becomes the bot. The bot is not PID 1 so signals such as
    SIGXCPU (the CPU rlimit) act on it normally; when PID 1 dies the kernel kills everything the
    bot started. Without root this needs a new user namespace too (most Linux kernels allow
    it). Without a root of its own, each directory in ``cfg["hide"]`` (results folders) is
    covered by an empty read-only tmpfs. Namespaces the OS refuses (e.g. in an unprivileged
    container) are skipped.
    """
    user = _CLONE_NEWUSER if user_namespace else 0
    uid, gid = os.getuid(), os.getgid()
    spaces = _CLONE_NEWNET | _CLONE_NEWNS | _CLONE_NEWPID | _CLONE_NEWIPC | _CLONE_NEWUTS
    if libc.unshare(user | spaces) != 0:
        return {"network": libc.unshare(user | _CLONE_NEWNET) == 0}
    if user:
        _map_ids(uid, gid)
    _wait_and_pass_on(libc, os.fork())  # returns only in the child
    achieved: dict[str, Any] = {"network": True, "pid_namespace": True, "ipc_namespace": True,
                                "user_namespace": bool(user)}
    private = libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) == 0
    root = cfg.get("root")
    if private and root:
        try:
            achieved["bot_path"] = _build_root(libc, root, cfg, bot_files)
            achieved["filesystem"] = "allow-list"
            achieved["private_proc"] = True
        except OSError as exc:
            achieved["root_error"] = f"{exc.strerror or exc}: {exc.filename or ''}"
    if achieved.get("filesystem") != "allow-list":
        flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
        achieved["private_proc"] = private and libc.mount(
            b"proc", b"/proc", b"proc", flags, None) == 0
        achieved["hidden"] = [path for path in cfg.get("hide", []) if private and libc.mount(
            b"tmpfs", path.encode(), b"tmpfs", flags | _MS_RDONLY, b"size=4k,mode=0555") == 0]
    _wait_and_pass_on(libc, os.fork())
    return achieved


def _map_ids(uid: int, gid: int) -> None:
    """In a new user namespace: be the same user inside as outside (files keep their owner)."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        try:
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
        except OSError:
            continue


def _check(ok: int, what: str, path: str) -> None:
    if ok != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, f"{what} failed ({os.strerror(err)})", path)


def _bind(libc: Any, fd: int, source: str, target: str, writable: bool = False) -> None:
    """Bind ``source`` (opened as ``fd`` before anything covered it) at ``target``, read-only
    unless ``writable``; flags the host locked on the source are kept."""
    _check(libc.mount(f"/proc/self/fd/{fd}".encode(), target.encode(), None,
                      _MS_BIND | _MS_REC, None), "bind", source)
    if writable:
        return
    flags = _MS_BIND | _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV
    if os.statvfs(target).f_flag & os.ST_NOEXEC:
        flags |= _MS_NOEXEC
    _check(libc.mount(b"none", target.encode(), None, flags, None), "read-only remount", source)


def _mkdirs(path: str) -> None:
    os.makedirs(path, mode=0o755, exist_ok=True)


def _build_root(libc: Any, spec: dict[str, Any], cfg: dict[str, Any],
                bot_files: BotFiles) -> str:
    """The allow-list file system (:mod:`harness.bots.isolation`), then ``pivot_root`` into it.

    Sources are opened by descriptor before anything is mounted over them. Returns the bot
    file's (or bot directory's) path inside the new root (or "" for an external command).
    """
    opened = {}
    for source in [*spec.get("binds", []), *spec.get("devices", [])]:
        if source not in opened and os.path.exists(source):
            opened[source] = os.open(source, os.O_PATH | os.O_CLOEXEC)
    base = spec.get("mount_point", "/tmp")
    flags = _MS_NOSUID | _MS_NODEV
    _check(libc.mount(b"tmpfs", base.encode(), b"tmpfs", flags, b"size=4m,mode=0755"),
           "tmpfs", base)
    new = base.rstrip("/")
    for link, target in spec.get("links", {}).items():
        os.symlink(target, new + link)
    uid, gid = int(cfg.get("uid", os.getuid())), int(cfg.get("gid", os.getgid()))
    _mkdirs(new + "/tmp")  # first: a host path under /tmp (a bot's directory) binds inside it
    scratch = int(spec.get("scratch", 64 << 20))
    _check(libc.mount(b"tmpfs", f"{new}/tmp".encode(), b"tmpfs", flags,
                      f"size={scratch},mode=0700,uid={uid},gid={gid}".encode()), "tmpfs", "/tmp")
    _mkdirs(new + "/dev")
    devices = set(spec.get("devices", []))
    for source, fd in sorted(opened.items()):
        target = new + source
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            _mkdirs(target)
        else:
            _mkdirs(os.path.dirname(target))
            if not os.path.exists(target):
                open(target, "wb").close()
        _bind(libc, fd, source, target, writable=source in devices)
        os.close(fd)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{new}/dev/{name}")
    _mkdirs(new + "/proc")
    _check(libc.mount(b"proc", f"{new}/proc".encode(), b"proc",
                      _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None), "proc", "/proc")
    bot_path = ""
    bot = cfg.get("bot")
    if bot and "files" in bot:
        bot_path = _bot_directory_mount(libc, new, bot_files, uid, gid)
    elif bot:
        os.mkdir(new + "/bot", 0o500)
        bot_path = "/bot/" + bot["name"]
        with open(os.open(new + bot_path, os.O_WRONLY | os.O_CREAT, 0o400), "wb") as f:
            f.write(bot_files[0][1])
        os.chown(new + bot_path, uid, gid)
        os.chown(new + "/bot", uid, gid)
    for path in cfg.get("hide", []):
        if os.path.isdir(new + path):
            libc.mount(b"tmpfs", (new + path).encode(), b"tmpfs", flags | _MS_RDONLY,
                       b"size=4k,mode=0555")
    _check(libc.mount(b"none", new.encode(), None, _MS_REMOUNT | _MS_RDONLY | flags, None),
           "read-only remount", "/")
    os.chdir(new)
    _check(libc.syscall(_pivot_root_nr(), b".", b"."), "pivot_root", new)
    _check(libc.umount2(b".", _MNT_DETACH), "umount", "old root")
    cwd = spec.get("cwd", "/")
    os.chdir(cwd if os.path.isdir(cwd) else "/")
    return bot_path


def _bot_directory_mount(libc: Any, new: str, files: BotFiles, uid: int, gid: int) -> str:
    """A bot directory's copy at ``/bot``: an in-memory file system of its own, sized to the
    files (they count towards the bot's memory), readable by the bot's user only, read-only."""
    target = new + "/bot"
    os.mkdir(target, 0o700)
    pages = sum(len(data) // 4096 + 2 for _, data in files) + 64
    flags = _MS_NOSUID | _MS_NODEV
    _check(libc.mount(b"tmpfs", target.encode(), b"tmpfs", flags,
                      f"size={pages * 4096},mode=0700".encode()), "tmpfs", "/bot")
    _write_bot(target, files, uid, gid, 0o500)
    _check(libc.mount(b"none", target.encode(), None, _MS_REMOUNT | _MS_RDONLY | flags, None),
           "read-only remount", "/bot")
    return "/bot"


def _pivot_root_nr() -> int:
    machine = os.uname().machine
    return {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41,
            "ppc64le": 203, "s390x": 217}.get(machine, 155)


def _wait_and_pass_on(libc: Any, child: int) -> None:
    """In the parent of a fork: reap children until ``child`` ends, then end the same way.

    A death by signal is passed on as exit status 128 + the signal (PID 1 cannot kill itself),
    and the outermost process turns that back into the signal, so the referee can say how the
    bot died. In the child (``child == 0``) this returns at once.
    """
    if child == 0:
        return
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    null = os.open(os.devnull, os.O_RDWR)  # the pipes are the bot's: it alone may close them
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    while True:
        pid, status = os.wait()
        if pid == child:
            break
    code = os.waitstatus_to_exitcode(status)
    sig = -code if code < 0 else code - 128 if code > 128 else 0
    if sig and os.getpid() != 1:
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(128 + sig if sig else code)


# --------------------------------------------------------------------------------------------
# serving the protocol


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
        message = json.loads(line)
        return message if isinstance(message, dict) else {"type": "?"}

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(self.out, view) :]


def _describe_error(where: str, exc: BaseException) -> str:
    import traceback

    traceback.print_exc()  # the full traceback goes to the bot's log
    return f"{where} raised {type(exc).__name__}: {exc}"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return {"unserialisable": f"{type(value).__name__}: {repr(value)[:80]}"}
    return value


def serve(factory: BotFactory | None, load_error: str, wire: _Wire) -> None:
    """Answer requests until ``quit`` or end of input.

    The bot's own output is flushed to its log before each reply, so the log is complete up to
    the moment the referee hears back (it may kill the process right after the last reply).
    """
    bot: Any = None
    while True:
        message = wire.read()
        if message is None or message.get("type") == "quit":
            return
        kind = message.get("type")
        reply: dict[str, Any]
        try:
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
    sandbox: dict[str, Any] = {}
    allowed = None
    if args[:1] == ["--confine"]:
        try:
            cfg = json.loads(_read_all(int(args[1])))
            sandbox = confine(cfg)
            if sandbox.get("filesystem") == "allow-list":
                allowed = cfg.get("allowed")
        except OSError as exc:  # cannot even start confined: say why, as the first line
            message = f"could not confine the bot: {exc}"
            os.write(1, json.dumps({"type": "error", "message": message}).encode() + b"\n")
            os._exit(71)
        args = args[2:]
    report = json.dumps({"type": "confined", **sandbox}).encode() + b"\n"
    if args[:1] == ["--probe"]:
        os.write(1, report)
        os._exit(0)
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
    entry = args[args.index("--entry") + 1] if "--entry" in args else None
    factory: BotFactory | None = None
    error = ""
    try:
        if "--module" in args:
            factory = load_bot_dir(path, args[args.index("--module") + 1], entry,
                                   args[args.index("--file") + 1] + "/", allowed)
        else:
            factory = load_bot_file(path, entry, module_name="bot", allowed=allowed)
    except BotLoadError as exc:
        error = f"could not load bot: {exc}"
    if factory is not None and "--options" in args:  # keyword arguments for the constructor
        factory = _with_options(factory, json.loads(args[args.index("--options") + 1]))
    serve(factory, error, wire)
    _flush_output()
    os._exit(0)  # do not wait for threads the bot may have left running


if __name__ == "__main__":
    main(sys.argv[1:])
