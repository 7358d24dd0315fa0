"""Setting up a War Chest game: control markers, then unit cards by the chosen set-up.

The state's own generator (seeded from the game seed) drives every random choice, so a game
is a pure function of its seed, variant and actions.

>>> state = new_state(7, {"players": "2", "setup": "first-game", "royal-guard": "revised"})
>>> [len(c) for c in state.cards], state.initiative, sum(state.hand[0])
([4, 4], 0, 3)
"""

from __future__ import annotations

from games.protocol import VariantError
from games.warchest.state import WarChestState
from games.warchest.units import FIRST_GAME, NUM_TYPES

#: Draft order for 2 players by pick: first drafter, second drafter (1-2-2-2-1).
DRAFT_PATTERN = (0, 1, 1, 0, 0, 1, 1, 0)


def new_state(seed: int, variant: dict[str, str]) -> WarChestState:
    """A new game (``variant`` already resolved): drafting, or round 1 drawn and ready."""
    players = int(variant["players"])
    if players == 4 and variant["setup"] != "random":
        raise VariantError(
            f"warchest setup={variant['setup']} is for 2 players only; with players=4 use "
            "setup=random (each player is dealt 3 unit cards)"
        )
    s = WarChestState(seed, variant)
    s.place_start_markers()
    if variant["setup"] == "draft":
        deck = s.shuffled(list(range(NUM_TYPES)))
        s.draft_pool = sorted(deck[:8])
        first = s.rand_below(2)
        s.draft_order = [first if k == 0 else 1 - first for k in DRAFT_PATTERN]
        s.initiative = 1 - first  # the second drafter
        return s
    if variant["setup"] == "first-game":
        s.cards = [sorted(FIRST_GAME[0]), sorted(FIRST_GAME[1])]
        s.initiative = 0
    else:
        per = 4 if players == 2 else 3
        deck = s.shuffled(list(range(NUM_TYPES)))
        s.cards = [sorted(deck[p * per:(p + 1) * per]) for p in range(players)]
        s.initiative = s.rand_below(players)
    s.start_play()
    return s
