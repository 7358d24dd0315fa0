"""Readable and rebuildable forms of a War Chest state: repr, equality, JSON, pickle."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from games.warchest import GAME
from games.warchest.codec import from_json, to_json
from games.warchest.state import WarChestState
from tests.warchest.builder import position


def _played(seed: int, plies: int, **variant: str) -> WarChestState:
    s = GAME.new_game(seed, **variant)
    rng = random.Random(seed)
    for _ in range(plies):
        s.apply(rng.choice(s.legal_actions()))
    return s


def _rebuild(text: str) -> WarChestState:
    out = eval(text, {"WarChestState": WarChestState})  # the repr's own promise
    assert isinstance(out, WarChestState)
    return out


@pytest.mark.parametrize("variant", [{}, {"players": "4"}, {"setup": "draft"}])
def test_repr_of_a_played_game_is_a_replay_that_rebuilds_it(variant: dict[str, str]) -> None:
    s = _played(5, 40, **variant)
    text = repr(s)
    assert text.startswith("WarChestState.replay(5, ")
    assert _rebuild(text) == s


def test_repr_of_positions_no_replay_reaches_is_their_json() -> None:
    built = position("archer@f4:0 knight@f6:1", hands={0: "archer", 1: "royal"})
    played = _played(2, 30)
    sampled = GAME.sample_state(played.observation(0), random.Random(1))
    for s in (built, sampled):
        text = repr(s)
        assert text.startswith("WarChestState.from_json(")
        assert _rebuild(text) == s


def test_equality_is_by_value_and_states_are_not_hashable() -> None:
    a, b = _played(3, 25), _played(3, 25)
    assert a == b and a is not b
    b.apply(b.legal_actions()[0])
    assert a != b
    assert a != to_json(a)  # a dict is never equal to a state
    with pytest.raises(TypeError):
        hash(a)


def test_json_and_pickle_round_trips_keep_pending_effects() -> None:
    # a Royal Guard attacked with a coin in supply: a guard frame is pending
    s = position("swordsman@f4:0 royal-guard@g4:1", hands={0: "swordsman", 1: "royal"},
                 supply={1: "royal-guard"})
    s.apply("swordsman f4 attack g4")
    assert s.pending and s.pending[-1][0] == "guard"
    assert from_json(json.loads(json.dumps(to_json(s)))) == s
    assert pickle.loads(pickle.dumps(s)) == s
    assert pickle.loads(pickle.dumps(s)).legal_actions() == s.legal_actions()
