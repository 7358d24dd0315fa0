"""The ladder's calibrated rungs: the stored table, a bot fit against the rungs at their
ratings, and `tourney ladder --calibrate` and `--format json` end to end."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.figures.ladder import calibrated_lines
from harness.league import ladder
from harness.league.ladder import place
from harness.league.ladder_table import (
    Calibration,
    Rung,
    calibration_for,
    place_calibrated,
    read_table,
)
from tests.league.test_ladder import duel

CHEAP_RUNGS = ("random", "greedy", "greedy:p=0.5")


def table() -> Calibration:
    rungs = (("mcts-x4=mcts:scale=4@move-time=4", "mcts-x4", 330.0), ("mcts", "mcts", 210.0),
             ("greedy", "greedy", 0.0), ("random", "random", -600.0))
    return Calibration("battleline", tuple(Rung(spec, name, elo, elo - 80, elo + 80, 60)
                                           for spec, name, elo in rungs), 20, 4901, "cmd")


def test_a_bot_that_lost_every_game_to_the_top_rung_sits_below_it() -> None:
    """A batch fit of the bot among the rungs leans on its prior where a pairing is perfect;
    against the rungs at their calibrated ratings the bot's rating comes from its own games,
    and its interval ends below the rung it never scored against."""
    games = (duel("bot", "random", 10, 0) + duel("bot", "greedy", 6, 4)
             + duel("bot", "mcts", 4, 6) + duel("bot", "mcts-x4", 0, 10))
    batch = place("bot", games)
    assert batch.fit.bot("mcts-x4").perfect == "won all"  # the old placement's weak point
    where = place_calibrated("bot", games, table())
    assert where.fit.games == 40 and where.fit.points == 20
    assert where.fit.high < 330.0 and where.fit.low > -600.0
    assert [name for name, _ in where.order()][:2] == ["mcts-x4", "mcts"] or \
        where.neighbours()[0] in ("mcts-x4", "mcts")
    assert where.order()[0][0] == "mcts-x4"
    text = "\n".join(calibrated_lines(where))
    assert "bot places between" in text and "0/10 = 0 %" in text
    data = where.as_dict()
    assert data["method"] == "calibrated" and data["lost_all"] is False
    assert data["rungs"][0] == {"rung": "mcts-x4=mcts:scale=4@move-time=4", "name": "mcts-x4",
                                "elo": 330.0, "low": 250.0, "high": 410.0, "games": 60}


def test_a_bot_that_lost_every_game_sits_below_the_bottom_rung_with_a_bound() -> None:
    games = duel("bot", "random", 0, 10) + duel("bot", "greedy", 0, 10)
    where = place_calibrated("bot", games, table())
    assert where.fit.elo == -math.inf and where.fit.low == -math.inf
    assert where.fit.high < -600.0  # below the weakest rung it lost to
    assert where.order()[-1][0] == "bot" and where.neighbours() == ("random", None)
    assert "bot lost every game: below random, at most" in where.verdict()
    data = where.as_dict()
    assert data["elo"] is None and data["low"] is None and data["lost_all"] is True
    assert data["high"] == round(where.fit.high, 1)
    json.dumps(data)  # JSON-safe


def test_a_bot_better_than_every_rung_sits_above_the_top() -> None:
    games = duel("bot", "mcts-x4", 7, 3) + duel("bot", "mcts", 8, 2)
    where = place_calibrated("bot", games, table())
    assert where.rank == 1 and where.fit.elo > 330.0
    assert "above every rung (mcts-x4 next)" in where.verdict()


def test_the_calibration_covers_only_its_own_rungs_and_rules(tmp_path: Path) -> None:
    from harness.league.ladder_table import write_table

    path = tmp_path / "t.json"
    write_table(table(), path)
    assert calibration_for("battleline", ["random", "greedy"], None, path) is not None
    assert calibration_for("battleline", ["random", "greedy:p=0.3"], None, path) is None
    assert calibration_for("battleline", ["random"], {"rules": "advanced"}, path) is None
    assert calibration_for("warchest", ["random"], None, path) is None


def test_tourney_ladder_calibrates_its_rungs_then_places_a_bot_in_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The round robin of the rungs (cheap ones here) is stored in the table, a rerun of the
    command writes the same table, and a bot is placed against the stored ratings, as JSON
    alone on stdout."""
    monkeypatch.setattr(ladder, "RUNGS", CHEAP_RUNGS)
    path = tmp_path / "table.json"
    calibrate = ["ladder", "bl", "--calibrate", "--games", "4", "--table", str(path),
                 "--out", str(tmp_path / "rr"), "--workers", "0", "-q"]
    first = CliRunner().invoke(app, calibrate)
    assert first.exit_code == 0, first.output
    assert f"-> {path}" in first.output
    written = path.read_bytes()
    stored = read_table(path)["battleline"]
    assert sorted(r.spec for r in stored.rungs) == sorted(CHEAP_RUNGS)
    assert stored.command == "tourney ladder battleline --calibrate --games 4 --seed 4901"
    again = CliRunner().invoke(app, calibrate)
    assert again.exit_code == 0 and path.read_bytes() == written
    result = CliRunner().invoke(app, [
        "ladder", "bl", "greedy:p=0.2", "--games", "4", "--table", str(path), "--out",
        str(tmp_path / "bot"), "--workers", "0", "-q", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == "battleline" and data["bot"] == "greedy:p=0.2"
    assert data["method"] == "calibrated" and data["games"] == 12
    assert [r["name"] for r in data["rungs"]] == [r.name for r in stored.rungs]
    assert set(data["versus"]) == {"random", "greedy", "greedy:p=0.5"}
    assert data["elo"] is None or data["low"] is None or data["low"] <= data["elo"] <= data["high"]
    table_text = CliRunner().invoke(app, [
        "ladder", "bl", "greedy:p=0.2", "--games", "4", "--table", str(path), "--out",
        str(tmp_path / "bot"), "--workers", "0", "-q"])
    assert "rungs at their calibrated ratings" in table_text.output
    assert "greedy:p=0.2" in table_text.output.splitlines()[-1]
    other = CliRunner().invoke(app, [  # rungs the table does not hold: batch Elo, as before
        "ladder", "bl", "greedy:p=0.2", "--rung", "random", "--rung", "greedy:p=0.7",
        "--games", "2", "--table", str(path), "--out", str(tmp_path / "other"),
        "--workers", "0", "-q", "--format", "json"])
    assert other.exit_code == 0, other.output
    batch = json.loads(other.stdout)
    assert batch["method"] == "batch" and set(batch["versus"]) == {"random", "greedy:p=0.7"}
    assert {b["bot"] for b in batch["fit"]["elo"]} == {"greedy:p=0.2", "random",
                                                      "greedy:p=0.7"}


def test_tourney_ladder_refuses_a_bad_format_and_a_missing_bot_in_one_line() -> None:
    bad = CliRunner().invoke(app, ["ladder", "bl", "greedy", "--format", "xml"])
    assert bad.exit_code == 2 and "unknown --format 'xml'; choose table or json" in bad.output
    none = CliRunner().invoke(app, ["ladder", "bl"])
    assert none.exit_code == 2 and "name the bot to place" in none.output


def test_a_round_robin_cut_by_the_clock_writes_no_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its games are not the ones their seeds give, and its ratings would be a loaded
    machine's: the command says so in one line and leaves the table alone. (A rung that always
    searches to the safety net stands in for a loaded machine.)"""
    monkeypatch.setattr(ladder, "RUNGS", ("random", "greedy", "slow=mcts:ms=5000@move-time=0.1"))
    path = tmp_path / "table.json"
    result = CliRunner().invoke(app, ["ladder", "bl", "--calibrate", "--games", "2", "--table",
                                      str(path), "--out", str(tmp_path / "rr"), "--workers",
                                      "0", "-q"])
    assert result.exit_code == 2, result.output
    assert "the table is not written" in result.output and "safety net" in result.output
    assert not path.exists()


@pytest.mark.parametrize("game", ["battleline", "warchest"])
def test_the_shipped_table_calibrates_every_rung_of_both_games_in_order(game: str) -> None:
    """The table tourney ships covers the ladder's own rungs on both games (so `tourney ladder
    GAME BOT` places against it), from a whole round robin, each rung above the one below."""
    calibration = calibration_for(game, ladder.RUNGS, None)
    assert calibration is not None, f"no calibrated rungs for {game}: tourney ladder --calibrate"
    elo = {r.name: r.elo for r in calibration.rungs}
    assert elo["greedy"] == 0 and elo["random"] < 0 < elo["mcts"] < elo["mcts-x4"]
    assert {r.games for r in calibration.rungs} == {3 * calibration.games_per_pair}
    assert calibration.command.startswith(
        f"tourney ladder {game} --calibrate --games {calibration.games_per_pair} "
        f"--seed {calibration.seed}")
    assert all(r.low < r.elo < r.high for r in calibration.rungs if r.name != "greedy")
