"""A one-step War Chest heuristic: try every legal action on a sampled state, keep the best.

``choose(observation, legal_actions, rng)`` deals the hidden coins at random
(``sample_state``), applies each legal action to a copy and scores the result for the acting
team: winning outright, control markers, coins on the board, units standing on locations they
could control next, closeness to such locations, and coins owned outside the supply. Ties are
broken at random. Uses only the public games package.
"""

from __future__ import annotations

import random
from itertools import compress
from typing import Any

from games import registry
from games.warchest.state import WarChestState
from games.warchest.units import ROYAL

WIN = 1_000_000.0


#: Per board, team and control markers on the locations: the markers term's difference and
#: each hex's distance to the nearest location the team does not hold (None: it holds all).
_MARKERS: dict[tuple[int, int, tuple[int, ...]], tuple[int, list[int] | None]] = {}
_MARKERS_CAP = 100_000  # entries kept before the cache starts afresh (bounds its memory)


def _markers(s: WarChestState, team: int, key: tuple[int, int, tuple[int, ...]]
             ) -> tuple[int, list[int] | None]:
    """Markers placed by ``team`` less the other team's, and the distance table to its
    targets (the locations it does not control), for the control markers in ``key``."""
    b = s.board
    mine = theirs = 0
    targets = []
    for h, k in zip(b.locations, key[2], strict=True):
        if k == team:
            mine += 1
        else:
            targets.append(h)
            if k >= 0:
                theirs += 1
    dist = b.dist
    near = [min(dist[h][x] for x in targets) for h in range(b.size)] if targets else None
    if len(_MARKERS) >= _MARKERS_CAP:
        _MARKERS.clear()
    found = _MARKERS[key] = (mine - theirs, near)
    return found


def evaluate(s: WarChestState, team: int) -> float:
    """Score of a position for ``team`` (higher is better)."""
    if s.winner >= 0:
        return WIN if s.winner == team else -WIN
    b = s.board
    ctrl = s.ctrl
    key = (b.players, team, tuple(map(ctrl.__getitem__, b.locations)))
    found = _MARKERS.get(key)
    if found is None:
        found = _markers(s, team, key)
    markers, near = found
    score = 100.0 * markers
    is_location = b.is_location
    cell_owner, cell_h = s.cell_owner, s.cell_h
    # the occupied hexes are those of non-zero height (an empty hex has height 0)
    for h in compress(range(len(cell_h)), cell_h):
        side = cell_owner[h] % 2
        value = 12.0 + 5.0 * cell_h[h]
        if is_location[h] and ctrl[h] != side:
            value += 25.0  # one control action away from a marker
        elif near is not None and side == team:
            value -= 3.0 * near[h]
        if side == team:
            score += value
        else:
            score -= value
    for seat in range(s.n):
        bag, hand = s.bag[seat], s.hand[seat]
        owned = sum(bag) + sum(hand) + sum(s.faceup[seat]) + sum(
            s.facedown[seat]) - (1 if bag[ROYAL] + hand[ROYAL] else 0)
        score += (2.0 if seat % 2 == team else -2.0) * owned
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
