"""A one-step War Chest heuristic: try every legal action on a sampled state, keep the best.

``choose(observation, legal_actions, rng)`` deals the hidden coins at random
(``sample_state``), applies each legal action to a copy and scores the result for the acting
team: winning outright, control markers, coins on the board, units standing on locations they
could control next, closeness to such locations, and coins owned outside the supply. Ties are
broken at random. Uses only the public games package.
"""

from __future__ import annotations

import random
from typing import Any

from games import registry
from games.warchest.state import WarChestState
from games.warchest.units import ROYAL

WIN = 1_000_000.0


#: Per board and set of target locations: each hex's distance to the nearest target.
_NEAREST: dict[tuple[int, tuple[int, ...]], list[int]] = {}


def _nearest(s: WarChestState, targets: tuple[int, ...]) -> list[int]:
    """Each hex's distance to the nearest of ``targets`` (cached: a board has few such sets)."""
    key = (s.board.players, targets)
    near = _NEAREST.get(key)
    if near is None:
        dist = s.board.dist
        near = _NEAREST[key] = [min(dist[h][x] for x in targets) for h in range(s.board.size)]
    return near


def evaluate(s: WarChestState, team: int) -> float:
    """Score of a position for ``team`` (higher is better)."""
    if s.winner >= 0:
        return WIN if s.winner == team else -WIN
    b = s.board
    ctrl = s.ctrl
    mine = theirs = 0
    targets = []
    for h in b.locations:
        k = ctrl[h]
        if k == team:
            mine += 1
        else:
            targets.append(h)
            if k >= 0:
                theirs += 1
    score = 100.0 * (mine - theirs)
    near = _nearest(s, tuple(targets)) if targets else None
    is_location = b.is_location
    cell_owner, cell_h = s.cell_owner, s.cell_h
    for h, t in enumerate(s.cell_unit):
        if t < 0:
            continue
        side = cell_owner[h] % 2
        sign = 1.0 if side == team else -1.0
        value = 12.0 + 5.0 * cell_h[h]
        if is_location[h] and ctrl[h] != side:
            value += 25.0  # one control action away from a marker
        elif near is not None and sign > 0:
            value -= 3.0 * near[h]
        score += sign * value
    for seat in range(s.n):
        sign = 1.0 if seat % 2 == team else -1.0
        bag, hand = s.bag[seat], s.hand[seat]
        owned = sum(bag) + sum(hand) + sum(s.faceup[seat]) + sum(
            s.facedown[seat]) - (1 if bag[ROYAL] + hand[ROYAL] else 0)
        score += sign * 2.0 * owned
    return score


def choose(observation: dict[str, Any], legal_actions: list[str], rng: random.Random) -> str:
    """The legal action whose result scores best for the acting seat's team."""
    if len(legal_actions) == 1:
        return legal_actions[0]
    game = registry.get("warchest")
    base = game.sample_state(observation, rng)
    assert isinstance(base, WarChestState)
    return best_action(base, legal_actions, int(observation["seat"]) % 2, rng)


def ranked(observation: dict[str, Any], legal_actions: list[str],
           rng: random.Random) -> list[str]:
    """``legal_actions`` best first by the heuristic on one sampled state, :func:`choose`'s
    answer (for the same ``rng``) first (for ``mcts``, which searches the best few)."""
    if len(legal_actions) == 1:
        return list(legal_actions)
    base = registry.get("warchest").sample_state(observation, rng)
    assert isinstance(base, WarChestState)
    scores = _scores(base, legal_actions, int(observation["seat"]) % 2)
    pick = _pick(scores, rng)
    return [pick, *sorted((a for a in legal_actions if a != pick), key=lambda a: -scores[a])]


def _scores(state: WarChestState, legal_actions: list[str], team: int) -> dict[str, float]:
    """Each action's result on a copy of ``state``, scored for ``team``."""
    scores = {}
    for action in legal_actions:
        trial = state.clone()
        trial.apply(action)
        scores[action] = evaluate(trial, team)
    return scores


def _pick(scores: dict[str, float], rng: random.Random) -> str:
    """The best-scoring action, ties broken at random."""
    top = max(scores.values())
    return rng.choice([a for a, v in scores.items() if v == top])


def best_action(state: WarChestState, legal_actions: list[str], team: int,
                rng: random.Random) -> str:
    """The action whose result on a copy of ``state`` scores best for ``team`` (ties at random);
    also the rollout policy of the ``mcts`` bot, which already holds a full state."""
    return _pick(_scores(state, legal_actions, team), rng)
