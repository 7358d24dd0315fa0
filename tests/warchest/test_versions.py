"""Results of an older War Chest rules version stay readable and are never mixed with wc-3.

Driven through the ``tourney`` command itself (what users run), on a league folder whose
``league.json`` says it was started under wc-2.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from games.warchest import RULES_VERSION
from tests.patience import patience

TOURNEY = str(Path(sys.executable).with_name("tourney"))


def _tourney(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TOURNEY, *args], capture_output=True, text=True, timeout=patience(600),
                          check=False)


def _league(out: Path, games: int = 2) -> subprocess.CompletedProcess[str]:
    return _tourney("league", "warchest", "random", "r2=random", "--games", str(games),
                    "--out", str(out), "--workers", "1", "--seed", "1")


@pytest.mark.slow  # four runs of the command (a few seconds each on a loaded machine)
def test_a_wc2_league_stays_readable_and_never_takes_wc3_games(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    assert _league(old).returncode == 0
    shutil.copytree(old, new)  # the same games, still marked with the engine's version
    config = json.loads((old / "league.json").read_text())
    assert config["rules_version"] == RULES_VERSION == "wc-3"
    config["rules_version"] = "wc-2"  # as a folder written before the bump
    (old / "league.json").write_text(json.dumps(config))

    rated = _tourney("ratings", str(old))
    assert rated.returncode == 0 and "r2" in rated.stdout  # readable: rated on its own

    resumed = _league(old, games=4)
    assert resumed.returncode == 2
    assert "rules wc-2, but the engine is now at rules wc-3" in resumed.stderr

    mixed = _tourney("ratings", str(old), str(new))
    assert mixed.returncode != 0
    assert "cannot rate different games or rules versions together" in mixed.stderr
