"""The PettingZoo environments' cost: a random-action loop through ``harness.envs.aec`` beside
the engine's own random playout of the same games (issue 48's target: at least a third).

Both loops pick uniformly among the legal actions with one seeded generator per game; the
environment's loop is the one PettingZoo's documentation shows (``agent_iter``, ``last()``,
an action drawn from the mask with ``random.choice``), so it pays for every observation
tensor and mask.

Two more figures say how far any environment could go in that loop: the *floor*, the same loop
through an environment whose observation tensor costs nothing (a constant array; the mask is
still built from the legal actions), and the loop's own random choice from the mask, in
microseconds, beside the engine's whole decision.
"""

from __future__ import annotations

import random
import time
from typing import Any

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


def env_loop(game: str, variant: dict[str, str], games: int,
             free_tensor: bool = False) -> tuple[int, float]:
    """Decisions and seconds of ``games`` random games through the PettingZoo environment (with
    ``free_tensor``, one whose observation tensor is a constant array: the loop's floor)."""
    from harness.envs.aec import env

    environment = env(game, variant)
    if free_tensor:
        _free_tensor(environment)
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


def _free_tensor(environment: Any) -> None:
    """Make ``environment``'s observation tensor free: one constant array, the mask as ever."""
    constant = np.zeros(environment.encoder.size, dtype=np.float32)
    space = environment.space

    def observe(agent: str) -> dict[str, Any]:
        state = environment.game_state
        if state.current_player == int(agent.rsplit("_", 1)[1]):
            mask = space.mask(state.legal_actions())
        else:
            mask = np.zeros(space.size, dtype=np.int8)
        return {"observation": constant, "action_mask": mask}

    environment.observe = observe


def choice_cost(game: str, variant: dict[str, str], games: int) -> float:
    """Microseconds of the loop's random choice from a mask (``flatnonzero`` and a draw), on
    the masks of the first decisions of ``games`` games."""
    from harness.envs.aec import env

    environment = env(game, variant)
    masks = []
    for seed in range(games):
        environment.reset(seed=seed)
        masks.append(environment.observe(environment.agent_selection)["action_mask"])
    rng = random.Random(0)
    rounds = max(1, 20000 // len(masks))
    t0 = time.perf_counter()
    for _ in range(rounds):
        for mask in masks:
            int(rng.choice(np.flatnonzero(mask)))
    return (time.perf_counter() - t0) / (rounds * len(masks)) * 1e6


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
        d_free, t_free = env_loop(game, variant, games, free_tensor=True)
        figure(f"{label}: the loop's floor (a tensor that costs nothing)", d_free / t_free,
               "dec/s", f"{(d_free / t_free) / (d_eng / t_eng):.2f} of the engine's")
        figure(f"{label}: the loop's random choice from the mask", choice_cost(game, variant, 20),
               "us", f"an engine decision: {t_eng / d_eng * 1e6:.1f} us")
