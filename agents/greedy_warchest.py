"""A one-step War Chest heuristic: try every legal action on a sampled state, keep the best.

``choose(observation, legal_actions, rng)`` deals the hidden coins at random
(``sample_state``), applies each legal action to a copy and scores the result for the acting
team: winning outright, control markers, coins on the board, units standing on locations they
could control next, closeness to such locations, and coins owned outside the supply. Ties are
broken at random. Uses only the public games package.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import compress
from operator import itemgetter
from typing import Any

from games import registry
from games.warchest.board import Board
from games.warchest.state import WarChestState
from games.warchest.units import ROYAL

WIN = 1_000_000.0


#: Per board, team and control markers on the locations: the markers term's difference, and per
#: hex what a unit standing there adds to its value beyond its coins, for a unit of ``team``
#: and for one of the other team (see :func:`_markers`).
_Found = tuple[int, list[int], list[int]]
_MARKERS: dict[tuple[int, int, tuple[int, ...]], _Found] = {}
_MARKERS_CAP = 100_000  # entries kept before the cache starts afresh (bounds its memory)
#: Per board: the control markers on its locations, read in one call (the cache key).
_AT_LOCATIONS: dict[Board, Callable[[list[int]], tuple[int, ...]]] = {}


def _markers(s: WarChestState, team: int, key: tuple[int, int, tuple[int, ...]]) -> _Found:
    """Markers placed by ``team`` less the other team's, and per hex the bonus of a unit of
    ``team`` and of a unit of the other team there, for the control markers in ``key``.

    A unit on a location its team does not control is one control action away from a marker
    (+25); else a unit of ``team`` loses 3 per step to the nearest location ``team`` does not
    control (its targets; nothing if it controls them all).
    """
    b = s.board
    mine = theirs = 0
    targets = []
    ctrl = [-1] * b.size
    for h, k in zip(b.locations, key[2], strict=True):
        ctrl[h] = k
        if k == team:
            mine += 1
        else:
            targets.append(h)
            if k >= 0:
                theirs += 1
    dist = b.dist
    near = [min(dist[h][x] for x in targets) for h in range(b.size)] if targets else None
    is_location = b.is_location
    own = [25 if is_location[h] and ctrl[h] != team else -3 * near[h] if near is not None else 0
           for h in range(b.size)]
    other = [25 if is_location[h] and ctrl[h] != 1 - team else 0 for h in range(b.size)]
    if len(_MARKERS) >= _MARKERS_CAP:
        _MARKERS.clear()
    found = _MARKERS[key] = (mine - theirs, own, other)
    return found


def evaluate(s: WarChestState, team: int) -> float:
    """Score of a position for ``team`` (higher is better).

    Every term is a whole number, so the sum is kept in ints and is exact.
    """
    if s.winner >= 0:
        return WIN if s.winner == team else -WIN
    b = s.board
    at_locations = _AT_LOCATIONS.get(b)
    if at_locations is None:
        at_locations = _AT_LOCATIONS[b] = itemgetter(*b.locations)
    key = (b.players, team, at_locations(s.ctrl))
    found = _MARKERS.get(key)
    if found is None:
        found = _markers(s, team, key)
    markers, own, other = found
    score = 100 * markers
    cell_owner, cell_h = s.cell_owner, s.cell_h
    # a unit is worth 12 and 5 per coin, plus its hex's bonus; the occupied hexes are those of
    # non-zero height (an empty hex has height 0)
    for h in compress(range(len(cell_h)), cell_h):
        if cell_owner[h] % 2 == team:
            score += 12 + 5 * cell_h[h] + own[h]
        else:
            score -= 12 + 5 * cell_h[h] + other[h]
    # coins owned outside the supply, the Royal Coin in the bag or hand not counted
    for seat in range(s.n):
        bag, hand = s.bag[seat], s.hand[seat]
        owned = sum(bag) + sum(hand) + sum(s.faceup[seat]) + sum(
            s.facedown[seat]) - (1 if bag[ROYAL] + hand[ROYAL] else 0)
        score += 2 * owned if seat % 2 == team else -2 * owned
    return float(score)


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
