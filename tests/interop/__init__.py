"""Tests of games.interop: action spaces, observation tensors, the OpenSpiel games, the policy."""

from __future__ import annotations

import random
from collections.abc import Iterator

from games import registry
from games.protocol import State

# every game and variant the environments offer (Schotten-Totten is two-player only; the War
# Chest draft is two-player only)
VARIANTS: list[tuple[str, dict[str, str]]] = [
    *[("battleline", {"players": p, "rules": r})
      for r in ("standard", "no-tactics", "advanced", "schotten-totten") for p in ("2", "3")
      if not (r == "schotten-totten" and p == "3")],
    ("warchest", {"players": "2", "setup": "random"}),
    ("warchest", {"players": "2", "setup": "draft", "royal-guard": "original"}),
    ("warchest", {"players": "4", "setup": "random"}),
]
IDS = [f"{g}-" + "-".join(v.values()) for g, v in VARIANTS]


def random_states(game: str, variant: dict[str, str], seeds: range) -> Iterator[State]:
    """Every state of random games from ``seeds`` (the same object, moved on)."""
    engine, _ = registry.choose(game, variant)
    for seed in seeds:
        rng = random.Random(seed)
        state = engine.new_game(seed, **variant)
        while not state.is_terminal():
            yield state
            state.apply(rng.choice(state.legal_actions()))
