"""Bad values for options: one line (``tourney: error: ...``), exit status 2, nothing played or
allocated; an odd --games is played with a one-line warning."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.app import app

runner = CliRunner()

# Every numeric option of every command, with a value that is not a number and one out of range.
BAD = [
    ["play", "bl", "random", "random", "--seed", "x"],
    ["play", "bl", "random", "random", "--move-time", "abc"],
    ["play", "bl", "random", "random", "--move-time", "-1"],
    ["play", "bl", "random", "random", "--overage", "-1"],
    ["play", "bl", "random", "random", "--startup-time", "0"],
    ["play", "bl", "random", "random", "--memory-mb", "1"],
    ["play", "bl", "random", "random", "--cpu-seconds", "0"],
    ["play", "bl", "random", "random", "--cpu-seconds", "1.5"],
    ["validate", "random", "--game", "bl", "--games", "0"],
    ["validate", "random", "--game", "bl", "--games", "x"],
    ["validate", "random", "--game", "bl", "--seed", "1e3"],
    ["league", "bl", "random", "greedy", "--games", "x"],
    ["league", "bl", "random", "greedy", "--games", "-2"],
    ["league", "bl", "random", "greedy", "--workers", "x"],
    ["league", "bl", "random", "greedy", "--workers", "-1"],
    ["league", "bl", "random", "greedy", "--seed", "x"],
    ["league", "bl", "random", "greedy", "--move-time", "x"],
    ["league", "bl", "random", "greedy", "--move-time", "0"],
    ["league", "bl", "random", "greedy", "--overage", "-1"],
    ["league", "bl", "random", "greedy", "--game-timeout", "x"],
    ["league", "bl", "random", "greedy", "--game-timeout", "-1"],
    ["league", "bl", "random", "greedy", "--batch-size", "x"],
    ["league", "bl", "random", "greedy", "--batch-size", "0"],
    ["gauntlet", "bl", "random", "greedy", "--games", "0"],
    ["gauntlet", "bl", "random", "greedy", "--workers", "1.5"],
    ["ratings", "nowhere", "--draw-probability", "x"],
    ["ratings", "nowhere", "--draw-probability", "1"],
    ["ratings", "nowhere", "--format", "yaml"],
    ["replay", "nowhere", "g", "--boards", "x"],
    ["play"],
    ["nosuch"],
]


@pytest.mark.parametrize("args", BAD, ids=lambda a: " ".join(a))
def test_a_bad_value_is_one_line_and_status_2(args: list[str], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("tourney: error: ")
    assert result.stderr.count("\n") == 1, result.stderr
    assert not (tmp_path / "results").exists()


def test_a_usage_error_names_the_option_and_where_help_is() -> None:
    result = runner.invoke(app, ["validate", "random", "--game", "bl", "--games", "0"])
    assert result.stderr == ("tourney: error: Invalid value for '--games': Input should be "
                             "greater than or equal to 1 (see `tourney validate --help`)\n")


def test_a_limit_out_of_range_names_the_option_and_what_it_takes() -> None:
    result = runner.invoke(app, ["play", "bl", "random", "random", "--memory-mb", "1"])
    assert result.stderr == "tourney: error: --memory-mb 1: give at least 16 MB\n"


def test_a_huge_games_is_refused_with_the_figure_before_memory_grows(tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = runner.invoke(app, ["league", "bl", "random", "greedy", "r2=random",
                                 "--games", "10000000000000", "--out", str(tmp_path / "big")])
    assert result.exit_code == 2
    assert result.stderr == (
        "tourney: error: --games 10000000000000 would schedule 30,000,000,000,000 games "
        "(3 pairings), more than the 1,000,000 a league may hold; give a smaller --games\n")
    assert not (tmp_path / "big").exists()
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 50_000


def test_the_largest_league_is_scheduled_and_one_more_game_is_refused(tmp_path: Path) -> None:
    from harness.league.schedule import MAX_GAMES, ScheduleError, round_robin
    from harness.records import BotRef

    bots = [BotRef("a", "random"), BotRef("b", "random")]
    with pytest.raises(ScheduleError, match=r"1,000,001 games \(1 pairing\)"):
        round_robin("battleline", {}, bots, MAX_GAMES + 1, 0)
    three = [*bots, BotRef("c", "random")]
    with pytest.raises(ScheduleError, match=r"1,000,002 games \(3 pairings\)"):
        round_robin("battleline", {}, three, MAX_GAMES // 3 + 1, 0)
    assert len(round_robin("battleline", {}, three, 4, 0)) == 12


def test_an_odd_games_is_played_with_a_one_line_warning(tmp_path: Path) -> None:
    out = tmp_path / "odd"
    result = runner.invoke(app, ["league", "bl", "random", "greedy", "--games", "3",
                                 "--out", str(out), "--workers", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ("tourney: warning: --games 3 is odd: the last deal of each "
                             "pairing is played from one seat only\n")
    assert "3 of 3 scheduled games stored" in result.stdout
    even = runner.invoke(app, ["league", "bl", "random", "greedy", "--games", "4",
                               "--out", str(out), "--workers", "0", "--quiet"])
    assert even.exit_code == 0, even.output
    assert even.stderr == ""
