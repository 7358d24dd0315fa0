"""The Gymnasium environment: one seat against tourney bots of any spec, passing Gymnasium's
own environment checker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from harness.envs.single import SingleSeatEnv
from harness.records import Limits

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("game", "variant", "opponents", "seat"), [
    ("battleline", {}, ["random"], 0),
    ("battleline", {"players": "3", "rules": "advanced"}, ["greedy", "random"], 1),
    ("battleline", {"rules": "schotten-totten"}, ["mcts:iters=4"], 1),
    ("warchest", {"players": "2"}, ["greedy"], 1),
    ("warchest", {"players": "4"}, ["random"], 2),
], ids=["bl-random", "bl3-greedy", "st-mcts", "wc-greedy", "wc4-random"])
def test_gymnasium_check_env_passes(game: str, variant: dict[str, str], opponents: list[str],
                                    seat: int) -> None:
    env = SingleSeatEnv(game, variant, opponents=opponents, seat=seat)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def play_out(env: SingleSeatEnv, seed: int) -> tuple[float, int]:
    """One game with random legal actions: the last reward and the learner's decisions."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while True:
        legal = np.flatnonzero(obs["action_mask"])
        assert sorted(env.action_names[i] for i in legal) == info["legal_actions"]
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        steps += 1
        if terminated or truncated:
            return float(reward), steps


def test_a_sandboxed_bot_file_plays_the_other_seat() -> None:
    """A bot file is sandboxed, as in a league; the game runs to its end against it."""
    env = SingleSeatEnv("battleline", {"rules": "no-tactics"},
                        opponents=[str(ROOT / "agents" / "random.py")], seat=1,
                        limits=Limits(move_time=5.0))
    try:
        reward, steps = play_out(env, 3)
        assert reward in (-1.0, 0.0, 1.0) and steps > 10
    finally:
        env.close()


def test_an_illegal_action_loses_and_a_failing_opponent_loses(tmp_path: Path) -> None:
    env = SingleSeatEnv("battleline", {"rules": "no-tactics"}, opponents=["random"])
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated) == (-1.0, True) and "not legal" in info["illegal"]
    env.close()
    crash = tmp_path / "crash.py"
    crash.write_text("class Bot:\n    def act(self, observation, legal_actions):\n"
                     "        raise RuntimeError('boom')\n", encoding="utf-8")
    env = SingleSeatEnv("battleline", {"rules": "no-tactics"}, opponents=[str(crash)])
    try:
        obs, _ = env.reset(seed=1)
        _, reward, terminated, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert (reward, terminated) == (1.0, True) and "seat 1" in info["opponent_error"]
    finally:
        env.close()


def test_a_wrong_seat_or_number_of_opponents_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="seat 2 is not a seat of a 2-player game"):
        SingleSeatEnv("battleline", seat=2)
    with pytest.raises(ValueError, match="one per other seat"):
        SingleSeatEnv("battleline", {"players": "3"}, opponents=["random", "greedy", "mcts"])


class Heard:
    """A real opponent, with every ``end`` it is sent kept (then passed on to it)."""

    told: list[dict[str, Any]]

    def __init__(self, agent: object, told: list[dict[str, Any]]) -> None:
        self._agent, self.told = agent, told

    def __getattr__(self, name: str) -> object:
        return getattr(self._agent, name)

    def end(self, result: dict[str, Any], timeout: float) -> None:
        self.told.append(result)
        self._agent.end(result, timeout)  # type: ignore[attr-defined]


def test_every_opponent_still_playing_is_told_how_the_game_ended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a league, the opponents hear ``end``: the result by the rules, or the forfeit of
    the learner or of another opponent (the one that failed is not told)."""
    from harness.bots import open_agent

    told: list[dict[str, Any]] = []
    monkeypatch.setattr("harness.envs.single.open_agent",
                        lambda spec, limits: Heard(open_agent(spec, limits), told))
    env = SingleSeatEnv("battleline", {"rules": "no-tactics"}, opponents=["random"])
    reward, _ = play_out(env, 5)
    assert len(told) == 1 and told[0]["seat"] == 1 and told[0]["offender"] is None
    assert told[0]["termination"] in ("normal", "stalemate") and told[0]["returns"][0] == reward
    told.clear()
    obs, _ = env.reset(seed=1)
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # illegal: the learner forfeits
    assert [(t["termination"], t["offender"], t["returns"]) for t in told] == [
        ("illegal", 0, [-1.0, 1.0])]
    env.close()
    told.clear()
    crash = tmp_path / "crash.py"
    crash.write_text("class Bot:\n    def act(self, observation, legal_actions):\n"
                     "        raise RuntimeError('boom')\n", encoding="utf-8")
    env = SingleSeatEnv("battleline", {"players": "3"}, opponents=[str(crash), "random"])
    try:
        obs, _ = env.reset(seed=1)
        done = False
        while not done:  # the learner's turn (play, claims, draw) until seat 1 must act
            obs, _, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert [(t["seat"], t["termination"], t["offender"]) for t in told] == [
            (2, "crash", 1)]
    finally:
        env.close()
