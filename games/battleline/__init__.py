"""Battle Line (Reiner Knizia), with its no-tactics, advanced, Schotten-Totten and three-player
variants.

>>> from games.battleline import GAME
>>> from games.protocol import IllegalAction
>>> state = GAME.new_game(7)
>>> state.current_player, len(state.observation(0)["hand"])
(0, 7)
>>> try:
...     state.apply("pass")
... except IllegalAction as exc:
...     print(exc)
'pass' is not legal now: a troop can still be placed, so passing is not allowed
"""

from __future__ import annotations

import random

from games.battleline import codec, explain, observe, render, setup
from games.battleline.codec import from_json
from games.battleline.observe import sample
from games.battleline.setup import new_state
from games.battleline.state import (
    MAX_DECISIONS,
    PARTS,
    PLAYERS,
    RULES,
    RULES_VERSION,
    BattleLineState,
    player_count,
)
from games.protocol import JSON, GameError, GameInfo, Variant

# The state's methods that the modules above it serve (see state.Parts): given once, here.
PARTS.assemble(to_json=codec.to_json, from_json=codec.from_json, observe=observe.observe,
               why_illegal=explain.why_illegal, render=render.render, new_state=setup.new_state)

INFO = GameInfo(
    name="battleline",
    title="Battle Line",
    rules_version=RULES_VERSION,
    players=(2, 3),
    max_decisions=MAX_DECISIONS,
    variants=(
        Variant(
            key="players",
            default="2",
            choices=PLAYERS,
            help=(
                "2; or 3 (rulebook 003: nine flags in a triangle, win with 3 adjacent flags of "
                "your line or 4 flags; not with schotten-totten)"
            ),
            implicit=True,
        ),
        Variant(
            key="rules",
            default="standard",
            choices=RULES,
            help=(
                "standard; no-tactics (hand 6); advanced (claim at the start of your turn); "
                "schotten-totten (54 troops 1-9, no tactics, hand 6, advanced claiming)"
            ),
        ),
    ),
    private={"hand": "hand_sizes"},
    # what the seat knows of the others' cards and of the decks' tops, and its events
    seat_keys=frozenset({"seat", "opponent_known", "known_by_opponent", "deck_tops",
                         "known_in_hands", "known_by", "deck_tops_by", "events"}),
)


class BattleLineGame:
    """The Battle Line factory registered as ``battleline``."""

    info = INFO

    def new_game(self, seed: int, **variant: str) -> BattleLineState:
        """A new game dealt from ``seed`` (seat 0 moves first)."""
        resolved = self.info.resolve_variant(variant)
        player_count(resolved)  # refuses schotten-totten for three players
        return new_state(seed, resolved)

    def state_from_json(self, data: JSON) -> BattleLineState:
        if data.get("game") != self.info.name:
            raise GameError(f"not a Battle Line state: game={data.get('game')!r}")
        return from_json(data)

    def sample_state(self, observation: JSON, rng: random.Random) -> BattleLineState:
        """A full state consistent with a seat's observation (hidden cards dealt at random)."""
        if observation.get("game") != self.info.name:
            raise GameError(f"not a Battle Line observation: game={observation.get('game')!r}")
        return sample(observation, rng)


GAME = BattleLineGame()

__all__ = ["GAME", "INFO", "BattleLineGame", "BattleLineState"]
