"""The ladder: placement by batch Elo among the rungs, and `tourney ladder` end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.figures.ladder import placement_lines
from harness.league.ladder import RUNGS, default_out, place, results_of, rungs_for, wilson
from harness.league.limits import split_limits
from harness.league.service import LeagueError
from harness.stats.outcome import Result


def duel(a: str, b: str, a_wins: int, b_wins: int, draws: int = 0) -> list[Result]:
    """Games of ``a`` against ``b`` in pairs, seats alternating."""
    outcomes = [(1.0, -1.0)] * a_wins + [(-1.0, 1.0)] * b_wins + [(0.0, 0.0)] * draws
    games = []
    for i, (sa, sb) in enumerate(outcomes):
        pair = f"{a}-{b}-{i // 2}"
        if i % 2:
            games.append(Result(((b,), (a,)), (sb, sa), pair))
        else:
            games.append(Result(((a,), (b,)), (sa, sb), pair))
    return games


def test_wilson_interval_matches_the_hand_computed_values() -> None:
    # 15 of 20: p = .75, z = 1.96: centre (.75 + .096)/1.192, half-width 1.96 * .1027 / 1.192
    assert wilson(15, 20) == (0.75, 0.531, 0.888)
    assert wilson(0, 10) == (0.0, 0.0, 0.278)
    assert wilson(0, 0) == (0.0, 0.0, 1.0)


def test_a_bot_between_two_rungs_places_between_them() -> None:
    games = (duel("bot", "random", 9, 1) + duel("bot", "greedy", 4, 5, 1)
             + duel("bot", "mcts", 2, 8))
    where = place("bot", games)
    assert [b.name for b in where.fit.bots] == ["mcts", "greedy", "bot", "random"]
    assert where.rank == 3 and where.fit.anchor == "greedy"
    assert where.fit.bot("greedy").elo == 0.0
    assert where.versus == {"random": (9.0, 10), "greedy": (4.5, 10), "mcts": (2.0, 10)}
    text = "\n".join(placement_lines(where))
    assert "bot places 3 of 4, above random" in text and "below greedy" in text
    assert "4.5/10 = 45 %" in text


def test_team_rows_become_one_side_per_team_and_void_games_stay_void() -> None:
    rows = [{"bots": ["a", "b", "a", "b"], "result": [1.0, -1.0, 1.0, -1.0],
             "teams": [0, 1, 0, 1], "pair_id": "p", "rated": True},
            {"bots": ["b", "a"], "result": [0.0, 0.0], "teams": [0, 1], "pair_id": "q",
             "rated": False}]
    team_game, void_game = results_of(rows)
    assert team_game.sides == (("a", "a"), ("b", "b")) and team_game.scores == (1.0, -1.0)
    assert void_game.void and void_game.sides == (("b",), ("a",))


def test_a_bot_with_no_games_is_a_league_error() -> None:
    with pytest.raises(LeagueError, match="no game of 'x' is stored"):
        place("x", duel("a", "b", 1, 1))


def test_rungs_skip_the_bot_itself_and_folders_are_per_bot() -> None:
    assert rungs_for("greedy") == ["random", "mcts", "mcts-x4=mcts:scale=4@move-time=4"]
    assert rungs_for("mcts-x4") == ["random", "greedy", "mcts"]  # a rung NAME=SPEC is NAME
    assert default_out("battleline", "greedy:p=0.3") == Path(
        "results/ladder/battleline-greedy_p=0.3")


def test_the_rung_with_four_times_the_budget_has_four_times_the_move_time() -> None:
    """Its slowest Battle Line decisions come near the default 1 s (1.05 s on a busy machine
    in the 400-game duel of docs/mcts.md): at 1 s the safety net would cut its fixed budget
    short, and its games would no longer be the ones their seeds give."""
    spec, limits = split_limits(RUNGS[-1])
    assert spec == "mcts-x4=mcts:scale=4" and limits == {"move_time": 4.0}


def test_tourney_ladder_plays_the_rungs_and_prints_the_placement(tmp_path: Path) -> None:
    out = tmp_path / "ladder"
    args = ["ladder", "bl", "greedy:p=0.5", "--rung", "random", "--rung", "greedy",
            "--games", "4", "--out", str(out), "--workers", "0", "-q",
            "--table", str(tmp_path / "no-table.json")]  # no calibrated rungs: batch Elo
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "played 8 games" in result.output
    assert "batch Elo (greedy = 0)" in result.output
    assert "greedy:p=0.5 places" in result.output and "of 3" in result.output
    again = CliRunner().invoke(app, args)  # rerunning resumes: nothing new to play
    assert again.exit_code == 0 and "played 0 games" in again.output


def test_tourney_ladder_rejects_a_bad_option_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["ladder", "bl", "greedy:p=2", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "greedy option p=2: give a probability from 0 to 1" in result.output


def test_a_builtin_with_options_is_its_own_bot_in_a_league_and_resumes(tmp_path: Path) -> None:
    import json

    out = tmp_path / "lg"
    args = ["league", "bl", "greedy", "greedy:p=.5", "--games", "2", "--out", str(out),
            "--workers", "0", "-q"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0 and "played 2 games" in first.output, first.output
    bots = json.loads((out / "league.json").read_text())["bots"]
    assert [(b["name"], b["spec"]) for b in bots] == [("greedy", "greedy"),
                                                      ("greedy:p=0.5", "greedy:p=.5")]
    again = CliRunner().invoke(app, ["league", "--resume", "--out", str(out), "-q",
                                     "--workers", "0"])
    assert again.exit_code == 0 and "played 0 games" in again.output, again.output
