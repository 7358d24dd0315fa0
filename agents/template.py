"""A bot template: copy this file, rename the class, and fill in ``act``.

Run it with ``tourney play battleline mybot.py random`` and check it with
``tourney validate mybot.py --game battleline``. A bot file may import the standard library and
the ``games`` package (for example ``games.registry.get(name).sample_state(observation, rng)``
gives a full state consistent with what you see, to search ahead). It must not print to talk to
the referee: anything it prints goes to its log.
"""

from __future__ import annotations

import random
from typing import Any


class MyBot:
    """One instance plays one game: ``start``, then ``act`` per decision, then ``end``."""

    def start(self, info: dict[str, Any]) -> None:
        """Optional. ``info`` holds: game, variant, seat, num_players, rules_version, rng_seed
        (for your own randomness: reproducible, and it reveals nothing of the deal), game_id,
        limits (move_time, overage in seconds) and the protocol version."""
        self.seat = info["seat"]
        self.rng = random.Random(info["rng_seed"])

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        """Required. ``observation`` is exactly what your seat may know (it always has "game",
        "seat" and "current_player"); ``legal_actions`` is the sorted list of action strings you
        may answer. Return one of them, within the move time."""
        return self.rng.choice(legal_actions)

    def end(self, result: dict[str, Any]) -> None:
        """Optional. ``result`` holds returns and scores per seat, winners, termination,
        reason, offender (the seat that forfeited, or None) and decisions."""
