"""War Chest: the bag-building hex game for 2 players or 2 against 2.

>>> state = GAME.new_game(7)
>>> state.num_players, len(state.cards[0]), sum(state.hand[0])
(2, 4, 3)
>>> action = state.legal_actions()[0]
>>> state.apply(action)
>>> state.history == [action]
True
"""

from __future__ import annotations

import random

from games.protocol import JSON, GameInfo, Variant, VariantError
from games.warchest.state import MAX_DECISIONS, WarChestState
from games.warchest.units import FIRST_GAME, NUM_TYPES
from games.warchest.view import sample

RULES_VERSION = "wc-2"

INFO = GameInfo(
    name="warchest",
    title="War Chest",
    rules_version=RULES_VERSION,
    players=(2, 4),
    max_decisions=MAX_DECISIONS,
    variants=(
        Variant("players", "2", ("2", "4"), "2 players, or 4 players in two teams"),
        Variant("setup", "random", ("random", "first-game", "draft"),
                "unit cards: random deal, the rulebook's first-game armies, or a 1-2-2-2-1 "
                "draft (first-game and draft are 2-player only)"),
        Variant("royal-guard", "revised", ("revised", "original"),
                "Royal Guard tactic: revised card (move up to 2 onto a location you control) or "
                "the 2018 printing (a 1-hex move), both paid with the Royal Coin"),
    ),
    teams={4: (0, 1, 0, 1)},  # partners sit opposite: seats 0 and 2 against 1 and 3
)


class WarChestGame:
    """The War Chest factory (module-level :data:`GAME`)."""

    info = INFO

    def new_game(self, seed: int, **variant: str) -> WarChestState:
        var = INFO.resolve_variant(variant)
        players = int(var["players"])
        if players == 4 and var["setup"] != "random":
            raise VariantError(
                f"warchest setup={var['setup']} is for 2 players only; with players=4 use "
                "setup=random (each player is dealt 3 unit cards)"
            )
        s = WarChestState(seed, var)
        s.place_start_markers()
        if var["setup"] == "draft":
            deck = s.shuffled(list(range(NUM_TYPES)))
            s.draft_pool = sorted(deck[:8])
            first = s.rand_below(2)
            second = 1 - first
            s.draft_order = [first, second, second, first, first, second, second, first]
            s.initiative = second
            return s
        if var["setup"] == "first-game":
            s.cards = [sorted(FIRST_GAME[0]), sorted(FIRST_GAME[1])]
            s.initiative = 0
        else:
            per = 4 if players == 2 else 3
            deck = s.shuffled(list(range(NUM_TYPES)))
            s.cards = [sorted(deck[p * per:(p + 1) * per]) for p in range(players)]
            s.initiative = s.rand_below(players)
        s.start_play()
        return s

    def state_from_json(self, data: JSON) -> WarChestState:
        return WarChestState.from_json(data)

    def sample_state(self, observation: JSON, rng: random.Random) -> WarChestState:
        return sample(observation, rng)


GAME = WarChestGame()

__all__ = ["GAME", "INFO", "RULES_VERSION", "WarChestGame", "WarChestState"]
