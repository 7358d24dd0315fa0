"""The built-in random bot: a uniformly random legal action.

An ordinary bot file, as a user could write it. Its randomness comes from ``info["rng_seed"]``
(derived by the referee from the game's seed and this bot's seat), so games reproduce.
"""

from __future__ import annotations

import random
from typing import Any


class RandomBot:
    """Picks uniformly among the legal actions."""

    def __init__(self) -> None:
        self.rng: random.Random | None = None  # seeded in start (seeding costs microseconds)

    def start(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(info.get("rng_seed", 0))

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        rng = self.rng
        if rng is None:  # asked to act without a start: seed 0, as documented for rng_seed
            rng = self.rng = random.Random(0)
        return rng.choice(legal_actions)
