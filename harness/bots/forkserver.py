"""The jailed start-up server: one per referee process, it forks every Python bot's process.

A bot's start used to be a whole new jail: bubblewrap building the namespaces and the root, a
new interpreter, the engines imported again (~30 ms, and 140 ms more for a bot that imports an
engine). This program runs in a jail of bubblewrap's built like a bot's (the same read-only
view, no network, the results folders hidden; :mod:`harness.bots.starter` starts it), imports
the interpreter's start-up modules and the game engines once, and never runs a bot's code. For
each bot it forks a process that has never been used, in namespaces of its own, and only then
gives it the bot:

* **A member** of its pool is made ahead of time (:func:`_make_member`): a process that is the
  first of a new PID namespace (this server's ``unshare(CLONE_NEWPID)`` before a fork, undone
  after), which unshares new mount, network, IPC, UTS and cgroup namespaces, makes every mount
  private, mounts a ``/proc`` of its PID namespace (with bubblewrap's read-only covers), and
  forks the bot's process off itself: it stays PID 1, the namespace's idle init, out of the
  bot's reach (non-dumpable, no capability, every descriptor closed; as in
  :func:`harness.bots.runner._split_init`), and exits with the bot's status.
* **The bot's process** waits until the referee asks for a bot (:func:`_become_bot`); then it
  joins the bot's control groups (through descriptors the referee opened), mounts its own
  size-limited ``/tmp`` and writes the bot's files into a new in-memory ``/bot``, read-only;
  takes the protocol's pipes as its standard input and output and the log as its standard
  error; for a normal user enters a user namespace of its own (so the process limit counts its
  processes alone); gives up every capability but those the runner needs to become the bots'
  user as root; sets ``no_new_privs``; installs tourney's system-call filter; and runs the
  runner (:func:`harness.bots.runner.run`), which sets the limits and reports what holds before
  any bot code.

The server holds a pidfd of each member, sends the referee a copy with its reply (so the
referee kills the member, and with it every process of its PID namespace, itself), reaps it and
writes its exit status on a pipe the referee gave. It is its own jail's PID 1: when it dies
(its input closed: the referee is gone), every process it started dies with it.

This file, like the runner, imports nothing of tourney's: it runs in the jail from
``/tourney``, with the runner beside it.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
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


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


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


class Member:
    """A member of the pool, as the server knows it: its pid (in the server's PID namespace),
    a pidfd, the socket its bot process waits on, and once given out, the referee's status pipe."""

    def __init__(self, pid: int, pidfd: int, sock: socket.socket) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.sock: socket.socket | None = sock
        self.status = -1


def _make_member(libc: Any, own_pid_ns: int, keep: list[int], early: str) -> Member:
    """Fork a new member (see the module docstring): the first process of a new PID namespace."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    _check(libc.unshare(_CLONE_NEWPID), "unshare (PID namespace)")
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if pid != 0:  # the next fork's child is again of the server's own PID namespace
        _check(libc.setns(own_pid_ns, _CLONE_NEWPID), "setns (back to the server's)")
    if pid < 0:
        raise OSError("could not fork a process for a bot")
    if pid == 0:
        try:
            ours.close()
            for fd in keep:
                os.close(fd)
            _member(libc, theirs, early)
        finally:
            os._exit(70)
    theirs.close()
    return Member(pid, os.pidfd_open(pid), ours)


def _member(libc: Any, sock: socket.socket, early: str) -> None:
    """In the member, PID 1 of its namespace: the namespaces, its /proc, then the fork."""
    _check(libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS
                        | _CLONE_NEWCGROUP), "unshare")
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
    runner._split_init(libc)  # this process stays PID 1; the child goes on
    try:
        _prepare_bot(libc, runner, early)
        failed = None
    except OSError as exc:  # said as the bot's first line, when it is given one
        failed = exc
    _become_bot(libc, sock, runner, failed)


def _prepare_bot(libc: Any, runner: ModuleType, early: str) -> None:
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
    if early:
        runner._install_filter(libc, early)


def _receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 64)
    if not data:
        os._exit(0)  # the server is gone: nothing to become
    return json.loads(data), fds


def _become_bot(libc: Any, sock: socket.socket, runner: ModuleType,
                failed: OSError | None) -> None:
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
    late = runner._prepared_filter(libc, request["late_filter"]) \
        if request.get("late_filter") else None
    runner.run(request["cfg"], request["args"], late, lambda: _onto(request.get("cpus")))


def _onto(cpus: list[int] | None) -> None:
    """Once confined, before it waits for its game: onto the referee's CPUs, as a bot the
    referee started itself would be (its confinement ran on the server's, off the game being
    played; woken for its game it runs where the referee waits for it). The filter's last part,
    installed when its game starts it, then refuses ``sched_setaffinity``."""
    if cpus:
        os.sched_setaffinity(0, cpus)


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
    """Every capability given up but ``keep``, from the bounding set as well (each drop costs
    the kernel a new set of credentials: only those still there are dropped)."""
    with open("/proc/self/status") as f:
        bounding = next(int(line.split()[1], 16) for line in f if line.startswith("CapBnd:"))
    for cap in range(64):
        if bounding >> cap & 1 and cap not in keep:
            _check(libc.prctl(24, cap, 0, 0, 0), "dropping a capability")  # PR_CAPBSET_DROP
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
    mask = sum(1 << cap for cap in keep)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)(mask, mask, 0, 0, 0, 0)  # effective, permitted, inheritable
    _check(libc.capset(header, data), "capset")


# ------------------------------------------------------------------------------ the server


def serve(requests: socket.socket) -> None:
    """Answer the referee's requests on ``requests`` until it closes it. Its first message is
    the server's own settings: the modules to import first (``preload``) and the filter each
    bot's process installs ahead of time (``early_filter``, base64 BPF)."""
    settings, _ = _receive(requests)
    early = str(settings.get("early_filter", ""))
    for name in settings.get("preload", []):  # the engines, and what every bot starts with
        try:
            __import__(name)
        except Exception:  # a bot that needs it will say why itself
            continue
    _load_runner()
    libc = _libc()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # on any CPU, not only the one of the game its referee was playing when it started it: it
    # makes members ahead of time beside the game (each bot then gets its referee's CPUs)
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    keep = [requests.fileno(), own_pid_ns]
    pool: list[Member] = []
    given: dict[int, Member] = {}  # pidfd -> member given out, until reaped
    waiting = select.poll()
    waiting.register(requests.fileno(), select.POLLIN)
    # a request is read here and passed on as it came, never parsed: every member is a copy of
    # this process, and none may find in it anything of another bot (its file's name, options)
    buffer = bytearray(MAX_MESSAGE)

    trouble = ""
    quiet_from = 0.0  # when to make members again, after a request: a game asks for its
    while True:       # seats one after the other, and each waits for the one before
        # requests first: a member is made only while none waits (~1 ms of the server's)
        short = len(pool) < POOL and not trouble
        wait = max(0, int((quiet_from - time.monotonic()) * 1000) + 1) if short else None
        events = waiting.poll(wait)
        if not events:
            try:
                member = _make_member(libc, own_pid_ns, keep, early)
            except OSError as exc:
                trouble = str(exc)
                continue
            pool.append(member)
            waiting.register(member.pidfd, select.POLLIN)
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
                    try:
                        pool.append(_make_member(libc, own_pid_ns, keep, early))
                        waiting.register(pool[-1].pidfd, select.POLLIN)
                    except OSError as exc:
                        trouble = str(exc)
                _give(requests, data, fds, pool, given, trouble)
                data.release()
                buffer[:size] = bytes(size)  # forgotten before the next member is made
                trouble = ""  # try again to make members
                quiet_from = time.monotonic() + QUIET
                continue
            ended: Member | None = given.pop(fd, None)
            if ended is None:  # a member of the pool died before it was used
                found = [m for m in pool if m.pidfd == fd]
                if not found:
                    continue
                ended = found[0]
                pool.remove(ended)
                trouble = "a process made for a bot ended before it was used"
            waiting.unregister(fd)
            _reap(ended)


def _read_request(requests: socket.socket, buffer: bytearray) -> tuple[int, list[int]]:
    """Read one request into ``buffer``: its size (0: the referee is gone) and descriptors."""
    fds = array.array("i")
    size, ancillary, _, _ = requests.recvmsg_into([buffer], socket.CMSG_SPACE(64 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    return size, list(fds)


def _give(requests: socket.socket, data: memoryview, fds: list[int], pool: list[Member],
          given: dict[int, Member], trouble: str) -> None:
    """Give the referee's request (the status pipe first, then the bot's descriptors) to a
    member of the pool; answer with its pid and a pidfd of it."""
    if not fds:
        requests.send(json.dumps({"error": "a request came without its descriptors"}).encode())
        return
    status, *passed = fds
    try:
        # one killed while it waited is reaped when its pidfd says so
        member = next((m for m in pool if not _ended(m)), None)
        if member is None:
            raise OSError(f"could not make a process for the bot: {trouble or 'none ready'}")
        # the answer first: the member, once given its request, may take this CPU for its
        # confinement before this process runs again
        socket.send_fds(requests, [json.dumps({"pid": member.pid}).encode()], [member.pidfd])
        pool.remove(member)
        member.status = status
        given[member.pidfd] = member
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
    """Whether a member of the pool has ended (its pidfd reads ready)."""
    return bool(select.select([member.pidfd], [], [], 0)[0])


def _reap(member: Member) -> None:
    """Reap an ended member and write its exit status (negative: the signal) for the referee."""
    try:
        _, status = os.waitpid(member.pid, 0)
        code = os.waitstatus_to_exitcode(status)
    except ChildProcessError:
        code = -int(signal.SIGKILL)
    os.close(member.pidfd)
    if member.sock is not None:
        member.sock.close()
    if member.status >= 0:
        with contextlib.suppress(OSError):  # the referee is done with it already
            os.write(member.status, str(code).encode())
        os.close(member.status)


def main(argv: list[str]) -> None:
    """``forkserver.pyc FD``: serve on the inherited socket FD."""
    serve(socket.socket(fileno=int(argv[0])))


if __name__ == "__main__":
    main(sys.argv[1:])
