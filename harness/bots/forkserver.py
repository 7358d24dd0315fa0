"""The jailed start-up server: one per referee process, it forks every Python bot's process.

A bot's start used to be a whole new jail: bubblewrap building the namespaces and the root, a
new interpreter, the engines imported again (~30 ms, and 140 ms more for a bot that imports an
engine). This program runs in a jail of bubblewrap's built like a bot's (the same read-only
view, no network, the results folders hidden; :mod:`harness.bots.starter` starts it), imports
the interpreter's start-up modules and the game engines once, and never runs a bot's code. For
each bot it forks a process that has never been used, in namespaces of its own, and only then
gives it the bot:

* **A member** of its pool is made ahead of time (:func:`_make_member`): the server unshares
  new PID, mount, network, IPC, UTS and cgroup namespaces for itself, starts the namespace's
  PID 1 (:func:`_start_init`: a clone of the server that shares its memory and runs nothing but
  ``pause()``, every signal blocked), forks the bot's process (PID 2), and goes back into its own
  namespaces. The init costs no copy of the server's memory, at its start or its end; the
  server is non-dumpable, so no bot, whatever its uid, may read or write the init's memory, and
  the kernel drops the signals a bot sends its namespace's init. The bot's process makes every
  mount private (where one of the server's propagates; bubblewrap's never do) and mounts a
  ``/proc`` of its PID namespace (with bubblewrap's read-only covers).
* **The bot's process** waits until the referee asks for a bot (:func:`_become_bot`); then it
  joins the bot's control groups (through descriptors the referee opened), mounts its own
  size-limited ``/tmp`` and writes the bot's files into a new in-memory ``/bot``, read-only;
  takes the protocol's pipes as its standard input and output and the log as its standard
  error; for a normal user enters a user namespace of its own (so the process limit counts its
  processes alone); gives up every capability but those the runner needs to become the bots'
  user as root; sets ``no_new_privs``; installs tourney's system-call filter; and runs the
  runner (:func:`harness.bots.runner.run`), which sets the limits and reports what holds before
  any bot code.

The server holds pidfds of each member's init and bot process and sends the referee copies with
its reply (the referee kills the init, and with it every process of its PID namespace, itself).
It reaps the bot's process, its own child, writes its exit status on a pipe the referee gave,
and ends its init, which ends whatever the bot left (an init that only pauses reaps nothing: a
process the bot orphans stays a zombie until then); it reaps the init when its pidfd says so.
It is its own jail's PID 1: when it dies (its input closed: the referee is gone), every process
it started dies with it.

This file, like the runner, imports nothing of tourney's: it runs in the jail from
``/tourney``, with the runner beside it.
"""

from __future__ import annotations

import _sitebuiltins  # noqa: F401  (the runner's, in every bot's process: see _ready_to_fork)
import array
import contextlib
import ctypes
import gc
import json
import os
import resource  # noqa: F401  (likewise)
import select
import signal
import socket
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any

RUNNER = "/tourney/runner.pyc"
POOL = 3  # members made ahead of time: the seats of a game start without waiting
QUIET = 0.003  # seconds after a request before the server makes members again
MAX_MESSAGE = 1 << 20
_CLONE_NEWNS = 0x00020000
_CLONE_NEWCGROUP = 0x02000000
_CLONE_NEWUTS = 0x04000000
_CLONE_NEWIPC = 0x08000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_CLONE_VM = 0x00000100
_PR_SET_DUMPABLE = 4
_INIT_STACK = 1 << 16  # bytes of stack for an init's pause()
# a bot's namespaces but its PID namespace, by their names in /proc/self/ns
_SPACES = _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS | _CLONE_NEWCGROUP
_NAMES = {_CLONE_NEWPID: "pid", _CLONE_NEWNS: "mnt", _CLONE_NEWNET: "net", _CLONE_NEWIPC: "ipc",
          _CLONE_NEWUTS: "uts", _CLONE_NEWCGROUP: "cgroup"}
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
# what bubblewrap covers read-only in a jail's /proc (its --proc): the kernel's knobs
_PROC_COVERS = ("sys", "sysrq-trigger", "irq", "bus")
# what root's runner keeps to become the bots' user (CAP_SETGID, CAP_SETUID, CAP_SETPCAP),
# which that switch clears; and what the bot's process mounts its /tmp and /bot with
_ROOT_KEEPS = [6, 7, 8]
_CAP_SETPCAP = 8
_CAP_SYS_ADMIN = 21
_MADV_COLLAPSE = 25
# the C library's functions a bot's process calls (the runner's and this file's; the server's
# own are found at its first use of each, before most members are made)
_LIBC_CALLS = ("capset", "mount", "prctl", "sethostname", "unshare")
_HUGE_PAGE = 2 << 20
# whether a mount of this server's namespace propagates (its root may not be private): set by
# the server, which makes every mount of each bot's namespace private only then
_propagating = True


def _check(ok: int, what: str) -> None:
    if ok != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(libc: Any, source: str | None, target: str, kind: str | None, flags: int,
           data: str | None = None) -> None:
    _check(libc.mount(source and source.encode(), target.encode(), kind and kind.encode(),
                      flags, data and data.encode()), f"mount {target}")


def _load_runner() -> ModuleType:
    """The runner, from its compiled file beside this one (it is on no import path), loaded
    once."""
    if "tourney_runner" in sys.modules:
        return sys.modules["tourney_runner"]
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourcelessFileLoader("tourney_runner", RUNNER)
    spec = importlib.util.spec_from_loader("tourney_runner", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tourney_runner"] = module
    loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------ the members


class Filters:
    """The system-call filters a bot's process installs, decoded once by the server (each
    process is a copy): the early one, installed ahead of time, and the late ones a request may
    name (its base64 text -> the call that installs it at the bot's start)."""

    def __init__(self, early: Callable[[], None] | None,
                 late: dict[str, Callable[[], None]]) -> None:
        self.early = early
        self.late = late


class Init:
    """A bot's PID 1, as the server knows it: its pid (in the server's PID namespace), a pidfd,
    and the stack it was started on (kept until it is reaped)."""

    def __init__(self, pid: int, pidfd: int, stack: Any) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.stack = stack


class Member:
    """A member of the pool, as the server knows it: its init, its bot's process (pid in the
    server's PID namespace and a pidfd), the socket that process waits on, and once given out,
    the referee's status pipe."""

    def __init__(self, init: Init, pid: int, pidfd: int, sock: socket.socket) -> None:
        self.init = init
        self.pid = pid
        self.pidfd = pidfd
        self.sock: socket.socket | None = sock
        self.status = -1


def _start_init(libc: Any) -> Init:
    """A new PID 1 (see the module docstring): a clone of this process that shares its memory
    and runs nothing but ``pause()``, every signal blocked. Called just after this process
    unshared its namespaces: the clone is the first process of the new PID namespace."""
    stack = ctypes.create_string_buffer(_INIT_STACK)
    top = (ctypes.addressof(stack) + _INIT_STACK - 64) & ~15
    pause = ctypes.cast(libc.pause, ctypes.c_void_p)
    before = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:  # the clone starts with this thread's mask: nothing may interrupt its pause
        pid = libc.clone(pause, ctypes.c_void_p(top), _CLONE_VM | signal.SIGCHLD, None)
        err = ctypes.get_errno()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
    if pid <= 0:
        raise OSError(err, f"clone (a bot's PID 1): {os.strerror(err)}")
    try:
        return Init(pid, os.pidfd_open(pid), stack)
    except OSError:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise


def _make_member(libc: Any, own: dict[int, int], keep: list[int], filters: Filters) -> Member:
    """A new member (see the module docstring): new namespaces, its init, and its bot's
    process; then this process is back in its own namespaces (``own``: a descriptor of each,
    by kind)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    init: Init | None = None
    pid = -1
    failed = "could not fork a process for a bot"
    try:
        _check(libc.unshare(_SPACES | _CLONE_NEWPID), "unshare (a bot's namespaces)")
        init = _start_init(libc)
        pid = os.fork()
        if pid == 0:
            try:
                ours.close()
                for fd in keep:
                    os.close(fd)
                _bot_process(libc, theirs, filters)
            finally:
                os._exit(70)
    except OSError as exc:
        failed = str(exc)
    finally:
        if pid != 0:
            _back(libc, own)
            theirs.close()
    if pid < 0:
        if init is not None:
            _end_init(init)  # alone in its namespace, it ends at once
            _reap_init(init)
        ours.close()
        raise OSError(failed)
    assert init is not None
    return Member(init, pid, os.pidfd_open(pid), ours)


def _back(libc: Any, own: dict[int, int]) -> None:
    """Back into this server's own namespaces (its next child too, for the PID namespace);
    a server that cannot go back ends (its referee starts a new one)."""
    for kind, fd in own.items():
        if libc.setns(fd, kind) != 0:
            os._exit(70)


def _end_init(init: Init) -> None:
    """Kill an init (and with it every process of its PID namespace); it is reaped when its
    pidfd says it has ended."""
    with contextlib.suppress(OSError):
        signal.pidfd_send_signal(init.pidfd, signal.SIGKILL)


def _bot_process(libc: Any, sock: socket.socket, filters: Filters) -> None:
    """In the bot's process, PID 2 of its init's namespaces: every mount private (where any
    propagated), a /proc of its PID namespace, then ready for its bot."""
    libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)  # the server (so each init) is not; the bot is
    if _propagating:
        _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)
    _mount(libc, "proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    for name in _PROC_COVERS:
        path = f"/proc/{name}"
        if os.path.exists(path):
            _mount(libc, path, path, None, _MS_BIND | _MS_REC)
            _mount(libc, None, path, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY)
    _check(libc.sethostname(b"bot", 3), "sethostname")
    os.setsid()  # the referee stops the bot by its process group where it cannot freeze it
    runner = _load_runner()
    try:
        _prepare_bot(libc, runner, filters.early)
        failed = None
    except OSError as exc:  # said as the bot's first line, when it is given one
        failed = exc
    _become_bot(libc, sock, runner, failed, filters.late)


def _prepare_bot(libc: Any, runner: ModuleType, early: Callable[[], None] | None) -> None:
    """In the bot's process, before it is given a bot (ahead of time, off its start): for a
    normal user a user namespace of its own (the kernel counts the process limit per user
    namespace: this bot's processes alone) with a mount namespace it owns, where it will mount
    its /tmp and /bot; the capability bounding set emptied but for what the rest of its
    confinement needs; ``no_new_privs``; and the filter but for the calls it still makes when it
    is given its bot (:data:`harness.bots.syscalls.LATE`, refused then by a second filter)."""
    if os.geteuid() != 0:
        _own_users(libc)
        _check(libc.unshare(_CLONE_NEWNS), "unshare (mount namespace)")
    # what mounts its /tmp and /bot, and (CAP_SETPCAP) drops these from the bounding set then
    _keep_only(libc, [_CAP_SYS_ADMIN, *_ROOT_KEEPS] if os.geteuid() == 0
               else [_CAP_SYS_ADMIN, _CAP_SETPCAP])
    libc.prctl(runner._PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if early is not None:
        early()


def _receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 64)
    if not data:
        os._exit(0)  # the server is gone: nothing to become
    return json.loads(data), fds


def _become_bot(libc: Any, sock: socket.socket, runner: ModuleType,
                failed: OSError | None, prepared: dict[str, Callable[[], None]]) -> None:
    """In the bot's process: wait to be given a bot, then confine and run it."""
    request, fds = _receive(sock)
    sock.close()
    stdin, stdout, log, files, *groups = fds
    try:
        if failed is not None:
            os.dup2(stdout, 1)
            raise failed
        for group in groups:  # first: from here on everything is counted for the bot
            os.write(group, b"0")
            os.close(group)
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        os.dup2(log, 2)
        for fd in (stdin, stdout, log):
            os.close(fd)
        _root(libc, request, files)
        runner._set_limits(request["cfg"], 1)  # its init's: nothing run there escapes them
        # root's runner keeps what it becomes the bots' user with; nothing else is left
        _keep_only(libc, _ROOT_KEEPS if os.geteuid() == 0 else [])
    except OSError as exc:
        message = f"could not confine the bot: {exc}"
        os.write(1, json.dumps({"type": "error", "message": message}).encode() + b"\n")
        os._exit(71)
    text = request.get("late_filter") or ""
    late = (prepared.get(text) or runner._prepared_filter(libc, text)) if text else None
    # the filter's last part once it has reported what holds, before it waits: here, on the
    # server's CPUs (the referee moves it onto its own when its game starts it)
    runner.run(request["cfg"], request["args"], late)


def _root(libc: Any, request: dict[str, Any], files: int) -> None:
    """The bot's own ``/tmp`` and ``/bot``: new in-memory file systems, the bot's files written
    read-only from the referee's memory file ``files``, then ``/bot`` made read-only."""
    owner_only = os.geteuid() != 0
    _mount(libc, "tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV,
           f"size={int(request['scratch'])},mode={'0700' if owner_only else '1777'}")
    listed = request.get("files")
    if listed is None:
        os.close(files)
        return
    file_mode, dir_mode = (0o400, 0o500) if owner_only else (0o444, 0o555)
    _mount(libc, "tmpfs", "/bot", "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755")
    offset = 0
    made = {"/bot"}
    for rel, size in listed:
        path = os.path.normpath(os.path.join("/bot", rel))
        if not path.startswith("/bot/"):
            raise OSError(22, f"not a path inside the bot: {rel!r}")
        parent = os.path.dirname(path)
        todo = []
        while parent not in made:
            todo.append(parent)
            parent = os.path.dirname(parent)
        for folder in reversed(todo):
            os.mkdir(folder, 0o700)
            made.add(folder)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, file_mode)
        try:
            left = int(size)
            while left > 0:
                chunk = os.pread(files, min(left, 1 << 20), offset)
                if not chunk:
                    raise OSError(5, "the bot's files ended early")
                os.write(fd, chunk)
                offset += len(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
    os.close(files)
    for folder in made:
        os.chmod(folder, dir_mode)
    _mount(libc, None, "/bot", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def _own_users(libc: Any) -> None:
    """A normal user's bot: a user namespace of its own, its one user mapped to itself (the
    kernel counts the process limit per user namespace: this bot's processes alone)."""
    uid, gid = os.geteuid(), os.getegid()
    _check(libc.unshare(_CLONE_NEWUSER), "unshare (user namespace)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _keep_only(libc: Any, keep: list[int]) -> None:
    """Every capability given up but ``keep``, from the bounding set as well."""
    _bound(libc, keep)
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    mask = sum(1 << cap for cap in keep)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)(mask, mask, 0, 0, 0, 0)  # effective, permitted, inheritable
    _check(libc.capset(header, data), "capset")


def _bound(libc: Any, keep: list[int]) -> None:
    """The capability bounding set cut down to ``keep`` (see the runner's
    ``_drop_bounding_set``)."""
    runner = _load_runner()
    if not runner._drop_bounding_set(libc, tuple(keep)):
        err = ctypes.get_errno()
        raise OSError(err, f"dropping a capability: {os.strerror(err)}")


# ------------------------------------------------------------------------------ the server


def _set_up(settings: dict[str, Any]) -> tuple[Any, Filters]:
    """What the server's settings (its first message) ask it to make before its first bot:
    the modules to import (``preload``: the engines, and what every bot starts with), the
    built-in bots' files to compile (``compile_ahead``: path -> source), the filter each bot's
    process installs ahead of time (``early_filter``, base64 BPF) and the filters a request may
    name for a bot's start (``late_filters``), all decoded here once. The collector is off
    meanwhile: everything made here lives as long as the server (and is frozen next, see
    :func:`_ready_to_fork`); collecting while the engines build their tables took a quarter
    of the server's launch. The C library comes back, ready for the server's calls."""
    gc.disable()
    for name in settings.get("preload", []):
        try:
            __import__(name)
        except Exception:  # a bot that needs it will say why itself
            continue
    runner = _load_runner()
    for path, source in settings.get("compile_ahead", {}).items():
        with contextlib.suppress(SyntaxError, ValueError):
            runner.compile_ahead(path, source.encode())
    libc = runner._libc()
    early = str(settings.get("early_filter", ""))
    filters = Filters(runner._prepared_filter(libc, early) if early else None,
                      {text: runner._prepared_filter(libc, text)
                       for text in settings.get("late_filters", []) if text})
    return libc, filters


def serve(requests: socket.socket) -> None:
    """Answer the referee's requests on ``requests`` until it closes it (its first message is
    the server's own settings: :func:`_set_up`)."""
    libc, filters = _set_up(_receive(requests)[0])
    libc.clone.restype = ctypes.c_int
    libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    _ready_to_fork(libc)
    # its inits share its memory: none may be read or written by a bot of the same uid
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # its CPUs are its referee's to set (off the CPUs the referee plays on, where there are
    # others: Starter._keep_off_our_cpus); set here, after the imports, they undid that
    own = {kind: os.open(f"/proc/self/ns/{name}", os.O_RDONLY | os.O_CLOEXEC)
           for kind, name in _NAMES.items()}
    keep = [requests.fileno(), *own.values()]
    pool: list[Member] = []
    owners: dict[int, Member] = {}  # pidfd (a bot's process or an init) -> its member
    waiting = select.poll()
    waiting.register(requests.fileno(), select.POLLIN)
    # a request is read here and passed on as it came, never parsed: every member is a copy of
    # this process, and none may find in it anything of another bot (its file's name, options)
    buffer = bytearray(MAX_MESSAGE)

    def make() -> str:
        """A new member in the pool; why none could be made ("" if one was)."""
        try:
            member = _make_member(libc, own, keep, filters)
        except OSError as exc:
            return str(exc)
        pool.append(member)
        for fd in (member.pidfd, member.init.pidfd):
            owners[fd] = member
            waiting.register(fd, select.POLLIN)
        return ""

    trouble = ""
    collapsed = False  # its heap is asked onto huge pages once, the first time nothing waits
    quiet_from = 0.0  # when to make members again, after a request: a game asks for its
    while True:       # seats one after the other, and each waits for the one before
        # requests first: a member is made only while none waits (~1 ms of the server's)
        short = len(pool) < POOL and not trouble
        wait = max(0, int((quiet_from - time.monotonic()) * 1000) + 1) if short else None
        events = waiting.poll(0 if wait is None and not collapsed else wait)
        if not events and short:
            trouble = make()
            continue
        if not events:
            _collapse(libc)
            collapsed = True
            continue
        for fd, _ in events:
            if fd == requests.fileno():
                try:
                    size, fds = _read_request(requests, buffer)
                except OSError:
                    os._exit(0)
                if not size:
                    os._exit(0)  # the referee is gone: so is every bot (this is PID 1)
                data = memoryview(buffer)[:size]
                if not pool:  # none ready (one is made now), or none can be made: say why
                    trouble = make()
                _give(requests, data, fds, pool, trouble)
                data.release()
                buffer[:size] = bytes(size)  # forgotten before the next member is made
                trouble = ""  # try again to make members
                quiet_from = time.monotonic() + QUIET
                continue
            member = owners.pop(fd, None)
            if member is None:
                continue
            waiting.unregister(fd)
            if fd == member.init.pidfd:
                _reap_init(member.init)
                continue
            if member in pool:  # it died before it was used
                pool.remove(member)
                trouble = "a process made for a bot ended before it was used"
            _reap(member)


def _ready_to_fork(libc: Any) -> None:
    """Once every import is done, what makes each bot's process cost less (about half a
    millisecond of CPU each, over its making, its run and its end; ``make bench``):

    * the runner's own imports are made here (``resource``, and ``_sitebuiltins`` for a Python
      started without ``site``: see the imports above), and the C library's functions and the
      arrays its calls take are found here, not again in every bot's process;
    * every object is moved out of the collector's reach (:func:`gc.freeze`): a bot's collection
      never writes to the server's objects, so never copies their pages;
    * the server's heap goes onto huge pages where the kernel can make them (``MADV_COLLAPSE``,
      Linux 6.1+; best effort): a fork copies one entry per 2 MB instead of 512, and a bot's
      process copies only the 4 KB pages it writes to, as before. That takes the kernel 4-18
      ms, so it is done later, the first time no request waits and the pool is full
      (:func:`serve`), not before the first bot;
    * as root, the capability bounding set is cut down to what a bot's process keeps to confine
      itself, once here rather than cap by cap in every bot's process (a normal user's bot
      process starts a user namespace, whose bounding set is whole again: it cuts its own);
    * where no mount of this namespace propagates (bubblewrap's are private), a bot's
      namespace, a copy of it, propagates nothing either: its mounts are not made private again.
    """
    for name in _LIBC_CALLS:  # found once, here, not again in each bot's process
        getattr(libc, name)
    for length in (2, 6):  # the capability calls' arrays (ctypes keeps each array type made)
        _ = ctypes.c_uint32 * length
    gc.freeze()
    gc.enable()  # (off for the imports: _set_up) as every bot's Python starts
    if os.geteuid() == 0:
        _bound(libc, [_CAP_SYS_ADMIN, *_ROOT_KEEPS])
    global _propagating
    try:
        with open("/proc/self/mountinfo") as f:  # the optional fields name a peer group
            _propagating = any(" shared:" in line.split(" - ")[0]
                               or " master:" in line.split(" - ")[0] for line in f)
    except OSError:
        _propagating = True


def _collapse(libc: Any) -> None:
    """Ask the kernel to back this process's private anonymous memory with huge pages: each
    2 MB-aligned range of it (best effort: a kernel without ``MADV_COLLAPSE`` says no)."""
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    with open("/proc/self/maps") as f:
        lines = f.read().splitlines()
    for line in lines:
        fields = line.split()
        name = fields[5] if len(fields) > 5 else ""
        if name not in ("", "[heap]") or fields[1] != "rw-p":
            continue
        low, high = (int(x, 16) for x in fields[0].split("-"))
        start = (low + _HUGE_PAGE - 1) & ~(_HUGE_PAGE - 1)
        end = high & ~(_HUGE_PAGE - 1)
        if end > start:
            libc.madvise(start, end - start, _MADV_COLLAPSE)


def _read_request(requests: socket.socket, buffer: bytearray) -> tuple[int, list[int]]:
    """Read one request into ``buffer``: its size (0: the referee is gone) and descriptors."""
    fds = array.array("i")
    size, ancillary, _, _ = requests.recvmsg_into([buffer], socket.CMSG_SPACE(64 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    return size, list(fds)


def _give(requests: socket.socket, data: memoryview, fds: list[int], pool: list[Member],
          trouble: str) -> None:
    """Give the referee's request (the status pipe first, then the bot's descriptors) to a
    member of the pool; answer with pidfds of its init and of its bot's process."""
    if not fds:
        requests.send(json.dumps({"error": "a request came without its descriptors"}).encode())
        return
    status, *passed = fds
    try:
        # one killed while it waited is reaped when its pidfd says so
        member = next((m for m in pool if not _ended(m)), None)
        if member is None:
            raise OSError(f"could not make a process for the bot: {trouble or 'none ready'}")
        # the answer first: the bot's process, once given its request, may take this CPU for
        # its confinement before this process runs again
        socket.send_fds(requests, [json.dumps({"pid": member.pid}).encode()],
                        [member.init.pidfd, member.pidfd])
        pool.remove(member)
        member.status = status
        assert member.sock is not None
        with contextlib.suppress(OSError):  # it ended just now: the referee sees it ended
            member.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                          array.array("i", passed))])
        member.sock.close()
        member.sock = None
    except OSError as exc:
        os.close(status)
        requests.send(json.dumps({"error": str(exc)}).encode())
    finally:
        for fd in passed:
            os.close(fd)


def _ended(member: Member) -> bool:
    """Whether a member of the pool has ended (its bot's process or its init)."""
    return bool(select.select([member.pidfd, member.init.pidfd], [], [], 0)[0])


def _reap(member: Member) -> None:
    """Reap a member's ended bot process, write its exit status for the referee (as bubblewrap
    reports it: ``128 + N`` for signal N), and end its init, which ends whatever the bot left
    in its PID namespace (the init is reaped when its pidfd says so)."""
    try:
        _, status = os.waitpid(member.pid, 0)
        code = os.waitstatus_to_exitcode(status)
    except ChildProcessError:
        code = -int(signal.SIGKILL)
    os.close(member.pidfd)
    _end_init(member.init)
    if member.sock is not None:
        member.sock.close()
    if member.status >= 0:
        with contextlib.suppress(OSError):  # the referee is done with it already
            os.write(member.status, str(128 - code if code < 0 else code).encode())
        os.close(member.status)


def _reap_init(init: Init) -> None:
    """Reap an ended init (it ends only once every other process of its namespace is gone)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(init.pid, 0)
    os.close(init.pidfd)
    init.stack = None


def main(argv: list[str]) -> None:
    """``forkserver.pyc FD``: serve on the inherited socket FD."""
    serve(socket.socket(fileno=int(argv[0])))


if __name__ == "__main__":
    main(sys.argv[1:])
