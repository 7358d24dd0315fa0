"""Compiled engines: each game's hot modules built with mypyc, used only while they match the
sources they were built from.

The engines are ordinary typed Python; mypyc (part of mypy) compiles the same files to C
extensions that play the same games two to three times faster (``make bench``). Nothing else
changes: same actions, same random draws, same results, which a test checks by playing seeded
games both ways.

* ``python -m games.native_build`` (run by ``make setup``) compiles each group of
  :data:`GROUPS` into ``<sys.prefix>/tourney-native/<python tag>/`` and writes a manifest with
  the sha256 of every source file compiled. A group that fails to compile is left out, with
  one line saying why; the game then runs from its sources.
* At ``import games`` :func:`install` puts a finder first on ``sys.meta_path`` that serves a
  group's compiled modules only when every one of that group's sources still has the hash it
  was built from. An edited engine therefore runs from its sources until the next build: a
  stale build can make a run slower, never different.
* ``TOURNEY_NATIVE=0`` in the environment turns the compiled modules off;
  :func:`status` (printed by ``make bench``) says which engines run compiled.

The build lives in the environment (``sys.prefix``), not in the source tree, so the checkout
stays clean; a sandboxed bot, which sees the environment at another path and runs its base
interpreter, is told where by the harness (``$TOURNEY_NATIVE_DIR``) and imports the same
engines.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: Per game: the modules compiled together (one C library each; modules in a group call each
#: other directly, so a group is used whole or not at all).
GROUPS: dict[str, tuple[str, ...]] = {
    "battleline": ("cards", "flags", "formations", "state", "observe"),
    "warchest": ("board", "units", "ops", "notation", "state", "tactics", "observe"),
}

SWITCH = "TOURNEY_NATIVE"  # "0": run every engine from its sources
PACKAGE = Path(__file__).resolve().parent  # the games package
MANIFEST = "manifest.json"
#: What :func:`install` found, per group: "compiled", or why the group runs from its sources.
_STATUS: dict[str, str] = {}


BUILD_DIR = "TOURNEY_NATIVE_DIR"  # where a sandboxed bot finds them (set by the harness)


def build_root() -> Path:
    """Where the compiled modules of this environment and Python version live: in the
    environment, or where ``$TOURNEY_NATIVE_DIR`` says (a sandboxed bot runs the environment's
    base interpreter, whose ``sys.prefix`` is not the environment's, and in a jail sees the
    environment at another path)."""
    given = os.environ.get(BUILD_DIR)
    if given:
        return Path(given)
    return Path(sys.prefix) / "tourney-native" / sys.implementation.cache_tag


def source_of(module: str) -> Path:
    """The source file of a module of the games package (``games.battleline.state``)."""
    parts = module.split(".")
    assert parts[0] == "games", module
    return PACKAGE.joinpath(*parts[1:]).with_suffix(".py")


def digest(path: Path) -> str:
    """The sha256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def modules_of(group: str) -> list[str]:
    """The full module names of a group."""
    return [f"games.{group}.{name}" for name in GROUPS[group]]


class _Finder:
    """Serves the compiled file of each listed module; every other import goes on as usual.
    (A finder on ``sys.meta_path`` needs only ``find_spec``: importing ``importlib.abc`` for its
    base class would import ``importlib.resources``, 13 ms of every start-up server's launch.)"""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        return importlib.util.spec_from_file_location(fullname, file)


def install(root: Path | None = None) -> dict[str, str]:
    """Serve the compiled groups whose sources are unchanged (see the module docstring);
    returns (and keeps, for :func:`status`) what it found per group. Called by ``import
    games``, before any engine module is imported."""
    if os.environ.get(SWITCH, "1") == "0":
        files: dict[str, Path] = {}
        found = {g: f"from sources ({SWITCH}=0)" for g in GROUPS}
    else:
        files, found = examine(root or build_root())
    if files:
        sys.meta_path.insert(0, _Finder(files))
    _STATUS.clear()
    _STATUS.update(found)
    return dict(found)


def examine(root: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """The compiled files under ``root`` that match today's sources (module name -> file), and
    per group "compiled" or why it runs from its sources."""
    try:
        manifest = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}, {g: "from sources (not compiled: make setup builds it)" for g in GROUPS}
    files: dict[str, Path] = {}
    found: dict[str, str] = {}
    for group in GROUPS:
        entry = manifest.get("groups", {}).get(group)
        if not entry:
            found[group] = f"from sources ({manifest.get('failed', {}).get(group, 'not built')})"
            continue
        stale = [m for m, sha in entry["sources"].items() if _changed(m, sha)]
        if stale or set(entry["sources"]) != set(modules_of(group)):
            names = ", ".join(stale) or "the module list"
            found[group] = f"from sources ({names} changed since the build: make setup)"
            continue
        group_files = {m: root / rel for m, rel in entry["files"].items()}
        if not all(f.is_file() for f in group_files.values()):
            found[group] = "from sources (a compiled file is missing: make setup)"
            continue
        files.update(group_files)
        found[group] = "compiled"
    return files, found


def _changed(module: str, sha: str) -> bool:
    try:
        return digest(source_of(module)) != sha
    except OSError:
        return True


def status() -> dict[str, str]:
    """Per group: "compiled", or why it runs from its sources (what :func:`install` found)."""
    return dict(_STATUS)
