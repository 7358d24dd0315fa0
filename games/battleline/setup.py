"""Setting up a Battle Line game: shuffle both decks from the seed and deal the opening hands
(to two players, or three with ``players=3``).

>>> state = new_state(7, {"rules": "no-tactics"})
>>> [h.bit_count() for h in state.hands], len(state.decks[0]), len(state.decks[1])
([6, 6], 48, 0)
"""

from __future__ import annotations

import random

from games.battleline.cards import NUM_CARDS, NUM_TROOPS, iter_bits, shuffle
from games.battleline.state import BattleLineState


def new_state(seed: int, variant: dict[str, str]) -> BattleLineState:
    """A freshly dealt game (``variant`` already resolved by the game's info)."""
    state = BattleLineState(seed, variant)
    deal(state)
    return state


_TROOP_IDS: dict[int, tuple[int, ...]] = {}


def _troop_ids(troop_all: int) -> tuple[int, ...]:
    """The troop ids of a deck mask, lowest first (built once per rules choice)."""
    ids = _TROOP_IDS.get(troop_all)
    if ids is None:
        ids = _TROOP_IDS[troop_all] = tuple(iter_bits(troop_all))
    return ids


def deal(state: BattleLineState) -> None:
    """Shuffle both decks from the state's seed and deal the opening hands (seat 0 starts)."""
    rng = random.Random(state.seed)
    troops = list(_troop_ids(state.troop_all))
    shuffle(rng, troops)
    tactics = list(range(NUM_TROOPS, NUM_CARDS)) if state.tactics_on else []
    shuffle(rng, tactics)
    state.decks = [troops, tactics]
    for seat in range(state.n):
        for _ in range(state.hand_size):
            state.hands[seat] |= 1 << troops.pop()
    state.start_turn()
