"""The PettingZoo environments' cost: a random-action loop through ``harness.envs.aec`` beside
the engine's own random playout of the same games (issue 48's target: at least a third).

Both loops pick uniformly among the legal actions with one seeded generator per game; the
environment's loop is the one PettingZoo's documentation shows (``agent_iter``, ``last()``,
an action drawn from the mask with ``random.choice``), so it pays for every observation
tensor and mask.
"""

from __future__ import annotations

import random
import time

import numpy as np

from bench import figure
from games import registry

CASES = (("battleline", {"rules": "standard"}), ("battleline", {"players": "3"}),
         ("warchest", {"players": "2"}), ("warchest", {"players": "4"}))


def engine_loop(game: str, variant: dict[str, str], games: int) -> tuple[int, float]:
    """Decisions and seconds of ``games`` random playouts through the engine."""
    chosen, _ = registry.choose(game, variant)
    decisions = 0
    t0 = time.perf_counter()
    for seed in range(games):
        state = chosen.new_game(seed, **variant)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions, time.perf_counter() - t0


def env_loop(game: str, variant: dict[str, str], games: int) -> tuple[int, float]:
    """Decisions and seconds of ``games`` random games through the PettingZoo environment."""
    from harness.envs.aec import env

    environment = env(game, variant)
    decisions = 0
    t0 = time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        environment.reset(seed=seed)
        for _ in environment.agent_iter():
            obs, _, term, trunc, _ = environment.last()
            if term or trunc:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                decisions += 1
            environment.step(action)
    return decisions, time.perf_counter() - t0


def run(quick: bool) -> None:
    """Decisions per second of both loops, and their ratio, per game and variant."""
    for game, variant in CASES:
        games = (3 if quick else 20) if game == "warchest" else (20 if quick else 200)
        d_env, t_env = env_loop(game, variant, games)
        d_eng, t_eng = engine_loop(game, variant, games)
        label = f"{game} " + " ".join(f"{k}={v}" for k, v in variant.items())
        figure(f"{label}: engine random playout", d_eng / t_eng, "dec/s")
        figure(f"{label}: PettingZoo random loop", d_env / t_env, "dec/s",
               f"{(d_env / t_env) / (d_eng / t_eng):.2f} of the engine's; target >= 0.33")
