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
from games.warchest.notation import FACE_DOWN_VERBS
from games.warchest.state import WarChestState
from games.warchest.units import ROYAL, ROYAL_NAME

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
    score = _on_board(s, team)
    for seat in range(s.n):
        owned = _owned(s, seat)
        score += 2 * owned if seat % 2 == team else -2 * owned
    return float(score)


def _on_board(s: WarChestState, team: int) -> int:
    """The markers and units terms of :func:`evaluate` (for a game not yet won)."""
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
    return score


def _owned(s: WarChestState, seat: int) -> int:
    """The coins ``seat`` owns outside the supply, the Royal Coin in the bag or hand not
    counted."""
    bag, hand = s.bag[seat], s.hand[seat]
    return sum(bag) + sum(hand) + sum(s.faceup[seat]) + sum(s.facedown[seat]) - (
        1 if bag[ROYAL] + hand[ROYAL] else 0)


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


#: Per action string, its kind if it is a face-down discard, else None (see :func:`_kind`).
_KINDS: dict[str, tuple[bool, str] | None] = {}
_KINDS_CAP = 100_000  # entries kept before the memo starts afresh (bounds its memory)
_UNSEEN = (False, "")  # no action's kind: the memo has not met the action yet


def _kind(action: str) -> tuple[bool, str] | None:
    """A face-down discard's kind: whether it pays with the Royal Coin, and its verb."""
    coin, _, rest = action.partition(" ")
    verb = rest.partition(" ")[0]
    return (coin == ROYAL_NAME, verb) if verb in FACE_DOWN_VERBS else None


def quick_scores(state: WarChestState, legal_actions: list[str], team: int
                 ) -> dict[str, float]:
    """:func:`_scores` for about two thirds of the time, and the same scores for every action
    that neither ends the round nor draws a coin (``tests/warchest/test_greedy.py``):

    * a face-down discard (claim initiative, recruit, pass) leaves the board alone, so one
      trial scores every such action of its kind (its verb, and whether it pays with the Royal
      Coin, which counts as owned once discarded), unless that trial ended the round;
    * an action moves only its own seat's coins, so a trial counts only those again.

    A draw (at the end of a round, or a Warrior Priest's) refills a bag from the discards,
    which may put a Royal Coin back in it; what it draws is the sampled world's luck, which
    these scores may leave out."""
    seat = state.current_player
    sign = 2 if seat % 2 == team else -2
    others = sum((2 if other % 2 == team else -2) * _owned(state, other)
                 for other in range(state.n) if other != seat)
    scores = {}
    kinds: dict[tuple[bool, str], float] = {}
    clone = state.clone
    for action in legal_actions:
        kind = _KINDS.get(action, _UNSEEN)
        if kind is _UNSEEN:
            if len(_KINDS) >= _KINDS_CAP:
                _KINDS.clear()
            kind = _KINDS[action] = _kind(action)
        value = None if kind is None else kinds.get(kind)
        if value is None:
            trial = clone()
            trial.apply(action)
            if trial.winner >= 0:
                value = WIN if trial.winner == team else -WIN
            else:
                value = float(others + _on_board(trial, team) + sign * _owned(trial, seat))
            if kind is not None and trial.round == state.round:
                kinds[kind] = value
        scores[action] = value
    return scores


def quick_best_action(state: WarChestState, legal_actions: list[str], team: int,
                      rng: random.Random) -> str:
    """:func:`best_action` scored by :func:`quick_scores`: the ``mcts`` bot's rollout policy
    (and its tree's expansion order), where the time saved buys more iterations."""
    return _pick(quick_scores(state, legal_actions, team), rng)


def _pick(scores: dict[str, float], rng: random.Random) -> str:
    """The best-scoring action, ties broken at random."""
    top = max(scores.values())
    return rng.choice([a for a, v in scores.items() if v == top])


def best_action(state: WarChestState, legal_actions: list[str], team: int,
                rng: random.Random) -> str:
    """The action whose result on a copy of ``state`` scores best for ``team`` (ties at
    random)."""
    return _pick(_scores(state, legal_actions, team), rng)
