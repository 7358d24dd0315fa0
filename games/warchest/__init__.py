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

from games.protocol import JSON, GameInfo, Variant
from games.warchest import codec, explain, observe, render, tactics
from games.warchest.observe import sample
from games.warchest.setup import new_state
from games.warchest.state import MAX_DECISIONS, PARTS, WarChestState

RULES_VERSION = "wc-3"

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
    private={"hand": "hand_count", "facedown": "facedown_count"},
    # ``events`` (the public moves since that seat last decided) differs from seat to seat
    seat_keys=frozenset({"seat", "events"}),
)


class WarChestGame:
    """The War Chest factory (module-level :data:`GAME`)."""

    info = INFO

    def new_game(self, seed: int, **variant: str) -> WarChestState:
        return new_state(seed, INFO.resolve_variant(variant))

    def state_from_json(self, data: JSON) -> WarChestState:
        return WarChestState.from_json(data)

    def sample_state(self, observation: JSON, rng: random.Random) -> WarChestState:
        return sample(observation, rng)

    def board(self, players: int) -> list[JSON]:
        """The hexes (name, axial q and r, whether a location) the replay viewer draws."""
        from games.warchest.board import board_for

        hexes = board_for(players)
        return [{"n": hexes.name[h], "q": q, "r": r, "loc": hexes.is_location[h]}
                for h, (q, r) in enumerate(hexes.coords)]


GAME = WarChestGame()

# The state's methods that the modules above it serve (see state.Parts): given once, here.
PARTS.assemble(to_json=codec.to_json, from_json=codec.from_json, observe=observe.observe,
               why_illegal=explain.why_illegal, render=render.render,
               new_game=lambda seed, variant: GAME.new_game(seed, **variant),
               tactics=tactics.TACTICS)

__all__ = ["GAME", "INFO", "RULES_VERSION", "WarChestGame", "WarChestState"]
