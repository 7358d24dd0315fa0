"""A results folder the user may not read (issue 29, item 10): an unreadable ``games/`` folder or
batch file is one line naming it and the fix, exit status 2, and nothing moved or lost, both
when rating and when resuming. Never "no finished games" (as if the games were not there) or a
traceback, and never a quarantine (a permission is not damage).

Root reads everything, so as root the commands run as ``nobody`` on a folder ``nobody`` owns
(with an interpreter ``nobody`` may run, and this environment's packages on its path)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.bots.isolation import bot_sys_path
from harness.bots.sandbox import bot_python
from tests.patience import patience

MAIN = ["-c", "from harness.cli.app import main; main()"]
TOURNEY = [sys.executable, *MAIN]
ROOT = Path(__file__).resolve().parents[2]


def _as_owner() -> dict[str, int | None]:
    """Run as ``nobody`` when the tests run as root (to whom no permission is ever denied)."""
    return {"user": 65534, "group": 65534} if os.geteuid() == 0 else {"user": None}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(ROOT), *bot_sys_path()])
    owner = _as_owner()
    return subprocess.run([bot_python(), *MAIN, *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": path}, check=False,
                          timeout=patience(300), user=owner["user"], group=owner.get("group"))


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("unreadable")
    base.chmod(0o755)
    for parent in base.parents:  # pytest's own temporary folders are private to root
        if parent == Path("/"):
            break
        if os.geteuid() == 0 and not parent.stat().st_mode & 0o001:
            parent.chmod(parent.stat().st_mode | 0o001)
    league = base / "L"
    done = subprocess.run([*TOURNEY, "league", "battleline", "random", "greedy", "--games", "4",
                           "--out", str(league), "--seed", "3", "--workers", "1"],
                          capture_output=True, text=True, cwd=base, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=patience(300))
    assert done.returncode == 0, done.stderr
    if os.geteuid() == 0:
        for path in [league, *league.rglob("*")]:
            os.chown(path, 65534, 65534, follow_symlinks=False)
    return league


def _copy(league: Path, name: str) -> Path:
    copy = league.parent / name
    shutil.copytree(league, copy, symlinks=True)
    if os.geteuid() == 0:
        for path in [copy, *copy.rglob("*")]:
            os.chown(path, 65534, 65534, follow_symlinks=False)
    return copy


def _contents(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.name != ".lock")


@pytest.mark.parametrize("what", ["folder", "file"])
@pytest.mark.parametrize("command", ["ratings", "league"])
def test_an_unreadable_games_folder_or_batch_is_one_line_and_exit_2(
        played: Path, command: str, what: str) -> None:
    folder = _copy(played, f"{what}-{command}")
    games = folder / "games"
    target = games if what == "folder" else sorted(games.iterdir())[0]
    mode = target.stat().st_mode & 0o777
    try:
        target.chmod(0)
        args = ["ratings", str(folder)] if command == "ratings" else [
            "league", "battleline", "random", "greedy", "--games", "4", "--out", str(folder),
            "--seed", "3", "--workers", "1"]
        done = _run(*args, cwd=folder.parent)
    finally:
        target.chmod(mode)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"cannot read the {what} {target}: permission denied" in lines[0]
    assert f"chmod u+{'rwx' if what == 'folder' else 'rw'} {target}" in lines[0]
    assert not (folder / "quarantine").exists()  # a permission is not damage
    assert _contents(folder) == _contents(played)  # nothing moved, nothing lost
