"""The ladder: where a bot places among the built-in rungs, with intervals.

``tourney ladder GAME BOT`` plays a gauntlet of ``BOT`` against the rungs (by default
:data:`RUNGS`: ``random``, ``greedy``, ``mcts`` and ``mcts-x4``, the search at four times its
default budget with four times the move time, so its safety net stays as far away as the
default's: the rung above ``mcts`` for a bot that beats it) in duplicate pairs, then fits
batch Elo (:func:`harness.stats.elo.fit_elo`) over the stored games, anchored at ``greedy`` = 0
when it takes part (the middle rung: a rung that wins or loses every game gets a wide interval,
and the anchor's uncertainty would spread to everyone), and reports the bot's rank, its
neighbours with the likelihood of superiority, and its points against each rung with a Wilson
interval.

>>> wilson(15, 20)
(0.75, 0.531, 0.888)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.stats.elo import EloFit, fit_elo, z_value
from harness.stats.outcome import Result, points

RUNGS = ("random", "greedy", "mcts", "mcts-x4=mcts:scale=4@move-time=4")
ANCHOR = "greedy"
DEFAULT_GAMES = 20  # per rung: 10 duplicate pairs


def wilson(points: float, games: int, level: float = 0.95) -> tuple[float, float, float]:
    """The share of points and its Wilson score interval (a draw counts as half a point)."""
    if games == 0:
        return 0.0, 0.0, 1.0
    z = z_value(level)
    p = points / games
    denominator = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return round(p, 3), round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)


def default_out(game: str, bot: str) -> Path:
    """``results/ladder/<game>-<bot>``: one folder per game and bot, so rerunning resumes."""
    return Path("results") / "ladder" / f"{game}-{re.sub(r'[^A-Za-z0-9_.+=-]', '_', bot)}"


def rungs_for(bot: str, rungs: Sequence[str] = RUNGS) -> list[str]:
    """The rungs ``bot`` (a name) plays: all but one that is the bot itself (a rung written
    ``NAME=SPEC`` is named NAME)."""
    return [r for r in rungs if r != bot and r.partition("=")[0] != bot]


def results_of(rows: Iterable[dict[str, Any]]) -> list[Result]:
    """Rows of the games table (``bots``, ``result``, ``teams``, ``pair_id``, ``rated``) as
    the statistics' results: one side per team."""
    return [Result.from_row(row) for row in rows]


@dataclass(frozen=True)
class Placement:
    """Where ``bot`` places in ``fit``; ``versus`` maps a rung to (points, games) of the bot."""

    bot: str
    fit: EloFit
    versus: dict[str, tuple[float, int]]

    @property
    def rank(self) -> int:
        return [b.name for b in self.fit.bots].index(self.bot) + 1

    def as_dict(self) -> dict[str, Any]:
        """The placement as JSON (``tourney ladder --format json`` for a ladder without a
        calibration): the batch fit of every bot, and the bot's points against each rung."""
        fit = self.fit
        versus = {}
        for name, (got, games) in self.versus.items():
            p, low, high = wilson(got, games, fit.level)
            versus[name] = {"points": got, "games": games, "share": p, "low": low, "high": high}
        me = fit.bot(self.bot).as_dict()
        return {"bot": self.bot, "method": "batch", "level": fit.level, "elo": me["elo"],
                "low": me["low"], "high": me["high"], "games": me["games"], "rank": self.rank,
                "versus": versus, "fit": fit.as_dict()}


def place(bot: str, results: Sequence[Result], level: float = 0.95) -> Placement:
    """Fit the ratings of ``results`` and say where ``bot`` places.

    >>> games = [Result((("a",), ("b",)), (1.0, -1.0), f"p{i // 2}") for i in range(6)]
    >>> where = place("b", games)
    >>> where.rank, where.versus
    (2, {'a': (0.0, 6)})
    """
    from harness.league.service import LeagueError

    names = {name for r in results for side in r.sides for name in side}
    if bot not in names:
        raise LeagueError(f"no game of {bot!r} is stored; play the ladder first")
    fit = fit_elo(results, anchor=ANCHOR if ANCHOR in names else None, level=level)
    versus: dict[str, list[float]] = {}
    for opponent, got in meetings(bot, results):
        acc = versus.setdefault(opponent, [0.0, 0.0])
        acc[0] += got
        acc[1] += 1
    return Placement(bot, fit, {k: (v[0], int(v[1])) for k, v in versus.items()})


def meetings(bot: str, results: Iterable[Result]) -> Iterator[tuple[str, float]]:
    """``bot``'s rated two-sided games against one other bot: the opponent and the points
    ``bot`` took (1, ½ or 0)."""
    for r in results:
        if r.void or len(r.sides) != 2:
            continue
        mine = [i for i, side in enumerate(r.sides) if bot in side]
        if len(mine) != 1:
            continue
        other = r.sides[1 - mine[0]]
        if len(set(other)) != 1:
            continue
        yield other[0], points(r.scores[mine[0]], r.scores[1 - mine[0]])


def placement_of(folder: Path, bot: str, level: float = 0.95) -> Placement:
    """Where ``bot`` places among the games stored in ``folder``."""
    from harness.league import store

    table = store.load_games([folder]).games
    rows = table.select(["bots", "result", "teams", "pair_id", "rated"]).to_pylist()
    return place(bot, results_of(rows), level)
