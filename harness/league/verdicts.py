"""`tourney ratings` in full: the batch Elo fit with intervals and LOS beside TrueSkill, and the
pair statistics of every pairing, as a model of plain rows (:func:`leaderboard_rows`,
:func:`as_json`, ...) that :mod:`harness.figures.verdicts` renders in every format and the
Python API (:mod:`harness.api`) hands over as tables.

TrueSkill (:mod:`harness.stats.ratings`) rates games one at a time: a live estimate, good for a
progress bar or a league that is still running. The batch fit (:mod:`harness.stats.elo`) uses
every game at once and gives an interval: the final word. Both read the same stored rows; teams
come from each row's ``teams`` column (War Chest 2 against 2: a team plays at its members' mean
rating), a void game is counted and left out.

>>> rows = [{"game_id": f"g{i}", "bots": ["a", "b"] if i % 2 else ["b", "a"],
...          "result": [1.0, -1.0] if i % 2 else [-1.0, 1.0], "termination": "normal",
...          "offender": None, "rated": True, "teams": None, "pair_id": f"p{i // 2}"}
...         for i in range(8)]
>>> rated = rate(rows)
>>> [b.name for b in rated.fit.bots], rated.fit.bots[0].perfect, rated.pairs[0].pentanomial
(['a', 'b'], 'won all', (0, 0, 0, 0, 4))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.stats import outcome, ratings
from harness.stats.elo import INTERVALS, EloFit, Interval, fit_elo
from harness.stats.outcome import Result
from harness.stats.pairs import PairStats, pair_stats

Row = Mapping[str, Any]  # a row of the games table (game_id, bots, result, ... pair_id)
COLUMNS = outcome.COLUMNS


class RatingsInputError(ValueError):
    """Options the fit cannot use (an anchor not in the pool, a level outside (0, 1))."""


@dataclass(frozen=True)
class Rated:
    """Everything `tourney ratings` shows: TrueSkill, the batch fit, the pairings."""

    board: ratings.Leaderboard
    fit: EloFit
    pairs: list[PairStats]


def interval(name: str) -> Interval:
    """An interval method by name (``curvature`` or ``bootstrap``)."""
    if name == "curvature":
        return "curvature"
    if name == "bootstrap":
        return "bootstrap"
    raise RatingsInputError(f"unknown --interval {name!r}; choose one of {', '.join(INTERVALS)}")


def pairings(results: Sequence[Result]) -> list[tuple[str, str]]:
    """Every two bots that met as the only bot of each side of a two-sided game, sorted."""
    seen: set[tuple[str, str]] = set()
    for r in results:
        if len(r.sides) != 2:
            continue
        x, y = ({*side} for side in r.sides)
        if len(x) == len(y) == 1 and x != y:
            a, b = sorted((*x, *y))
            seen.add((a, b))
    return sorted(seen)


def rate(rows: Sequence[Row], *, anchor: str | None = None, level: float = 0.95,
         interval: Interval = "curvature", draw_probability: float | None = None,
         bootstrap_samples: int = 1000) -> Rated:
    """TrueSkill, the Elo fit and the pair statistics of the stored ``rows``."""
    results = [Result.from_row(r) for r in rows]
    board = ratings.leaderboard(results, draw_probability)
    try:
        fit = fit_elo(results, anchor=anchor, level=level, interval=interval,
                      bootstrap_samples=bootstrap_samples)
    except ValueError as exc:
        raise RatingsInputError(str(exc)) from None
    rank = {b.name: i for i, b in enumerate(fit.bots)}
    pairs = []
    for a, b in pairings(results):
        first, second = (a, b) if rank.get(a, math.inf) <= rank.get(b, math.inf) else (b, a)
        pairs.append(pair_stats(results, first, second, level=level))
    pairs.sort(key=lambda p: (rank.get(p.a, math.inf), rank.get(p.b, math.inf)))
    return Rated(board, fit, pairs)


def only(rated: Rated, keep: set[str]) -> Rated:
    """The same figures shown for the bots in ``keep`` alone (a living league's latest
    versions, or a filter): the fit stays the fit of every game, nothing is refitted."""
    import dataclasses

    fit = rated.fit
    idx = [i for i, b in enumerate(fit.bots) if b.name in keep]
    fit = dataclasses.replace(
        fit, bots=tuple(fit.bots[i] for i in idx),
        los=tuple(tuple(fit.los[i][j] for j in idx) for i in idx))
    board = dataclasses.replace(
        rated.board, bots=[b for b in rated.board.bots if b.name in keep],
        h2h={k: v for k, v in rated.board.h2h.items() if k[0] in keep and k[1] in keep})
    return Rated(board, fit, [p for p in rated.pairs if p.a in keep and p.b in keep])


# ----------------------------------------------------------------------------- figures


def _num(x: float | None, digits: int) -> float | None:
    return round(x, digits) if x is not None and math.isfinite(x) else None


def trueskill_rows(board: ratings.Leaderboard) -> list[dict[str, Any]]:
    """One plain dict per bot, best first (the json/csv form)."""
    out: list[dict[str, Any]] = []
    for rank, s in enumerate(board.bots, start=1):
        out.append({
            "rank": rank, "bot": s.name, "mu": round(s.mu, 3), "sigma": round(s.sigma, 3),
            "rating": round(s.rating, 3), "games": s.games, "wins": s.wins, "draws": s.draws,
            "losses": s.losses, "score": round(s.score, 4),
            "forfeits": s.forfeit_total, **{f"forfeits_{k}": v for k, v in s.forfeits.items()},
        })
    return out


def h2h_rows(board: ratings.Leaderboard) -> list[dict[str, Any]]:
    names = [s.name for s in board.bots]
    return [
        {"bot": a, "opponent": b, "score": round(board.h2h[(a, b)][0], 4),
         "games": board.h2h[(a, b)][1]}
        for a in names for b in names if (a, b) in board.h2h
    ]


def leaderboard_rows(rated: Rated) -> list[dict[str, Any]]:
    """One dict per bot, best first by Elo: the Elo figures, then TrueSkill's and the counts.

    Bots without a rated game (only void games) come last, their Elo figures None.
    """
    trueskill = {row["bot"]: row for row in trueskill_rows(rated.board)}
    order = [b.name for b in rated.fit.bots]
    order += [name for name in trueskill if name not in order]
    out = []
    for rank, name in enumerate(order, start=1):
        ts = {k: v for k, v in trueskill.get(name, {"bot": name}).items() if k != "rank"}
        elo: dict[str, Any] = {"elo": None, "elo_low": None, "elo_high": None, "elo_se": None,
                               "perfect": None, "pool": None}
        if name in order[:len(rated.fit.bots)]:
            b = rated.fit.bot(name)
            elo = {"elo": _num(b.elo, 1), "elo_low": _num(b.low, 1),
                   "elo_high": _num(b.high, 1), "elo_se": _num(b.se, 1),
                   "perfect": b.perfect, "pool": b.component}
        out.append({"rank": rank, **ts, **elo})
    return out


def los_rows(rated: Rated) -> list[dict[str, Any]]:
    """LOS of every ordered pair of comparable bots, with the head-to-head score when they met."""
    names = [b.name for b in rated.fit.bots]
    out = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            value = rated.fit.los[i][j]
            if i == j or value is None:
                continue
            rate, games = rated.board.h2h.get((a, b), (None, 0))
            out.append({"bot": a, "opponent": b, "los": _num(value, 4),
                        "score": _num(rate, 4), "games": games})
    return out


def notes(rated: Rated) -> list[str]:
    """What a reader must know about the fit: perfect records, pools that cannot be compared."""
    fit = rated.fit
    out = []
    for b in fit.bots:
        if b.perfect is not None:
            out.append(f"{b.name} {b.perfect} {b.games} of its games: its Elo is held finite by "
                       f"the prior ({fit.prior}) and its interval is wide")
    if len(fit.components) > 1:
        pools = "; ".join("{" + ", ".join(c) + "}" for c in fit.components)
        out.append(f"these pools never met, even through others, and cannot be compared: "
                   f"{pools}; each is centred on its own mean and has no LOS across pools")
    return out


def method_line(fit: EloFit) -> str:
    zero = f"{fit.anchor} = 0" if fit.anchor else "0 = the pool's mean"
    return (f"Elo: Bradley-Terry fit over {fit.rated_games} rated games (a draw is half a "
            f"win, a team plays at its members' mean; prior: {fit.prior}), {zero}; "
            f"{100 * fit.level:g}% interval from the {fit.method}")


TRUESKILL_LINE = ("TrueSkill (mu, sigma, mu-3σ): a live estimate, rated game by game in game-id "
                  "order; the Elo fit above is the final word")


def as_json(rated: Rated, *, h2h: bool = False) -> dict[str, Any]:
    """Every figure: leaderboard, the fit's settings, LOS matrix, pair statistics, notes."""
    fit = rated.fit.as_dict()
    data: dict[str, Any] = {
        "leaderboard": leaderboard_rows(rated),
        "elo": {k: v for k, v in fit.items() if k not in ("elo", "los")}
        | {"bootstrap_samples": rated.fit.bootstrap_samples},
        "los": fit["los"],
        "pairs": [p.as_dict() for p in rated.pairs],
        "notes": notes(rated),
        "draw_probability": round(rated.board.draw_probability, 4),
        "rated_games": rated.board.rated_games, "void_games": rated.board.void_games,
    }
    if h2h:
        data["h2h"] = h2h_rows(rated.board)
    return data
