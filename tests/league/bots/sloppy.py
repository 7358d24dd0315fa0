"""A weaker greedy for the SPRT tests: half of its moves are uniformly random legal actions."""

from __future__ import annotations

from typing import Any

import agents.greedy as greedy


class Sloppy(greedy.GreedyBot):
    """Greedy, except that with probability 1/2 it plays a random legal action."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if self.rng.random() < 0.5:
            return self.rng.choice(legal_actions)
        return super().act(observation, legal_actions)
