"""War Chest's learned judgement: its features, its weights file (fit by one reproducible
command, refused in one line when it does not fit the features) and its place in ``mcts``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agents import battleline_value, learn_warchest
from agents import warchest_value as value
from agents.greedy import GreedyBot
from agents.mcts import MctsBot
from agents.value_weights import WeightsMismatch
from games import registry
from games.warchest.state import WarChestState
from harness.cli.app import app


def _positions(first: int, last: int, players: str = "2") -> list[WarChestState]:
    """Positions of greedy-against-greedy games, one a seed, 30 decisions in."""
    out = []
    for seed in range(first, last + 1):
        state = registry.get("warchest").new_game(seed, players=players)
        assert isinstance(state, WarChestState)
        bots = [GreedyBot() for _ in range(state.n)]
        for seat, bot in enumerate(bots):
            bot.start({"game": "warchest", "seat": seat, "rng_seed": seed})
        while not state.is_terminal() and len(state.history) < 30:
            seat = state.current_player
            state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
        if not state.is_terminal():
            out.append(state)
    return out


def test_the_features_are_each_teams_less_the_others() -> None:
    """Every feature is antisymmetric, so the judgement (which has no constant) is zero-sum;
    the first is the default judgement itself."""
    for state in _positions(1, 8):
        mine, stage = value.features(state, 0)
        theirs, same = value.features(state, 1)
        assert stage == same and 0.0 <= stage <= 1.0
        assert mine == pytest.approx([-x for x in theirs])
        assert mine[0] == pytest.approx(value.default_score(state))


def test_the_learned_judgement_is_a_zero_sum_chance_per_team() -> None:
    weights = value.shipped_weights()
    assert weights.constant == 0.0
    for state in _positions(9, 14):
        judge = value.learned_evaluator(state)
        values, stage = value.features(state, 0)
        chance = 1 / (1 + math.exp(-weights.logit(values, stage)))
        assert judge(state) == pytest.approx([2 * chance - 1, 1 - 2 * chance])
    four = _positions(3, 3, players="4")[0]
    assert not value.learns(four)
    assert value.learned_evaluator(four)(four) == value.evaluate(four)


def test_the_shipped_weights_say_how_they_were_made() -> None:
    """The file names its features and the command that wrote it, holds the probe positions
    as the code reads them now, and its held-out log loss is below the default judgement's."""
    data = json.loads(value.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert tuple(data["features"]) == value.FEATURES
    assert data["trained_on"]["command"].startswith("python -m agents.learn_warchest")
    assert data["probe"] == [[round(v, 6) for v in row] for row in value.probe()]
    loss = data["held_out_log_loss"]
    assert loss["learned"]["all"] < loss["heuristic_only"]["all"] < loss["coin_toss"]


@pytest.mark.parametrize("change", ["features", "probe", "garbage"])
def test_a_weights_file_that_does_not_fit_the_features_is_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    """Other feature names, features read differently since the fit (the probe differs), or
    no weights file at all: the command stops before any game with one line naming the file
    and the command that fits it again."""
    data = json.loads(value.WEIGHTS_FILE.read_text(encoding="utf-8"))
    if change == "features":
        data["features"] = ["heuristic", "markers"]
    elif change == "probe":
        data["probe"][0][1] += 1.0
    other = tmp_path / "warchest_value.json"
    other.write_text("not json" if change == "garbage" else json.dumps(data), encoding="utf-8")
    with pytest.raises(WeightsMismatch, match="make learn GAME=warchest"):
        value.read(other)
    monkeypatch.setattr(value, "WEIGHTS_FILE", other)
    value.shipped_weights.cache_clear()
    try:
        result = CliRunner().invoke(app, ["play", "wc", "mcts:learned=1", "greedy", "--seed", "3"])
        assert result.exit_code == 2, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and str(other) in lines[0] and "make learn GAME=warchest" in lines[0]
        # a bot that never judges with it is not refused
        plain = CliRunner().invoke(app, ["play", "wc", "mcts:iters=5", "greedy", "--seed", "3"])
        assert plain.exit_code == 0, plain.output
    finally:
        value.shipped_weights.cache_clear()


def test_battle_lines_weights_file_is_refused_the_same_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = json.loads(battleline_value.WEIGHTS_FILE.read_text(encoding="utf-8"))
    other = tmp_path / "battleline_value.json"
    other.write_text(json.dumps({**data, "features": ["won"]}), encoding="utf-8")
    monkeypatch.setattr(battleline_value, "WEIGHTS_FILE", other)
    battleline_value.shipped_weights.cache_clear()
    try:
        result = CliRunner().invoke(app, ["play", "bl", "mcts:scale=4", "greedy", "--seed", "3"])
        assert result.exit_code == 2
        assert "make learn GAME=battleline" in result.output and str(other) in result.output
    finally:
        battleline_value.shipped_weights.cache_clear()


def test_learning_is_one_command_that_writes_the_same_bytes_whatever_the_workers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out, workers in ((first, "1"), (second, "2")):
        assert learn_warchest.main(["--games", "5", "--workers", workers, "--quiet",
                                    "--out", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes()
    data = json.loads(first.read_text(encoding="utf-8"))
    assert data["trained_on"]["games"] == 5
    assert len(data["base"]) == len(data["late"]) == len(value.FEATURES)
    assert "held-out log loss, learned" in capsys.readouterr().out
    assert value.read(first).base == tuple(data["base"])


def test_mcts_judges_war_chest_with_it_only_when_asked() -> None:
    """Not by default (it did not earn the default: docs/mcts.md), with ``learned=1`` at the
    default's iterations (a learned iteration costs about one default one)."""
    for options, learning, budget in (({}, False, 200), ({"learned": 1}, True, 200),
                                      ({"scale": 4}, False, 800),
                                      ({"scale": 4, "learned": 1}, True, 800)):
        bot = MctsBot(**options)  # type: ignore[arg-type]
        bot.start({"game": "warchest", "seat": 0, "rng_seed": 1})
        assert (bot.learning, bot.budget()) == (learning, budget)
