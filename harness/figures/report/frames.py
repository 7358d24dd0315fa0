"""Replay frames: a stored game replayed through the engine, one view model per position.

Nothing here stores boards: a frame is rebuilt from the game's seed, variant and stored moves
every time a viewer is written. Each position gives one frame per *view*: ``truth`` (every
hand and face-down pile, as the referee sees it) and one per seat (exactly that seat's
``state.observation(seat)`` at that point, with the other seats' hidden piles as counts).

Frames are plain JSON. Consecutive frames differ in a few places, so a view is stored as its
first frame and, per move, the list of ``[path, value]`` changes (:func:`json_diff`); the viewer
applies them in order (``replay.js``).

>>> json_diff({"a": [1, 2], "b": {"c": 3}}, {"a": [1, 5], "b": {"c": 3, "d": 4}})
[[['a', 1], 5], [['b'], {'c': 3, 'd': 4}]]
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.protocol import GameError, GameInfo

JSON = Any
Path = list[str | int]


def json_diff(old: JSON, new: JSON, path: Path | None = None,
              out: list[list[Any]] | None = None) -> list[list[Any]]:
    """The changes that turn ``old`` into ``new``: ``[path, value]`` pairs, replaced whole.

    Dicts with the same keys and lists of the same length are compared item by item; anything
    else that differs is replaced at its path.
    """
    path = [] if path is None else path
    out = [] if out is None else out
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        for key, b in new.items():
            a = old[key]
            if a is not b and a != b:  # equal parts (most of them) are skipped at C speed
                json_diff(a, b, [*path, key], out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if a is not b and a != b:
                json_diff(a, b, [*path, i], out)
    elif old != new:
        out.append([path, new])
    return out


def json_patch(doc: JSON, changes: Sequence[Sequence[Any]]) -> JSON:
    """Apply :func:`json_diff`'s changes to a copy of ``doc`` (the Python twin of replay.js)."""
    doc = copy.deepcopy(doc)
    for path, value in changes:
        if not path:
            doc = copy.deepcopy(value)
            continue
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = copy.deepcopy(value)
    return doc


# ----------------------------------------------------------------------------- views per game


def _views(info: GameInfo, obs: list[JSON]) -> list[JSON]:
    """The all-seeing view and each seat's view of a position, from every seat's observation
    and what the game declares private (:meth:`games.protocol.GameInfo.truth_view` and
    :meth:`~games.protocol.GameInfo.seat_view`, which the human seat shows too)."""
    return [info.truth_view(obs), *(info.seat_view(o) for o in obs)]


def board_geometry(game: str, players: int) -> JSON:
    """The static drawing data a game's board needs (its ``board(players)``, if it has one)."""
    from games import registry

    board = getattr(registry.get(game), "board", None)
    return None if board is None else board(players)


@dataclass
class Replay:
    """A stored game rebuilt: frames per view (first + changes), and how far it replayed."""

    views: list[dict[str, Any]]  # [{"first": frame, "changes": [[[path, value], ...], ...]}]
    applied: int  # moves applied (all of them unless the rules changed under the game)
    error: str  # why replay stopped early, or ""
    final: Any  # the engine state after the last applied move


def replay_frames(game: str, seed: int, variant: dict[str, str], actions: Sequence[str]) -> Replay:
    """Replay ``actions`` from the deal and record every view of every position."""
    from games import registry

    engine = registry.get(game)
    state = engine.new_game(seed, **variant)
    seats = state.num_players
    first = _views(engine.info, [state.observation(s) for s in range(seats)])
    out: list[dict[str, Any]] = [{"first": v, "changes": []} for v in first]
    last = first
    applied, error = 0, ""
    for action in actions:
        try:
            state.apply(action)
        except GameError as exc:
            error = f"move {applied} ({action}) cannot be applied under the current rules: {exc}"
            break
        applied += 1
        now = _views(engine.info, [state.observation(s) for s in range(seats)])
        for view, before, after in zip(out, last, now, strict=True):
            view["changes"].append(json_diff(before, after))
        last = now
    return Replay(out, applied, error, state)

