"""A bot directory in any language: its manifest (``bot.toml``) names the command that plays
(``command = "node bot.js"``, run from the directory) and, optionally, a build step run once
before its entry check (``build = "make"``, ``build = "javac Bot.java"``).

A version whose manifest names a command is kept as the external command
``cmd[cwd=ITS COPY]:COMMAND`` (:mod:`harness.arena.entries`): the sandbox runs it like any
``cmd:`` bot (:mod:`harness.bots.sandbox`), showing it its directory read-only.

The build runs once, in a jail of its own made by the same bubblewrap as the bots' and under
the bots' system-call filter (:func:`harness.bots.syscalls.bot_filter`): no network, no other
process of the host in sight, the system's program and library directories read-only, its own
directory (the version's copy) the one place it may write, a private ``/tmp``. Its limits are
its own: :data:`BUILD_SECONDS` of wall time (then the whole jail is killed), no file over
:data:`BUILD_BYTES` and the directory as a whole within the size a bot directory may have
(:data:`harness.bots.spec.MAX_DIR_BYTES`), and :data:`BUILD_MEMORY` of memory and
:data:`BUILD_PROCESSES` processes for the whole build, held by a control group of its own as a
bot's are (:class:`harness.bots.cgroups.BotGroup`); where the machine gives none, by the
per-process limits a bot gets there (address space and, in its own user namespace, processes,
set by util-linux's ``prlimit``: without it, a build has no process limit there).
What it prints (the last :data:`OUTPUT_BYTES`) goes into the entry check's report. A build that
fails, runs out of time or memory, or grows too large refuses the version with the reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from harness.arena.registry import ArenaError
from harness.bots.spec import MANIFEST, MAX_DIR_BYTES, MAX_DIR_FILES

BUILD_SECONDS = 120.0  # wall time of a build
BUILD_BYTES = 32 << 20  # the largest file a build may write
BUILD_TMP_BYTES = 256 << 20  # the build's private /tmp
BUILD_MEMORY = 1 << 30  # memory of the whole build (all its processes)
BUILD_PROCESSES = 256  # processes and threads of the whole build at once
OUTPUT_BYTES = 8 << 10  # the tail of a build's output kept in the report
BUILT = ".tourney-build.json"  # the build's outcome, kept in the copy (hidden: not its code)
_KEYS = {"command", "build", "name", "protocol"}
_PATH = "/usr/local/bin:/usr/bin:/bin"
_PRLIMIT = "/usr/bin/prlimit"  # util-linux's, in the build's view of /usr


@dataclass(frozen=True)
class Manifest:
    """What a bot directory's manifest says of a bot in another language."""

    command: str  # the command line that plays, run from the directory
    build: str  # the build step's command line ("" for none)
    name: str  # the display name it gives ("" for none)


def manifest(directory: Path) -> Manifest | None:
    """The command manifest of ``directory`` (None when its ``bot.toml`` names no command: a
    Python bot directory); :class:`ArenaError` names what is wrong with it."""
    from harness.bots.protocol import PROTOCOL_VERSION

    path = directory / MANIFEST
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise ArenaError(f"{MANIFEST} cannot be read ({exc}); fix it") from None
    if "command" not in data:
        return None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ArenaError(f"{MANIFEST} sets unknown keys ({', '.join(unknown)}); a manifest with "
                         f"a command sets command, build, name and protocol")
    for key in ("command", "build", "name"):
        if not isinstance(data.get(key, ""), str):
            raise ArenaError(f"{MANIFEST}: {key} must be a string, such as "
                             f"{key} = \"node bot.js\"")
    command, build = data["command"].strip(), str(data.get("build", "")).strip()
    try:
        words = shlex.split(command)
        shlex.split(build)
    except ValueError as exc:
        raise ArenaError(f"{MANIFEST}: cannot split the command line ({exc})") from None
    if not words:
        raise ArenaError(f"{MANIFEST}: command is empty; write command = \"node bot.js\"")
    if data.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        raise ArenaError(f"{MANIFEST} asks for protocol {data['protocol']!r}, but tourney "
                         f"speaks protocol {PROTOCOL_VERSION}")
    if "\n" in command or "\n" in build:
        raise ArenaError(f"{MANIFEST}: command and build are one line each")
    return Manifest(command, build, str(data.get("name", "")))


def command_spec(directory: Path, found: Manifest) -> str:
    """The bot spec that runs the manifest's command from ``directory``."""
    return f"cmd[cwd={directory}]:{found.command}"


@dataclass(frozen=True)
class Built:
    """A build's outcome: whether it passed, why not, and the report's lines."""

    ok: bool
    reason: str
    lines: list[str]


def build_once(spec_text: str) -> Built | None:
    """Run the build step of the version whose spec is ``spec_text``, once (a build already
    run gives its outcome again); None when the version has no build step."""
    from harness.bots.spec import BotSpecError, parse_spec

    try:
        spec = parse_spec(spec_text, check=False)
    except BotSpecError:
        return None
    if not spec.command or spec.cwd is None or not spec.cwd.is_dir():
        return None
    try:
        found = manifest(spec.cwd)
    except ArenaError as exc:
        return Built(False, str(exc), [f"FAIL build: {exc}"])
    if found is None or not found.build:
        return None
    done = spec.cwd / BUILT
    with contextlib.suppress(OSError, ValueError, KeyError):
        kept = json.loads(done.read_text())
        return Built(bool(kept["ok"]), str(kept["reason"]), list(kept["lines"]))
    outcome = run_build(spec.cwd, found.build)
    done.write_text(json.dumps({"ok": outcome.ok, "reason": outcome.reason,
                                "lines": outcome.lines}))
    return outcome


def run_build(directory: Path, command: str, seconds: float = BUILD_SECONDS) -> Built:
    """Run ``command`` in ``directory``, sandboxed, within the build's limits."""
    head = f"build `{command}`"
    with tempfile.TemporaryFile() as out:
        started = time.monotonic()
        try:
            code, timed_out, out_of_memory = _run_jailed(directory, command, out, seconds)
        except OSError as exc:
            return Built(False, f"the build could not start ({exc})",
                         [f"FAIL {head}: could not start ({exc})"])
        took = time.monotonic() - started
        out.seek(0, os.SEEK_END)
        size = out.tell()
        out.seek(max(0, size - OUTPUT_BYTES))
        text = out.read().decode("utf-8", "replace")
    shown = ([f"     (the first {size - OUTPUT_BYTES} bytes of its output left out)"]
             if size > OUTPUT_BYTES else []) + [f"     | {line}" for line in text.splitlines()]
    if timed_out:
        why = f"the build ran past its {seconds:g} s and was stopped"
    elif out_of_memory:
        why = f"the build ran out of its {BUILD_MEMORY >> 20} MB of memory and was stopped"
    elif code == 128 + signal.SIGXFSZ or code == -signal.SIGXFSZ:
        why = f"the build wrote a file over the {BUILD_BYTES >> 20} MB a built file may have"
    elif code != 0:
        why = f"the build failed (exit status {code})"
    else:
        why = _too_large(directory)
    if why:
        return Built(False, f"{why}; fix the build step in {MANIFEST}",
                     [f"FAIL {head}: {why} after {took:.1f} s", *shown])
    return Built(True, "", [f"ok   {head} in {took:.1f} s", *shown])


def _too_large(directory: Path) -> str:
    """Why the built directory is over a bot directory's limits ("" when it is not)."""
    total = files = 0
    for root, _dirs, names in os.walk(directory):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
                files += 1
    if total > MAX_DIR_BYTES or files > MAX_DIR_FILES:
        return (f"the built directory holds {files} files, {total >> 20} MB: more than the "
                f"{MAX_DIR_FILES} files and {MAX_DIR_BYTES >> 20} MB a bot may have")
    return ""


def _confine(join: list[str]) -> Callable[[], None]:
    """What the build's process does before bubblewrap: no file written over BUILD_BYTES, then
    into its control group (``join``), or, without one, the per-process limits."""
    def confine() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (BUILD_BYTES, BUILD_BYTES))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for path in join:
            with open(path, "w") as f:
                f.write("0")
        if not join:  # (its process count is limited inside the jail: see _run_jailed)
            resource.setrlimit(resource.RLIMIT_AS, (BUILD_MEMORY, BUILD_MEMORY))

    return confine


def _run_jailed(directory: Path, command: str, out: IO[bytes], seconds: float
                ) -> tuple[int, bool, bool]:
    """(exit status, whether it ran out of time, whether the kernel stopped it for its memory)
    of ``sh -c COMMAND`` in the build's jail."""
    from harness.bots import cgroups, isolation, jail, syscalls

    bwrap = jail.bwrap()
    if bwrap is None:
        raise OSError("bubblewrap is not installed here, and a build runs only in its jail")
    view = isolation.system_view()
    args = [bwrap, "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv",
            "--setenv", "PATH", _PATH, "--setenv", "HOME", "/tmp", "--setenv", "LANG",
            "C.UTF-8", "--proc", "/proc", "--dev", "/dev",
            "--size", str(BUILD_TMP_BYTES), "--tmpfs", "/tmp"]
    for link, target in view["links"].items():
        args += ["--symlink", target, link]
    for path in view["binds"]:
        if path == "/usr" or path.startswith("/etc/"):  # not tourney's own environment
            args += ["--ro-bind", path, path]
    args += ["--bind", str(directory), "/bot", "--chdir", "/bot"]
    fds: list[int] = []
    rules = syscalls.bot_filter()
    if rules is not None:
        fds.append(jail.memfd("build-filter", rules))
        args += ["--seccomp", str(fds[0])]
    info_r, info_w = os.pipe()  # bubblewrap's report names the jail's first process
    fds.append(info_w)
    args += ["--info-fd", str(info_w)]
    group = cgroups.BotGroup(BUILD_MEMORY, BUILD_PROCESSES)
    if not group.active and os.path.exists(_PRLIMIT):
        # without a control group: the process limit set inside the build's own user namespace,
        # which counts its processes alone (set outside, it would count all of this user's)
        args += [_PRLIMIT, f"--nproc={BUILD_PROCESSES}", "--"]
    args += ["/bin/sh", "-c", command]
    init: int | None = None
    try:
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, pass_fds=fds,
                                    start_new_session=True,
                                    preexec_fn=_confine(group.join_files if group.active else []))
        finally:
            for fd in fds:
                os.close(fd)
        with contextlib.suppress(jail.JailError):
            init = jail.hold(jail.report(info_r, seconds))
        try:
            code, timed_out = proc.wait(seconds), False
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            code, timed_out = proc.wait(), True
        return code, timed_out, group.active and group.oom_kills() > 0
    finally:
        os.close(info_r)
        if init is not None:  # whatever the build left running dies with its PID namespace
            jail.end(init)
            jail.ended(init, 10.0)
            os.close(init)
        group.close()  # and with its group
