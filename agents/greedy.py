"""The built-in greedy bot: a one-step heuristic per game.

It dispatches on ``observation["game"]`` to ``agents.greedy_<game>.choose(observation,
legal_actions, rng)``, written alongside each game engine. For a game without such a module it
plays uniformly at random (so it still works for any registered game).

Option ``p`` (the built-in spec ``greedy:p=0.3``): with probability ``p`` a decision is a
uniformly random legal action instead of the heuristic's, a weaker rung between ``random`` and
``greedy`` for a ladder. The default, 0, draws no extra random numbers, so plain ``greedy``
plays exactly as before.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

Chooser = Callable[[dict[str, Any], list[str], random.Random], str]
Ranker = Callable[[dict[str, Any], list[str], random.Random], list[str]]


def _random_choice(observation: dict[str, Any], legal: list[str], rng: random.Random) -> str:
    return rng.choice(legal)


def chooser_for(game: str) -> Chooser:
    """The game's heuristic, or a uniform random choice if the game has none."""
    try:
        module = importlib.import_module(f"agents.greedy_{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"agents.greedy_{game}":
            raise  # the heuristic exists but is broken: say so, do not hide it
        return _random_choice
    choose: Chooser = module.choose
    return choose


def ranker_for(game: str) -> Ranker | None:
    """The game's ranking of the legal actions, best first (``ranked`` in its module), or None
    when the game has no heuristic; the ``mcts`` bot prunes its root to the best few."""
    try:
        module = importlib.import_module(f"agents.greedy_{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"agents.greedy_{game}":
            raise
        return None
    rank: Ranker | None = getattr(module, "ranked", None)
    return rank


class GreedyBot:
    """Looks one step ahead with the game's own heuristic."""

    def __init__(self, p: float = 0.0) -> None:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"greedy p={p}: give a probability from 0 to 1")
        self.p = p
        self.rng = random.Random(0)
        self.choose: Chooser | None = None

    def start(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(info.get("rng_seed", 0))
        self.choose = chooser_for(str(info["game"]))

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if self.p > 0.0 and self.rng.random() < self.p:
            return self.rng.choice(legal_actions)
        if self.choose is None:
            self.choose = chooser_for(str(observation["game"]))
        return self.choose(observation, legal_actions, self.rng)
