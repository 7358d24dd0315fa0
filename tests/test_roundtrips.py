"""Every registered game's states survive JSON and pickle, at any point of any game."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import registry
from games.protocol import State


def _play(name: str, seed: int, choices: list[int], variant: dict[str, str]) -> State:
    """A state reached from ``seed`` by the legal actions ``choices`` pick (modulo their count)."""
    state = registry.get(name).new_game(seed, **variant)
    for choice in choices:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[choice % len(legal)])
    return state


VARIANTS: list[tuple[str, dict[str, str]]] = [
    *((name, {}) for name in registry.names()), ("warchest", {"players": "4"})]


@pytest.mark.parametrize(("name", "variant"), VARIANTS, ids=lambda v: str(v) or "default")
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), choices=st.lists(st.integers(0, 10**6), max_size=120))
def test_json_and_pickle_rebuild_the_state(name: str, variant: dict[str, str], seed: int,
                                          choices: list[int]) -> None:
    game = registry.get(name)
    state = _play(name, seed, choices, variant)
    text = json.dumps(state.to_json(), sort_keys=True)
    copies = [game.state_from_json(json.loads(text)), pickle.loads(pickle.dumps(state))]
    if not state.is_terminal():  # the copies play on exactly as the original
        action = state.legal_actions()[-1]
        for position in (state, *copies):
            position.apply(action)
    for copy in copies:
        assert _same(copy, state)


def _same(a: State, b: State) -> bool:
    """Equal as far as anyone can tell: the same JSON, moves, seat to play and views."""
    return (json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
            and a.history == b.history and a.current_player == b.current_player
            and a.is_terminal() == b.is_terminal()
            and (a.is_terminal() or a.legal_actions() == b.legal_actions())
            and all(a.observation(p) == b.observation(p) for p in range(a.num_players)))
