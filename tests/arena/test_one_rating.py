"""One rating for the same games: `tourney arena status` and `tourney ratings` on a living
league's folder give every bot the same Elo and the same interval (issue 46: they once said -477
and -384 for the same bot, from three Bradley-Terry fits with different priors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.arena import living
from harness.cli.app import app

BOTS = Path(__file__).resolve().parent / "bots"
runner = CliRunner()


def tourney(*args: str | Path) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small arena: five bots of very different strength, 60 games chosen by the
    matchmaker (a field wide enough for the old fixed prior to squeeze it)."""
    folder = tmp_path_factory.mktemp("one") / "club"
    tourney("arena", "new", folder, "--game", "battleline", "--seed", "3")
    for name, spec in (("random", "random"), ("greedy", "greedy"),
                       ("first", f"inproc:{BOTS / 'first.py'}"),
                       ("random2", "random"), ("greedy2", "greedy")):
        tourney("arena", "add", folder, name, spec)
    options = living.RunOptions(workers=0, stop_after=60, progress=False, seed=1,
                                stop_when_idle=True, say=lambda line: None)
    living.Arena(folder, options).run()
    return folder


def test_arena_status_and_ratings_give_the_same_elo_and_interval(club: Path) -> None:
    status = {row["bot"]: row for row in json.loads(tourney("arena", "status", club, "-f", "json"))}
    rated = {row["bot"]: row for row in json.loads(tourney("ratings", club, "-f", "json"))[
        "leaderboard"]}
    assert set(status) == set(rated) and len(status) == 5
    for bot, row in status.items():
        assert row["rating"] == pytest.approx(rated[bot]["elo"], abs=0.06), bot
        half = 1.959963984540054 * row["sd"]
        assert half == pytest.approx(rated[bot]["elo_high"] - rated[bot]["elo"], abs=0.11), bot
    # the printed table says the same numbers
    table = tourney("arena", "status", club)
    for bot, row in status.items():
        line = next(x for x in table.splitlines() if f" {bot.split('.')[0]} " in f" {x} ")
        assert f"{row['rating']:+.0f}" in line.split()
