"""One control group per sandboxed bot: memory, processes and CPU counted for its whole tree.

A bot's runner joins its group before any bot code runs, so every process the bot starts (even
in a session of its own) is counted, stopped and killed with it. Two kernels' interfaces sit
behind :class:`BotGroup`:

* **cgroup v2** (``memory.max``, ``pids.max``, ``cpu.stat``, ``memory.events``): groups live under
  ``tourney/`` at the root of the cgroup2 mount, which needs root and a root whose controllers
  may be delegated (a normal systemd host);
* **cgroup v1** (the ``memory``, ``pids`` and ``cpuacct`` hierarchies): groups live under this
  process's own group in each hierarchy.

Where neither works (no rights, a locked-down container), :func:`mechanism` says ``rlimits``:
the runner's per-process rlimits are all there is, and a bot is stopped between turns by its
process group (:mod:`harness.bots.sandbox`; the filter keeps every process of a bot in it).

Stopping a bot between turns freezes its group wherever a freezer is at hand (:class:`Backend`):
v2's ``cgroup.freeze`` (about 5 µs), or v1's ``freezer`` controller (about 7 µs, while an empty
group of this process's is kept frozen; its frozen processes die only once thawed, so a kill
thaws, and so does the next tourney process for the groups of a referee that was killed); beside
v1 groups without a v1 freezer, a group in a cgroup2 hierarchy (systemd's hybrid mode).
Nothing a bot does from inside undoes a freeze: a SIGCONT, from a helper or a kernel timer, does
not thaw it. Where there is no freezer, every process of the group gets SIGSTOP, again and again
until one pass finds every thread stopped (:meth:`BotGroup.stop_all`), and SIGCONT resumes it;
the system-call filter then refuses the ways a bot could have the kernel send it a SIGCONT
(:mod:`harness.bots.syscalls`).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import signal
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

PREFIX = "tourney-"
_V1_CONTROLLERS = ("memory", "pids", "cpuacct")
_counter = itertools.count()
# a forked worker must not reuse (or remove) the groups of the process it was forked from
def _forget_groups() -> None:
    global _made
    _free.clear()
    _draining.clear()
    _limits_set.clear()
    _close_files()
    _made = 0


os.register_at_fork(after_in_child=_forget_groups)


@dataclass(frozen=True)
class Backend:
    """Where bot groups are made: ``kind`` is "cgroup2", "cgroup1" or "rlimits"; ``freezer``
    is how a bot's group is frozen between its turns: "cgroup2" (``cgroup.freeze``: of the v2
    group itself, or, beside v1 groups, of a group in a cgroup2 hierarchy, ``bases["freeze"]``),
    "cgroup1" (the v1 ``freezer`` controller, ``bases["freeze"]``) or "" (none: signals)."""

    kind: str
    bases: dict[str, Path]  # controller (v1) or "unified" (v2) -> directory holding bot groups
    freezer: str = ""

    @property
    def available(self) -> bool:
        return self.kind != "rlimits"


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, options) of every cgroup file system."""
    found = []
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        parts = line.split()
        if len(parts) >= 4 and parts[2] in ("cgroup", "cgroup2"):
            found.append((parts[1], parts[2], set(parts[3].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """This process's group per v1 controller, and "" -> its v2 group."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


def _try_v2(mounts: list[tuple[str, str, set[str]]]) -> Backend | None:
    if os.geteuid() != 0:
        return None
    for point, fstype, _ in mounts:
        if fstype != "cgroup2":
            continue
        root = Path(point)
        try:
            offered = set((root / "cgroup.controllers").read_text().split())
        except OSError:
            continue
        if not {"memory", "pids"} <= offered:
            continue
        wanted = " ".join(f"+{c}" for c in ("memory", "pids", "cpu") if c in offered)
        base = root / "tourney"
        with contextlib.suppress(FileExistsError, OSError):
            base.mkdir()
        if not base.is_dir():
            continue
        _write(root / "cgroup.subtree_control", wanted)
        _write(base / "cgroup.subtree_control", wanted)
        try:
            enabled = set((base / "cgroup.subtree_control").read_text().split())
        except OSError:
            continue
        if {"memory", "pids"} <= enabled:
            freezer = "cgroup2" if _freezer_allowed("cgroup2") and \
                (base / "cgroup.freeze").exists() else ""
            return Backend("cgroup2", {"unified": base}, freezer)
    return None


def _freezer_allowed(kind: str) -> bool:
    """Whether the freezer ``kind`` may be used: ``$TOURNEY_FREEZER`` (``cgroup2``, ``cgroup1``
    or ``none``) restricts the choice, to try the others on a machine that has the best."""
    wanted = os.environ.get("TOURNEY_FREEZER", "")
    return not wanted or wanted == kind


def _v1_freezer(mounts: list[tuple[str, str, set[str]]],
                own: dict[str, str]) -> tuple[str, Path] | None:
    """Beside v1 groups, where a bot's group can be frozen: the v1 ``freezer`` controller
    (whose frozen processes die only once thawed), else a cgroup2 hierarchy (systemd's hybrid
    mode: its ``cgroup.freeze`` lets SIGKILL through, but a process joins a v2 group only
    through ``cgroup.procs``, whose lock waits for an RCU grace period: about 12 ms a start)."""
    v1 = next((p for p, t, opts in mounts if t == "cgroup" and "freezer" in opts), None)
    if v1 is not None and "freezer" in own and _freezer_allowed("cgroup1"):
        base = Path(v1) / own["freezer"].lstrip("/")
        if os.access(base, os.W_OK):
            return "cgroup1", base
    for point, fstype, _ in mounts:
        if fstype == "cgroup2" and "" in own and _freezer_allowed("cgroup2"):
            base = Path(point) / own[""].lstrip("/")
            if os.access(base, os.W_OK):
                return "cgroup2", base
    return None


def _try_v1(mounts: list[tuple[str, str, set[str]]]) -> Backend | None:
    own = _own_paths()
    bases: dict[str, Path] = {}
    for controller in _V1_CONTROLLERS:
        point = next((p for p, t, opts in mounts if t == "cgroup" and controller in opts), None)
        if point is None or controller not in own:
            return None
        base = Path(point) / own[controller].lstrip("/")
        if not os.access(base, os.W_OK):
            return None
        bases[controller] = base
    found = _v1_freezer(mounts, own)
    if found is None:
        return Backend("cgroup1", bases)
    # first: clearing stale groups thaws them before the others are removed
    return Backend("cgroup1", {"freeze": found[1], **bases}, found[0])


@cache
def backend() -> Backend:
    """The mechanism in force for this process (probed once), after clearing stale groups."""
    if os.environ.get("TOURNEY_NO_CGROUPS"):  # for tests of the fallback
        return Backend("rlimits", {})
    mounts = _mounts()
    found = _try_v2(mounts) or _try_v1(mounts) or Backend("rlimits", {})
    for base in found.bases.values():
        _clear_stale(base)
    if found.freezer == "cgroup1":
        _keep_frozen(found.bases["freeze"])
    return found


_keeper: list[Path] = []  # this process's empty, always frozen v1 group (:func:`_keep_frozen`)


def _keep_frozen(base: Path) -> None:
    """Make an empty v1 freezer group and keep it frozen for this process's life: the kernel
    switches its freezer on (a code patch of ~80 µs) when a first group freezes and off when
    the last thaws, so with one always frozen a bot's freeze and thaw cost ~7 µs each instead
    of ~90. Removed at exit (:func:`remove_groups`), or by the next process if this one is
    killed (:func:`_clear_stale`)."""
    group = base / f"{PREFIX}{os.getpid()}-frozen"
    with contextlib.suppress(OSError):
        group.mkdir()
        if _write(group / "freezer.state", "FROZEN"):
            _keeper.append(group)


def mechanism() -> str:
    """"cgroup2", "cgroup1" or "rlimits": what limits a bot's whole process tree here."""
    return backend().kind


STOP_WAIT = 1.0  # seconds of passes to stop a bot's tree before it is judged unstoppable
_STOP_PAUSE = 0.00005
# a thread's states that run no code of its own: stopped (T, t), gone (Z, X), or in the kernel
# uninterruptibly (D: it takes the pending stop on its way out, and no one may wake it)
STOPPED = (b"T", b"t", b"Z", b"X", b"D")


def let_run(attempt: int) -> None:
    """Let the processes just sent SIGSTOP run before looking again: a SIGSTOP takes effect when
    its process next runs, often on the referee's own CPU (bots share it), so the referee yields
    it, and after a few tries sleeps a little longer each time."""
    if attempt <= 3:
        os.sched_yield()
    else:
        time.sleep(_STOP_PAUSE * min(attempt, 20))


def thread_state(stat: bytes) -> bytes:
    """The state letter of a ``/proc/.../stat`` line (b"" if unreadable)."""
    try:
        return stat.rsplit(b")", 1)[1].split(None, 1)[0]
    except IndexError:
        return b""


def _is_stopped(pid: int) -> bool:
    """Whether every thread of ``pid`` is stopped (or gone: it will not run again either)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                state = thread_state(f.read())
        except OSError:
            continue
        if state and state not in STOPPED:
            return False
    return True


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clear_stale(base: Path) -> None:
    """Remove the groups of referees that died (SIGKILL leaves their groups behind)."""
    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.startswith(PREFIX):
            continue
        owner = name.removeprefix(PREFIX).split("-")[0]
        if owner.isdigit() and not pid_alive(int(owner)):
            _kill_members(entry)
            _thaw(entry)  # a v1 frozen process dies only once thawed: give it the time
            _rmdir(entry, 0.5 if (entry / "freezer.state").exists() else 0.05)


def _thaw(group: Path) -> None:
    """Thaw ``group`` whichever freezer it has (its processes run, or die if killed)."""
    _write(group / "cgroup.freeze", "0")
    _write(group / "freezer.state", "THAWED")


def _members(group: Path) -> list[int]:
    try:
        return [int(p) for p in (group / "cgroup.procs").read_bytes().split()]
    except (OSError, ValueError):
        return []


def _kill_members(group: Path) -> None:
    for pid in _members(group):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _rmdir(path: Path, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while True:
        try:
            path.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.002)


# Groups are reused within a process: the first process to join a fresh memory group costs
# ~10 ms of kernel bookkeeping, a later one ~0.1 ms. A closed group drains (its killed members
# exit) and, once empty and holding no more than LEFTOVER_ALLOWED of its last bot's memory
# (:func:`_leftover_bytes`), is handed to the next bot with its counters taken as the new zero;
# one that holds more is retired (removed), never reused.
_free: list[dict[str, Path]] = []
_draining: list[dict[str, Path]] = []
# the limits each group of this process was last given (by its procs group's path): a group
# reused for a bot with the same limits is not written to again (four writes, ~55 µs)
_limits_set: dict[str, tuple[int, int]] = {}
# the descriptors of each group's control files (by its procs group's path), opened at the
# first bot's use and kept while the group is, not opened again for each bot (~10 µs an open)
_open: dict[str, dict[tuple[str, str], int]] = {}


def _close_files(key: str | None = None) -> None:
    """Close the kept descriptors of one group (``key``: its procs group's path), or of all."""
    for files in [_open.pop(key, {})] if key is not None else list(_open.values()):
        for fd in files.values():
            with contextlib.suppress(OSError):
                os.close(fd)
    if key is None:
        _open.clear()


def _control_fd(dirs: dict[str, Path], controller: str, name: str,
                flags: int = os.O_RDONLY) -> int:
    """A kept descriptor of a control file of the group ``dirs`` (opened the first time)."""
    files = _open.setdefault(str(_procs_of(dirs)), {})
    fd = files.get((controller, name))
    if fd is None:
        fd = os.open(dirs[controller] / name, flags | os.O_CLOEXEC)
        files[controller, name] = fd
    return fd


def _read_control(dirs: dict[str, Path], controller: str, name: str) -> bytes:
    return os.pread(_control_fd(dirs, controller, name), 65536, 0)


# what an empty group may still hold and be reused: the kernel's own memory of a bot's start
# (page tables, dentries and inodes of what it opened): 170-200 KB measured after a Python
# process that imported numpy; a bot that looked up a million missing paths left 300 MB of
# dentries, which the next bot would find counted against its limit
LEFTOVER_ALLOWED: Final = 4 << 20


def _leftover_bytes(dirs: dict[str, Path]) -> int:
    """Memory still charged to an empty group that counts against its next bot's limit: what the
    limit counts (v1 ``memory.usage_in_bytes``, v2 ``memory.current``: anonymous and shared
    memory, and the kernel's own, dentries and inodes among them) and swap, less the page cache,
    which the kernel reclaims before it would refuse the next bot. Where usage and swap together
    are within :data:`LEFTOVER_ALLOWED` that sum is returned (nothing need be taken off: the
    usual case, without reading ``memory.stat``)."""
    controller = "memory" if "memory" in dirs else "unified"
    if controller not in dirs:
        return 0
    v1 = controller == "memory"
    try:
        usage = int(_read_control(dirs, controller,
                                  "memory.usage_in_bytes" if v1 else "memory.current"))
    except (OSError, ValueError):
        return 0
    swap = 0  # (no file: the kernel keeps no account of swap, and memory.stat shows none)
    with contextlib.suppress(OSError, ValueError):
        swap = int(_read_control(dirs, controller,
                                 "memory.memsw.usage_in_bytes" if v1 else "memory.swap.current"))
        swap = swap - usage if v1 else swap
    if usage + swap <= LEFTOVER_ALLOWED:  # less than allowed before the page cache is taken off
        return max(0, usage + swap)
    try:
        lines = _read_control(dirs, controller, "memory.stat").decode().splitlines()
    except (OSError, ValueError):
        return 0
    stat = dict(line.split(" ", 1) for line in lines if " " in line)
    # the page cache of files: both versions count shared memory (tmpfs, System V) in it
    files = int(stat.get("cache" if v1 else "file", "0")) - int(stat.get("shmem", "0"))
    return max(0, usage - files) + int(stat.get("swap", "0"))


def _procs_of(dirs: dict[str, Path]) -> Path:
    """The group of a bot's groups whose ``cgroup.procs`` says whether any of its processes is
    left: the first its runner joins (:attr:`BotGroup.join_files` keeps their order), so a
    process killed while it joined them is listed there; a process leaves them all when it is
    reaped, and a bot cannot move itself. Reading one list costs the kernel a list of them
    (v1 builds and sorts it afresh, and frees it a second later), so one is read, not each."""
    return next(iter(dirs.values()))


def _drained() -> None:
    """Move the groups whose members have all exited from draining to free, or retire them
    if their last bot left memory behind."""
    for dirs in list(_draining):
        if _members(_procs_of(dirs)):
            continue
        _draining.remove(dirs)
        if _leftover_bytes(dirs) > LEFTOVER_ALLOWED:
            global _made
            _made -= 1
            _limits_set.pop(str(_procs_of(dirs)), None)
            _close_files(str(_procs_of(dirs)))
            for path in dirs.values():
                _rmdir(path, 0.0)
        else:
            _free.append(dirs)


# groups a process keeps for reuse before it waits for one to drain rather than make another:
# a game's bots close as the next game's start (and a league worker holds the next game's bots
# already: :mod:`harness.bots.spares`), and a killed bot's processes take a moment to
# exit (a bot from the start-up server is not waited for at its close)
SPARE_GROUPS: Final = 12
_made = 0  # groups this process made and has not retired


def _acquire(bases: dict[str, Path]) -> dict[str, Path]:
    global _made
    _drained()
    if not _free and _draining and _made >= SPARE_GROUPS:  # its processes exit within moments
        deadline = time.monotonic() + 0.005
        while time.monotonic() < deadline and not _free and _draining:
            time.sleep(0.0005)
            _drained()
    if _free:
        return _free.pop()
    for base in bases.values():  # a worker killed by a league's watchdog left its groups
        _clear_stale(base)
    name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
    made: dict[str, Path] = {}
    try:
        for controller, base in bases.items():
            (base / name).mkdir()
            made[controller] = base / name
    except OSError:
        for path in made.values():
            _rmdir(path, 0.0)
        raise
    _made += 1
    return made


class BotGroup:
    """The control group(s) of one bot. Create it before launching the bot, pass
    :attr:`join_files` to the runner (it writes ``0`` into each), :meth:`close` after the game.
    """

    def __init__(self, memory_bytes: int, max_processes: int) -> None:
        self.backend = backend()
        self.kind = self.backend.kind
        self.dirs: dict[str, Path] = {}
        self.memory_bytes = memory_bytes
        self._oom_base = 0
        self._cpu_base = 0.0
        self._procs_file: str | None = None
        self._files: dict[tuple[str, str], int] = {}  # the group's kept descriptors (_open)
        self.freezer = ""  # how this group freezes (Backend.freezer), "" where it cannot
        self._freeze_fd = -1
        self._killed = False  # every process sent SIGKILL by the end of its PID namespace
        if not self.backend.available:
            return
        try:
            self.dirs = _acquire(self.backend.bases)
            key = str(_procs_of(self.dirs))
            self._files = _open.setdefault(key, {})
            if _limits_set.get(key) != (memory_bytes, max_processes):  # not as its last bot's
                _limits_set.pop(key, None)
                self._limit(memory_bytes, max_processes)
                _limits_set[key] = (memory_bytes, max_processes)
        except OSError:
            self.close()
            self.kind = "rlimits"
            self.dirs = {}
            return
        self._oom_base = self.oom_kills()
        self._cpu_base = self.cpu_seconds()
        frozen = "freeze" if "freeze" in self.dirs else "unified"
        if self.backend.freezer and frozen in self.dirs:
            control = "cgroup.freeze" if self.backend.freezer == "cgroup2" else "freezer.state"
            with contextlib.suppress(OSError):
                self._freeze_fd = _control_fd(self.dirs, frozen, control, os.O_WRONLY)
                self.freezer = self.backend.freezer

    def _limit(self, memory: int, processes: int) -> None:
        if self.kind == "cgroup2":
            group = self.dirs["unified"]
            (group / "memory.max").write_text(str(memory))
            _write(group / "memory.swap.max", "0")
            _write(group / "memory.oom.group", "1")
            (group / "pids.max").write_text(str(processes))
        else:
            memcg = self.dirs["memory"]
            # memory + swap may never be below memory alone: raise it first, lower it after
            _write(memcg / "memory.memsw.limit_in_bytes", str(memory))
            (memcg / "memory.limit_in_bytes").write_text(str(memory))
            _write(memcg / "memory.memsw.limit_in_bytes", str(memory))
            (self.dirs["pids"] / "pids.max").write_text(str(processes))

    @property
    def active(self) -> bool:
        return bool(self.dirs)

    @property
    def join_files(self) -> list[str]:
        """The files the bot's runner writes ``0`` (itself) to, while it has a single thread.

        In v1 that is ``tasks``: moving only the calling thread spares the kernel a system-wide
        lock whose release waits for an RCU grace period (~10 ms a launch); for a
        single-threaded process it moves the whole process. v2 has no such file for a domain
        group: ``cgroup.procs``."""
        v2 = {"unified", "freeze"} if self.backend.freezer == "cgroup2" else {"unified"}
        return [str(d / ("cgroup.procs" if key in v2 else "tasks"))
                for key, d in self.dirs.items()]

    def _procs_dir(self) -> Path | None:
        return _procs_of(self.dirs) if self.dirs else None

    def pids(self) -> list[int]:
        """The processes of the group now. The file is opened afresh every time: cgroup v1
        keeps the list it made for an open file (for a second), so a kept descriptor would
        miss processes started since."""
        if self._procs_file is None:
            group = self._procs_dir()
            if group is None:
                return []
            self._procs_file = str(group / "cgroup.procs")
        try:
            fd = os.open(self._procs_file, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return []
        try:
            chunks = []
            while data := os.read(fd, 65536):
                chunks.append(data)
        finally:
            os.close(fd)
        return [int(p) for p in b"".join(chunks).split()]

    def freeze(self) -> None:
        """Freeze the whole group (:attr:`freezer` must be set): none of its processes runs
        again until :meth:`thaw`, whatever it sends itself (a SIGCONT does not thaw), and a
        process it starts meanwhile is born frozen. The kernel takes each process off its CPU
        before it runs another instruction of its own, so there is nothing to wait for."""
        os.pwrite(self._freeze_fd, b"1" if self.freezer == "cgroup2" else b"FROZEN", 0)

    def thaw(self) -> None:
        if self._freeze_fd >= 0:
            with contextlib.suppress(OSError):
                os.pwrite(self._freeze_fd, b"0" if self.freezer == "cgroup2" else b"THAWED", 0)

    def frozen(self) -> bool:
        """Whether the kernel reports every process of the group frozen."""
        group = self.dirs.get("freeze") or self.dirs.get("unified")
        if not self.freezer or group is None:
            return False
        try:
            if self.freezer == "cgroup2":
                return b"frozen 1" in (group / "cgroup.events").read_bytes()
            return (group / "freezer.state").read_bytes().strip() == b"FROZEN"
        except OSError:
            return False

    def stop_all(self) -> tuple[list[int], bool]:
        """Where the group cannot be frozen: SIGSTOP every process of the group, and repeat
        until one pass finds every thread of every one of them stopped; returns those stopped,
        and whether all were, within :data:`STOP_WAIT` seconds. Stopping each process once, in
        order, is not enough: one not stopped yet may fork, or SIGCONT one stopped before it
        (the filter refuses a bot that, but not a kernel timer that fires it). Once all are
        stopped none can wake or start another, so :meth:`continue_all` needs no new list."""
        seen: set[int] = set()
        stopped: list[int] = []
        deadline = time.monotonic() + STOP_WAIT
        attempt = 0
        while True:
            members = self.pids()
            waking = [p for p in members if p not in seen or not _is_stopped(p)]
            if not waking:
                return stopped, True
            if attempt and time.monotonic() > deadline:
                return stopped, False
            for pid in waking:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGSTOP)
                if pid not in seen:
                    seen.add(pid)
                    stopped.append(pid)
            attempt += 1
            let_run(attempt)

    @staticmethod
    def continue_all(stopped: list[int]) -> None:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGCONT)

    def kill(self, covered: bool = False) -> None:
        """SIGKILL every process of the group, then thaw it: a process frozen by the v1 freezer
        dies only once thawed (v2's lets SIGKILL through), and a group is reused thawed.

        ``covered``: every process of the group has been sent SIGKILL already (the bot's PID
        namespace ended with its init): the group is only thawed, its list not read (v1 builds
        one afresh at each read), here or at :meth:`close`."""
        if covered:
            self._killed = True
        elif not (self.kind == "cgroup2" and _write(self.dirs["unified"] / "cgroup.kill", "1")):
            group = self._procs_dir()
            if group is not None:
                for _ in range(3):
                    _kill_members(group)
                    if not _members(group):
                        break
        self.thaw()

    def _read(self, controller: str, name: str) -> bytes:
        """A control file's content, through a descriptor kept open for the group's life (read
        at every stop between turns: no path is made again)."""
        fd = self._files.get((controller, name))
        if fd is None:
            fd = _control_fd(self.dirs, controller, name)
        return os.pread(fd, 65536, 0)

    def oom_kills(self) -> int:
        """How many of the bot's processes the kernel killed for exceeding the memory limit."""
        if not self.dirs:
            return 0
        source = ("unified", "memory.events") if self.kind == "cgroup2" else \
            ("memory", "memory.oom_control")
        try:  # (read at every stop between turns: the one line is found, not every line split)
            text = b"\n" + self._read(*source)
            at = text.find(b"\noom_kill ")
            if at < 0:
                return 0
            end = text.find(b"\n", at + 1)
            return int(text[at + 10:end if end > 0 else len(text)]) - self._oom_base
        except (OSError, ValueError):
            return 0

    def cpu_seconds(self) -> float:
        """CPU time used by all of the bot's processes so far."""
        try:
            if self.kind == "cgroup2":
                for line in self._read("unified", "cpu.stat").splitlines():
                    if line.startswith(b"usage_usec "):
                        return int(line.split()[1]) / 1e6 - self._cpu_base
            elif self.kind == "cgroup1":
                used = int(self._read("cpuacct", "cpuacct.usage")) / 1e9
                return used - self._cpu_base
        except (OSError, ValueError, KeyError):
            return 0.0
        return 0.0

    def close(self) -> None:
        """Kill what is left and give the group back for reuse once its members have exited
        (closing never waits for the kernel to finish reaping)."""
        self._procs_file = None
        if not self.dirs:
            return
        if not self._killed:
            self.kill()
        self._freeze_fd = -1  # (kept with the group's other descriptors, for its next bot)
        self._files = {}
        self.freezer = ""
        _draining.append(self.dirs)
        self.dirs = {}


@atexit.register
def remove_groups(wait: float = 1.0) -> None:
    """Remove this process's groups (at exit; a referee killed before has them removed by the
    next one, see :func:`_clear_stale`)."""
    _close_files()
    for dirs in _free + _draining:
        for path in dirs.values():
            _kill_members(path)
            _thaw(path)
            _rmdir(path, wait)
    _free.clear()
    _draining.clear()
    _limits_set.clear()
    global _made
    _made = 0
    for group in _keeper:
        if group.name.startswith(f"{PREFIX}{os.getpid()}-"):  # not a forked worker's parent's
            _thaw(group)
            _rmdir(group, 0.0)
    _keeper.clear()
    if _probed():  # and those of worker processes that ended without cleaning up
        for base in backend().bases.values():
            _clear_stale(base)


def _probed() -> bool:
    """Whether this process probed the control groups (only then is there anything to clear)."""
    return backend.cache_info().currsize > 0
