"""The confinement policy of sandboxed bots: what a bot may see, use and keep.

One policy, applied before any bot code runs by bubblewrap (:mod:`harness.bots.jail`: namespaces,
the root, capabilities, the seccomp filter that :mod:`harness.bots.syscalls` builds with
libseccomp), the referee (control groups) and the stdlib-only runner (:mod:`harness.bots.runner`:
rlimits, as root the switch to ``nobody``):

* **File system: an allow-list.** The bot's root is a fresh, read-only, in-memory directory tree
  that holds only: the system's program and library directories (``/usr``, and ``/bin``,
  ``/lib``... as they are on the host), the few ``/etc`` files an interpreter needs, the Python
  installation and environment tourney runs in (:func:`python_paths`: the interpreter's prefix,
  the virtual environment, every directory on tourney's ``sys.path``), the ``games`` and
  ``agents`` packages, and its own copy of its file or bot directory (``/bot/``, readable by
  the bot's user only; a bot directory is also its working directory). Writable: only its
  private scratch space, a size-limited in-memory ``/tmp`` (also ``$HOME``), which vanishes
  with the bot's mount namespace: at the end of its game, and also when the referee is killed
  (the bot dies with it). Devices: ``/dev/null``, ``/dev/zero`` and
  ``/dev/urandom``. tourney's packages and virtual environment are shown under ``/tourney``
  (:func:`jail_paths`: the bot's mounts and tracebacks name no directory of the organiser's);
  the system and the interpreter's installation keep their paths, even one under a private
  (0700) directory such as ``/root``: the bot sees the allowed directories, never their
  private parents. No home directories, no other leagues, no
  ``/var/tmp``, no other bot's files, no ``harness``.
* **Processes:** new PID, network, mount, IPC and UTS namespaces; as root, the unprivileged
  ``nobody`` user; no capabilities (a user namespace's full set is dropped, bounding set
  included); ``no_new_privs``; the system-call filter (sockets of ``AF_UNIX`` only, no
  questions to the page cache). What the runner reports is read back from the kernel
  (``/proc/self/status``, the sockets it can open), not inferred from what was asked.
* **Resources per bot** (the bot and everything it starts, together): memory, process count and
  CPU time through a control group (:mod:`harness.bots.cgroups`), plus per-process rlimits;
  the whole tree stopped between its turns.

Where the kernel refuses a part (a locked-down container), bots still run with what remains;
:func:`report` says what is in force (``tourney validate``, ``play`` and ``league.json`` record
it) and :func:`missing` lists what is not, for ``--require-isolation``.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.bots.spec import command_files, directory_files

if TYPE_CHECKING:
    from harness.bots.spec import BotSpec

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BOT_PACKAGES = ("games", "agents")  # the project's packages a bot may import
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("ld.so.cache", "ld.so.conf", "localtime", "nsswitch.conf", "passwd", "group",
             "alternatives")
DEVICES = ("null", "zero", "urandom")


def inside(path: str, parent: str) -> bool:
    """Whether ``path`` is ``parent`` or lies under it (both as given, not resolved)."""
    return path == parent or path.startswith(parent.rstrip("/") + "/")


@cache
def environment_path() -> list[str]:
    """``sys.path`` without the directory Python put first for the program it runs (a
    script's folder, or the current directory for ``-c``, ``-m`` and notebooks): that is the
    organiser's working folder, not the Python environment. Shown to bots it would give them
    the organiser's files (a league's results folder in it among them), and it cannot hold a
    results folder that the jail must cover."""
    if sys.flags.safe_path or not sys.path:
        return list(sys.path)
    return sys.path[1:]


def python_paths() -> tuple[str, ...]:
    """The directories of the Python environment tourney runs in, as the bot must see them.

    The interpreter's installation and the virtual environment (their real paths), and every
    directory on ``sys.path`` (site-packages, editable installs of other packages, the user's
    PYTHONPATH) except tourney's own source tree, of which only :data:`BOT_PACKAGES` is shown.
    """
    candidates = [sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix,
                  sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"],
                  sysconfig.get_paths()["platlib"], os.path.dirname(os.path.realpath(
                      sys.executable)), *environment_path()]
    project = str(PROJECT_ROOT)
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
    found: list[str] = []
    for entry in candidates:
        if not entry:
            continue
        real = os.path.realpath(entry)
        if not os.path.exists(real) or real == "/" or inside(project, real):
            continue
        if inside(real, project) and not any(inside(real, p) for p in prefixes):
            continue  # tourney's tree: only its bot packages (below), never harness or results
        if real in SYSTEM_DIRS or any(inside(real, d) for d in SYSTEM_DIRS if os.path.isdir(d)
                                      and not os.path.islink(d)):
            continue  # already visible
        found.append(real)
    for package in BOT_PACKAGES:
        if (PROJECT_ROOT / package).is_dir():
            found.append(str(PROJECT_ROOT / package))
    # the venv's interpreter link must resolve inside the view, so keep the venv and the base
    outermost = sorted(set(found), key=len)
    kept: list[str] = []
    for path in outermost:
        if not any(inside(path, k) for k in kept):
            kept.append(path)
    return tuple(sorted(kept))


@cache
def bot_sys_path() -> tuple[str, ...]:
    """The import path of a sandboxed Python bot, beyond the interpreter's standard library:
    tourney's root (where only :data:`BOT_PACKAGES` are visible) and every other entry of
    tourney's own ``sys.path`` (site-packages and what their ``.pth`` files add). Bots run
    without ``site`` (``-S``), which saves the ~10 ms an editable install's import hook costs
    every launch, so the path is given to them whole (``PYTHONPATH``)."""
    own = {os.path.realpath(p) for p in (sysconfig.get_paths()["stdlib"],
                                         sysconfig.get_paths()["platstdlib"])}
    entries = [str(PROJECT_ROOT)]
    for entry in environment_path():
        real = os.path.realpath(entry) if entry else ""
        if (not real or real in own or real.endswith((".zip", "lib-dynload"))
                or real == str(PROJECT_ROOT) or not os.path.isdir(real)):
            continue
        if not any(inside(real, p) for p in python_paths()):
            continue  # not part of the view (e.g. tourney's tests or the current directory)
        if real not in entries:
            entries.append(real)
    return tuple(entries)


JAIL_ROOT = "/tourney"  # where a jail shows tourney's bot packages and environment


@cache
def jail_paths() -> dict[str, str]:
    """Where a jail shows each directory of :func:`python_paths` that is not the interpreter's
    own installation: under :data:`JAIL_ROOT`, so a bot's mounts, tracebacks and ``__file__``
    name no host path of the organiser's (``/tourney/games``, ``/tourney/env`` for the virtual
    environment, ``/tourney/path1``... for other import directories). The interpreter's
    installation keeps its path (its binary finds its library there)."""
    base = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
    venv = os.path.realpath(sys.prefix)
    mapping: dict[str, str] = {}
    others = 0
    for path in python_paths():
        if path in base or any(inside(path, b) for b in base):
            continue
        if os.path.dirname(path) == str(PROJECT_ROOT) and os.path.basename(path) in BOT_PACKAGES:
            mapping[path] = f"{JAIL_ROOT}/{os.path.basename(path)}"
        elif path == venv and venv not in base:
            mapping[path] = f"{JAIL_ROOT}/env"
        else:
            others += 1
            mapping[path] = f"{JAIL_ROOT}/path{others}"
    return mapping


def in_jail(path: str, cwd: str | None = None) -> str:
    """``path`` (relative to ``cwd``, else the current directory) as a jail shows it
    (:func:`jail_paths`); unchanged where it is not mapped."""
    given = os.path.abspath(os.path.join(cwd or os.getcwd(), path))
    if given == str(PROJECT_ROOT):
        return JAIL_ROOT
    mapping = sorted(jail_paths().items(), key=lambda item: -len(item[0]))
    for candidate in (given, os.path.realpath(given)):  # a venv's bin/python is a link
        for host, shown in mapping:
            if inside(candidate, host):
                return shown + candidate[len(host):]
    return path


def system_view() -> dict[str, Any]:
    """The read-only parts of every bot's root: system directories (symlinks kept as links),
    /etc files, devices and the Python environment."""
    links: dict[str, str] = {}
    binds: list[str] = []
    for top in SYSTEM_DIRS:
        if os.path.islink(top):
            links[top] = os.readlink(top)
        elif os.path.isdir(top):
            binds.append(top)
    etc = [f"/etc/{name}" for name in ETC_FILES if os.path.exists(f"/etc/{name}")]
    return {"links": links, "binds": binds + etc + list(python_paths()),
            "devices": [f"/dev/{d}" for d in DEVICES if os.path.exists(f"/dev/{d}")]}


def command_paths(source: BotSpec) -> list[str]:
    """What an external command sees besides the allow-list: the files named on its command
    line (:func:`harness.bots.spec.command_files`, its program among them when given as a
    path), its program's directory when the program is found on ``PATH`` (a runtime under
    /opt), and, only when it was given one (``cmd[cwd=DIR]:``), its own directory. Never the
    directory tourney happens to run in, where other bots' files lie."""
    paths = [str(path) for path in command_files(source)]
    if source.cwd is not None:
        paths.insert(0, str(source.cwd))
    program = source.command[0]
    found = shutil.which(program) if "/" not in program else None
    if found is not None:
        paths.append(os.path.dirname(os.path.realpath(found)))
    return paths


def access(source: BotSpec, achieved: dict[str, Any], scratch_bytes: int,
           file_bytes: int) -> tuple[str, str]:
    """What a sandboxed bot may read and may write, in words, given what its runner reported
    it ``achieved`` (``filesystem`` is ``allow-list`` where the bot has a root of its own)."""
    if source.command:
        own = ("the files on its command line, its program's directory"
               f"{' and its own directory' if source.cwd is not None else ''}, read-only "
               f"({', '.join(command_paths(source))})")
    elif source.is_directory and source.path is not None:
        files = directory_files(source.path)
        size = sum(path.stat().st_size for _, path in files)
        own = (f"its own directory at /bot, read-only and its working directory ({len(files)} "
               f"files, {size / 1024:.1f} KB)")
    else:
        own = f"its own file at /bot/{source.path.name if source.path else ''}, read-only"
    user = _user_name(int(achieved.get("uid", os.getuid())))
    if achieved.get("filesystem") != "allow-list":
        return (f"{own.replace('/bot', 'a private copy', 1)}, and anything {user} may read on "
                "this machine (no allow-list file system here)",
                f"anything {user} may write on this machine, files up to {file_bytes >> 20} MB")
    reads = (f"{own}; the system's program and library directories, the Python environment "
             f"({sys.prefix}) and tourney's {' and '.join(BOT_PACKAGES)} packages; nothing else")
    # measured by the runner where it reports it: the writable mounts and the size of /tmp
    writable = achieved.get("writable", ["/tmp"])
    scratch = int(achieved.get("scratch_bytes", scratch_bytes))
    if writable != ["/tmp"]:
        return reads, f"{', '.join(writable) or 'nothing'} (measured in the bot's sandbox)"
    return reads, (f"only /tmp (also $HOME): private, in memory, {scratch >> 20} MB, gone when "
                   "the game ends")


def _user_name(uid: int) -> str:
    try:
        return f"user {pwd.getpwuid(uid).pw_name}"
    except KeyError:
        return f"user {uid}"


def allowed_imports() -> str:
    """What a sandboxed Python bot may import, for error messages (truthful: the view above)."""
    return (f"the standard library, the packages installed in tourney's Python environment "
            f"({sys.prefix}) and tourney's {' and '.join(BOT_PACKAGES)} packages")


# ------------------------------------------------------------------------------- reporting

REQUIRED = {
    "cgroups": "per-bot memory, process and CPU limits (cgroup v2 or v1)",
    "pid_namespace": "an own PID namespace",
    "ipc_namespace": "an own IPC namespace (no System V memory or queues kept between games)",
    "network": "no network (an own network namespace)",
    "filesystem": "the allow-list file system",
    "user": "an unprivileged user (tourney runs as root) or a user namespace",
    "capabilities": "no capabilities",
    "seccomp": "a system-call filter (seccomp, built with libseccomp)",
    "freeze": "the bot's whole process tree stopped between its turns",
}


_USERNS = ("allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on "
           "Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0) or run tourney as root")
_CGROUP = ("run tourney as root: per-bot groups are made in the cgroup hierarchies, which a "
           "normal user may not write")
FIXES = {
    "cgroups": _CGROUP,
    "pid_namespace": _USERNS,
    "ipc_namespace": _USERNS,
    "network": _USERNS,
    "filesystem": _USERNS,
    "user": _USERNS,
    "capabilities": _USERNS,
    "seccomp": "install libseccomp (Debian and Ubuntu: apt-get install libseccomp2) and "
               "tourney's pyseccomp dependency",
    "freeze": "install libseccomp (Debian and Ubuntu: apt-get install libseccomp2) and "
              "tourney's pyseccomp dependency: without a cgroup freezer, the filter keeps a bot "
              "from waking itself when stopped",
}
# what :func:`harness.bots.sandbox.report` says of a stop between turns that holds: the bot's
# control group frozen, or (no freezer) its whole tree stopped by signals, checked thread by
# thread, with the filter refusing what would resume it (:mod:`harness.bots.syscalls`)
FREEZES = ("whole tree (freezer)", "whole tree (signals)")


def missing_with_fixes(state: dict[str, Any]) -> list[tuple[str, str]]:
    """The protections of :data:`REQUIRED` not in force in ``state``, each with how to get it."""
    absent = set(missing(state))
    return [(text, FIXES[key]) for key, text in REQUIRED.items() if text in absent]


def missing(state: dict[str, Any]) -> list[str]:
    """The protections of :data:`REQUIRED` that are not in force in ``state`` (what
    :func:`harness.bots.sandbox.report` probed)."""
    out = []
    for key, text in REQUIRED.items():
        value = state.get(key)
        if key == "freeze":
            value = value in FREEZES
        elif key == "capabilities":
            value = value == "none"
        if not value:
            out.append(text)
    return out


def describe(state: dict[str, Any]) -> str:
    """One line: the mechanisms in force and what is missing."""
    parts = [f"namespaces and root by: {state.get('engine', 'unknown')}",
             f"limits per bot: {state['mechanism']}",
             f"file system: {'allow-list' if state['filesystem'] else 'host (not confined)'}",
             f"network {'off' if state['network'] else 'ON'}",
             f"own PID namespace {'yes' if state['pid_namespace'] else 'NO'}",
             f"own IPC namespace {'yes' if state.get('ipc_namespace') else 'NO'}",
             f"unprivileged {'yes' if state['user'] else 'NO'}",
             f"capabilities {state.get('capabilities', 'unknown')}",
             f"system-call filter {'yes' if state.get('seccomp') else 'NO'}"
             f"{_sockets(state.get('sockets'))}",
             f"stopped between turns: {state['freeze']}",
             f"bots start: {state.get('starts', 'unknown')}"]
    return ", ".join(parts)


def _sockets(opened: Any) -> str:
    """The socket families a bot can open, as measured, for :func:`describe` (nothing where
    they were not measured)."""
    if not isinstance(opened, list):
        return ""
    return f" (sockets: {'AF_UNIX only' if opened == ['AF_UNIX'] else ', '.join(opened)})"


def read_probe(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    """Wait for the runner's probe and parse its one-line answer (empty dict if it failed)."""
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {}
    for line in out.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("type") == "confined":
            return message
    return {}
