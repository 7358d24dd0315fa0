"""Self-play training of a :class:`games.interop.policy.LinearPolicy` with numpy alone.

Every seat of a PettingZoo environment (:mod:`harness.envs.aec`) plays the same policy,
sampling from its softmax over the mask; at the end of each game every decision a seat took is
pushed towards (a win) or away from (a loss) its choice by the policy gradient (REINFORCE,
no baseline: the games are zero-sum). It is a starting point to copy, not a strong learner.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from games.interop.policy import LinearPolicy
from harness.envs.aec import TourneyEnv


@dataclass
class Progress:
    """What a training run did."""

    games: int = 0
    decisions: int = 0
    seconds: float = 0.0


def train(game: str, variant: Mapping[str, str] | None = None, *, seconds: float = 60.0,
          max_games: int | None = None, learning_rate: float = 0.01, seed: int = 0,
          policy: LinearPolicy | None = None) -> tuple[LinearPolicy, Progress]:
    """Train by self-play for ``seconds`` (or ``max_games`` games, whichever comes first)."""
    env = TourneyEnv(game, variant)
    policy = policy or LinearPolicy.new(env.game_name, env.variant, seed=seed)
    rng = np.random.default_rng(seed)
    done = Progress()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds and (max_games is None or done.games < max_games):
        env.reset(seed=seed * 1_000_003 + done.games)
        steps: dict[str, list[tuple[np.ndarray, list[int], int]]] = {
            a: [] for a in env.possible_agents}
        final: dict[str, float] = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                final[agent] = float(reward)
                env.step(None)
                continue
            legal = [int(i) for i in np.flatnonzero(obs["action_mask"])]
            p, _ = policy.probabilities(obs["observation"], legal)
            k = int(rng.choice(len(legal), p=p))
            steps[agent].append((obs["observation"], legal, k))
            env.step(legal[k])
            done.decisions += 1
        for agent, taken in steps.items():
            _update(policy, taken, final.get(agent, 0.0), learning_rate)
        done.games += 1
    done.seconds = time.perf_counter() - t0
    return policy, done


def _update(policy: LinearPolicy, taken: list[tuple[np.ndarray, list[int], int]],
            reward: float, lr: float) -> None:
    """One REINFORCE step for one seat's decisions of a game with result ``reward``."""
    if reward == 0.0:
        return
    for x, legal, k in taken:
        p, h = policy.probabilities(x, legal)
        g = -p
        g[k] += 1.0  # d log p[k] / d logits
        g *= reward * lr
        vl = policy.v[legal]
        policy.u += np.outer(x, g @ vl)
        policy.v[legal] += np.outer(g, h)
        policy.b[legal] += g


__all__ = ["Progress", "train"]
