"""Invariants over random games: coins are conserved, hands stay small, units stay unique, the
indexes of units and control markers match the board."""

from __future__ import annotations

import random

import pytest

from games.conformance import check_game
from games.warchest import GAME
from games.warchest.state import WarChestState
from games.warchest.units import NUM_COINS, ROYAL, UNITS

VARIANTS = [
    {},
    {"players": "4"},
    {"setup": "draft"},
    {"setup": "first-game", "royal-guard": "original"},
]


def _check(s: WarChestState) -> None:
    for seat in range(s.n):
        on_board = [0] * NUM_COINS
        types_seen: dict[int, int] = {}
        for _h, t, owner, height in s.iter_units():
            if owner == seat:
                on_board[t] += height
                types_seen[t] = types_seen.get(t, 0) + 1
                assert height >= 1
        for t, count in types_seen.items():
            assert count <= UNITS[t].max_units, f"seat {seat} has {count} {UNITS[t].name} units"
        for c in range(NUM_COINS):
            total = (s.bag[seat][c] + s.hand[seat][c] + s.faceup[seat][c] + s.facedown[seat][c]
                     + s.supply[seat][c] + s.box[seat][c] + on_board[c])
            if c == ROYAL:
                expected = 1 if s.cards[seat] and not s.draft_order else 0
            elif c in s.cards[seat] and not s.draft_order:
                expected = UNITS[c].coins
            else:
                expected = 0
            assert total == expected, f"seat {seat} coin {c}: {total} != {expected}\n{s}"
        limit = 4 if any(f[0] == "use" and f[1] == seat for f in s.pending) else 3
        assert sum(s.hand[seat]) <= limit
    assert all(s.ctrl[h] == -1 for h in range(s.board.size) if not s.board.is_location[h])
    # the engine keeps its index of units in step with the board
    assert _indexes_agree(s), f"indexes out of step with the board\n{s}"


def _indexes_agree(s: WarChestState) -> bool:
    """Are the indexes of units and control markers those a fresh ``reindex()`` builds?"""
    kept = (list(s.unit_hexes), s.held)
    s.reindex()
    return kept == (s.unit_hexes, s.held)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: repr(v))
def test_random_games_keep_the_invariants(variant: dict[str, str]) -> None:
    for seed in range(3):
        s = GAME.new_game(seed, **variant)
        rng = random.Random(seed)
        while not s.is_terminal():
            _check(s)
            s.apply(rng.choice(s.legal_actions()))
        _check(s)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: repr(v))
def test_sampled_states_index_their_board(variant: dict[str, str]) -> None:
    """sample_state builds the indexes of units and markers as it sets the board."""
    for seed in range(2):
        s = GAME.new_game(seed, **variant)
        rng = random.Random(seed)
        while not s.is_terminal():
            world = GAME.sample_state(s.observation(s.current_player), rng)
            assert _indexes_agree(world), f"sampled indexes differ\n{s}"
            s.apply(rng.choice(s.legal_actions()))


def test_combined_variants_pass_conformance() -> None:
    report = check_game(GAME, {"players": "4", "royal-guard": "original"}, seeds=range(2))
    assert report.games == 2 and report.samples > 0
