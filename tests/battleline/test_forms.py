"""Readable and comparable Battle Line states: ``repr`` rebuilds, equality is by value."""

from __future__ import annotations

import random

import pytest

from games.battleline import GAME
from games.battleline.state import BattleLineState
from tests.battleline.helpers import position


def _played(seed: int, plies: int) -> BattleLineState:
    state = GAME.new_game(seed)
    rng = random.Random(seed)
    for _ in range(plies):
        state.apply(rng.choice(state.legal_actions()))
    return state


def test_repr_of_a_played_game_is_a_replay_that_rebuilds_it() -> None:
    state = _played(4, 25)
    text = repr(state)
    assert text.startswith("BattleLineState.replay(4, {'rules': 'standard'}, ['")
    assert eval(text) == state


@pytest.mark.parametrize("how", ["sampled", "hand-built"])
def test_repr_of_a_position_no_replay_reaches_is_its_json(how: str) -> None:
    if how == "sampled":
        state = GAME.sample_state(_played(5, 30).observation(1), random.Random(0))
    else:
        state = position([(0, 3, "r3 r4 r5")], hands=("b1", "b2"))
    text = repr(state)
    assert text.startswith("BattleLineState.from_json({")
    rebuilt = eval(text)
    assert rebuilt == state
    assert str(rebuilt) == str(state)


def test_equality_is_by_value_and_states_are_unhashable() -> None:
    a, b = _played(6, 12), _played(6, 12)
    assert a == b and a is not b
    assert a != GAME.new_game(6)
    assert a != "not a state"
    b.apply(b.legal_actions()[0])
    assert a != b
    with pytest.raises(TypeError):
        hash(a)
