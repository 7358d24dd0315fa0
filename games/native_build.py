"""Build the compiled engines that :mod:`games.native` serves: ``python -m games.native_build``
(``make setup`` runs it). Needs mypy (a development dependency) and a C compiler; a game whose
group does not compile runs from its sources, and the manifest says why. What it prints is only
what is true: each game compiled or not (and why), then all, some or none compiled.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from games import native

NO_COMPILER = "no C compiler (cc, gcc or $CC) on PATH"


def c_compiler() -> str | None:
    """The C compiler a build would use ($CC, else cc or gcc on PATH), None without one."""
    named = os.environ.get("CC", "").split()
    for candidate in ([named[0]] if named else []) + ["cc", "gcc"]:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def build(root: Path | None = None, groups: Sequence[str] = tuple(native.GROUPS)) -> dict[str, str]:
    """Compile ``groups`` into ``root`` and write its manifest; returns, per group, "compiled"
    or the reason it could not be (the last line of the compiler's complaint)."""
    root = root or native.build_root()
    root.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict[str, object]] = {"groups": {}, "failed": {}}
    outcome: dict[str, str] = {}
    compiler = c_compiler()
    for group in groups:
        if compiler is None:
            manifest["failed"][group] = f"the build failed: {NO_COMPILER}"
            outcome[group] = f"not compiled: {NO_COMPILER}"
            continue
        try:
            manifest["groups"][group] = _build_group(group, root)
            outcome[group] = "compiled"
        except (Exception, SystemExit) as exc:  # the compiler's failure: the game runs from sources
            reason = " ".join(str(exc).split())[-300:] or type(exc).__name__
            manifest["failed"][group] = f"the build failed: {reason}"
            outcome[group] = f"not compiled: {reason}"
    fresh = root / (native.MANIFEST + ".new")
    fresh.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    os.replace(fresh, root / native.MANIFEST)  # readers see the old manifest or the new one
    return outcome


def _build_group(group: str, root: Path) -> dict[str, object]:
    """mypyc over one group's sources, the results copied under ``root``; its manifest entry.
    The hashes are taken before compiling, so a file edited during the build reads as stale."""
    from mypyc.build import mypycify  # the build's own dependency (mypy), not the engines'
    from setuptools import Distribution

    modules = native.modules_of(group)
    sources = {m: native.digest(native.source_of(m)) for m in modules}
    project = native.PACKAGE.parent
    with tempfile.TemporaryDirectory(prefix=f"tourney-native-{group}-") as tmp:
        here = os.getcwd()
        os.chdir(project)  # mypyc names modules by their paths from the project root
        try:
            extensions = mypycify(
                [str(native.source_of(m).relative_to(project)) for m in modules],
                opt_level="3", target_dir=os.path.join(tmp, "c"), verbose=False)
            dist = Distribution({"ext_modules": extensions, "name": f"tourney-native-{group}"})
            command = dist.get_command_obj("build_ext")
            for option, value in (("build_lib", os.path.join(tmp, "lib")),
                                  ("build_temp", os.path.join(tmp, "tmp")),
                                  ("parallel", os.cpu_count() or 1)):
                setattr(command, option, value)
            dist.run_command("build_ext")
        finally:
            os.chdir(here)
        lib = Path(tmp, "lib")
        files: dict[str, str] = {}
        for built in lib.rglob("*"):
            if not built.is_file():
                continue
            rel = built.relative_to(lib)
            name = ".".join(rel.parts).split(".")
            module = ".".join(name[: len(rel.parts)])  # path parts, less the file's suffixes
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            # a new file renamed into place: a process that has the old library loaded keeps
            # its (unlinked) copy; rewriting it in place would pull it from under that process
            fresh = target.with_name(target.name + ".new")
            shutil.copyfile(built, fresh)
            os.replace(fresh, target)
            files[module] = str(rel)
    missing = [m for m in modules if m not in files]
    if missing:
        raise RuntimeError(f"mypyc produced no module for {', '.join(missing)}")
    return {"sources": sources, "files": files}


def main(argv: Sequence[str] | None = None) -> int:
    """Build every group and say, per game, whether it is compiled. ``--stamp FILE`` (make's
    record that the build is done) is touched only when every engine compiled, so that
    ``make native`` tries again once a compiler is installed."""
    args = list(sys.argv[1:] if argv is None else argv)
    stamp = Path(args[args.index("--stamp") + 1]) if "--stamp" in args[:-1] else None
    root = native.build_root()
    outcome = build(root)
    for line in summary(outcome, root):
        print(line)
    if stamp is not None:
        if all(what == "compiled" for what in outcome.values()):
            stamp.touch()
        else:
            stamp.unlink(missing_ok=True)
    return 0


def summary(outcome: dict[str, str], root: Path) -> list[str]:
    """What ``make setup`` prints: each game's outcome, then only what is true of the whole.

    >>> summary({"a": "compiled", "b": "not compiled: no C compiler"}, Path("/b"))[-1]
    'compiled 1 of 2 engines in /b; the others run from their sources (slower)'
    """
    lines = [f"{group}: {what}" for group, what in outcome.items()]
    done = sum(what == "compiled" for what in outcome.values())
    if done == len(outcome):
        lines.append(f"compiled engines in {root}")
    elif done:
        lines.append(f"compiled {done} of {len(outcome)} engines in {root}; the others run "
                     f"from their sources (slower)")
    else:
        fix = ("install one (e.g. sudo apt-get install gcc) and run make native"
               if any(NO_COMPILER in what for what in outcome.values())
               else "see the reasons above, then run make native")
        lines.append(f"no engine compiled: they run from their sources (slower); {fix}")
    return lines


if __name__ == "__main__":
    sys.exit(main())
