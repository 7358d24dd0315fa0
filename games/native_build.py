"""Build the compiled engines that :mod:`games.native` serves: ``python -m games.native_build``
(``make setup`` runs it). Needs mypy (a development dependency) and a C compiler; a game whose
group does not compile runs from its sources, and the manifest says why.
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


def build(root: Path | None = None, groups: Sequence[str] = tuple(native.GROUPS)) -> dict[str, str]:
    """Compile ``groups`` into ``root`` and write its manifest; returns, per group, "compiled"
    or the reason it could not be (the last line of the compiler's complaint)."""
    root = root or native.build_root()
    root.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, dict[str, object]] = {"groups": {}, "failed": {}}
    outcome: dict[str, str] = {}
    for group in groups:
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
    """Build every group and say, per game, whether it is compiled."""
    del argv
    outcome = build()
    for group, what in outcome.items():
        print(f"{group}: {what}")
    print(f"compiled engines in {native.build_root()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
