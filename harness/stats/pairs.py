"""Statistics of one pairing ``A`` v ``B`` over its duplicate pairs (the same deal, seats swapped).

A pair's result is A's points over its two games: 0, 0.5, 1, 1.5 or 2 (LL, LD+DL, DD+WL+LW,
WD+DW, WW), and the five counts are the **pentanomial** result. Because the two games of a pair
share the deal, their results are correlated (usually negatively: a lucky deal helps each bot
once), and the variance of the pair score is what measures the noise honestly.

* The plain W/D/L and the draw ratio count every rated game between A and B (from A's side).
* The pair figures (pentanomial, score, Elo, interval, LOS) use complete pairs only: a pair with
  a void or missing game is left out and counted in ``incomplete_pairs``; games without a pair
  id are counted in ``unpaired_games``.
* Score ``μ`` = A's mean points per game over the complete pairs; Elo = ``400·log10(μ/(1−μ))``.
  The interval maps ``μ ± z·σ/√N`` through the same function, where ``σ²`` is the variance of the
  per-pair score (points / 2) and ``N`` the number of pairs; it is infinite on a side where the
  bound leaves (0, 1). LOS = ``Φ((μ − ½)·√N / σ)``.

A game counts for the pairing when it has exactly two sides, one made only of A (one seat, or a
team of A's seats) and the other only of B.

>>> from harness.stats.elo import Result
>>> def game(x, y, pair): return Result(((x,), (y,)), (1.0, 0.0), pair_id=pair)
>>> stats = pair_stats([game("a", "b", "p1"), game("a", "b", "p1"), game("b", "a", "p2"),
...                     game("a", "b", "p2")], "a", "b")
>>> stats.pentanomial, (stats.wins, stats.draws, stats.losses), stats.summary.score
((0, 0, 1, 0, 1), (3, 0, 1), 0.75)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from harness.stats import outcome
from harness.stats.elo import z_value
from harness.stats.outcome import Result

PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
NELO_PER_T = 800.0 / math.log(10.0)  # normalised Elo of a t-value (per game) of 1


@dataclass(frozen=True, slots=True)
class PairStats:
    """Pentanomial and trinomial figures of ``a`` against ``b`` (from ``a``'s side)."""

    a: str
    b: str
    pentanomial: tuple[int, int, int, int, int]  # pairs where a took 0, ½, 1, 1½, 2 points
    wins: int
    draws: int
    losses: int
    incomplete_pairs: int  # pairs with a void or missing game, left out of the pair figures
    unpaired_games: int  # rated games without a pair id (in W/D/L only)
    void_games: int
    summary: PairSummary  # score, Elo ± interval, nElo, LOS over the complete pairs

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def draw_ratio(self) -> float:
        return self.draws / self.games if self.games else math.nan

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: non-finite numbers become None."""
        return {
            "bot": self.a, "opponent": self.b, "pairs": self.pairs,
            "pentanomial": list(self.pentanomial), "wins": self.wins, "draws": self.draws,
            "losses": self.losses, "games": self.games, "draw_ratio": _num(self.draw_ratio, 4),
            "incomplete_pairs": self.incomplete_pairs, "unpaired_games": self.unpaired_games,
            "void_games": self.void_games, **self.summary.as_dict(),
        }


@dataclass(frozen=True, slots=True)
class PairSummary:
    """What the pentanomial counts say: A's score per game, Elo with interval, normalised Elo
    and LOS. Every figure is nan when there is no pair."""

    pairs: int
    level: float
    score: float
    elo: float  # ±inf if A took all or no points
    elo_low: float
    elo_high: float
    nelo: float  # normalised Elo: (score − ½) / σ per game · 800 / ln 10 (nan if σ = 0)
    los: float  # P(A is stronger than B)

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: non-finite numbers become None."""
        return {"score": _num(self.score, 4), "elo": _num(self.elo, 2),
                "elo_low": _num(self.elo_low, 2), "elo_high": _num(self.elo_high, 2),
                "nelo": _num(self.nelo, 2), "los": _num(self.los, 4), "level": self.level}


def _num(x: float, digits: int) -> float | None:
    return round(x, digits) if math.isfinite(x) else None


MIN_PAIRS = 5  # fewer pairs than this give a score and an Elo, but no interval or LOS


def moments(pentanomial: Sequence[int]) -> tuple[int, float, float]:
    """Pairs, the mean score per game and the variance of a pair's score (its points / 2) of
    pentanomial counts; nan for the two figures when there is no pair."""
    n = sum(pentanomial)
    if n == 0:
        return 0, math.nan, math.nan
    score = sum(c * i / 4.0 for i, c in enumerate(pentanomial)) / n
    return n, score, sum(c * (i / 4.0 - score) ** 2 for i, c in enumerate(pentanomial)) / n


def summarize(pentanomial: Sequence[int], *, level: float = 0.95) -> PairSummary:
    """Figures of pentanomial counts (pairs where A took 0, ½, 1, 1½, 2 points).

    The interval, normalised Elo and LOS rest on the spread of the pairs' points, estimated from
    the pairs themselves: with fewer than :data:`MIN_PAIRS` pairs, or pairs that all scored
    alike (no spread seen), that estimate says nothing, so those figures are nan ("n/a")
    rather than a certainty from nothing (one pair used to give LOS 100 % and a zero-width
    interval).

    >>> s = summarize((0, 0, 3, 0, 2))
    >>> s.score, round(s.elo, 1), round(s.los, 4)
    (0.7, 147.2, 0.9661)
    >>> math.isnan(summarize((0, 0, 0, 1, 0)).los), math.isnan(summarize((0, 0, 0, 9, 0)).los)
    (True, True)
    """
    z = z_value(level)
    n, score, var = moments(pentanomial)
    if n == 0:
        return PairSummary(0, level, *(math.nan,) * 6)
    if n < MIN_PAIRS or var == 0:
        return PairSummary(n, level, score, elo_of_score(score), *(math.nan,) * 4)
    se = math.sqrt(var / n)
    low, high = elo_of_score(score - z * se), elo_of_score(score + z * se)
    los = NormalDist().cdf((score - 0.5) / se)
    nelo = (score - 0.5) / math.sqrt(2.0 * var) * NELO_PER_T
    return PairSummary(n, level, score, elo_of_score(score), low, high, nelo, los)


def elo_of_score(score: float) -> float:
    """Logistic Elo difference of a score in [0, 1] (±inf at the ends).

    >>> round(elo_of_score(0.75), 2)
    190.85
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _is_pairing(game: Result, a: str, b: str) -> bool:
    """Whether ``game`` is a game of a v b: two sides, one only a, the other only b."""
    if len(game.sides) != 2:
        return False
    first, second = (set(side) for side in game.sides)
    return (first, second) in (({a}, {b}), ({b}, {a}))


def _points_for(game: Result, a: str) -> float:
    """a's points in a game of the pairing (1, ½ or 0)."""
    x = 0 if a in game.sides[0] else 1
    return outcome.points(game.scores[x], game.scores[1 - x])


def pair_points(results: Iterable[Result], a: str, b: str) -> tuple[list[float], int, int]:
    """a's points over each complete pair of a v b (in first-seen pair order), the number of
    incomplete pairs (a void or missing game), and of rated games without a pair id."""
    by_pair: dict[str, list[float | None]] = {}
    unpaired = 0
    for game in results:
        if not _is_pairing(game, a, b):
            continue
        if not game.pair_id:
            unpaired += not game.void
            continue
        by_pair.setdefault(game.pair_id, []).append(None if game.void else _points_for(game, a))
    complete: list[float] = []
    incomplete = 0
    for points in by_pair.values():
        if len(points) == 2 and points[0] is not None and points[1] is not None:
            complete.append(points[0] + points[1])
        else:
            incomplete += 1
    return complete, incomplete, unpaired


def pentanomial_counts(points: Iterable[float]) -> tuple[int, int, int, int, int]:
    """Counts of pair points 0, ½, 1, 1½, 2."""
    counts = [0] * 5
    for p in points:
        counts[round(2 * p)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def pair_stats(results: Iterable[Result], a: str, b: str, *, level: float = 0.95) -> PairStats:
    """The pair statistics of ``a`` v ``b`` over ``results`` (any games; others are ignored)."""
    if a == b:
        raise ValueError(f"a pairing needs two different bots (got {a!r} twice)")
    z_value(level)  # check the level before reading the games
    games = list(results)
    wins = draws = losses = void = 0
    for game in games:
        if not _is_pairing(game, a, b):
            continue
        if game.void:
            void += 1
            continue
        points = _points_for(game, a)
        wins += points == 1.0
        draws += points == 0.5
        losses += points == 0.0
    complete, incomplete, unpaired = pair_points(games, a, b)
    penta = pentanomial_counts(complete)
    return PairStats(a, b, penta, wins, draws, losses, incomplete, unpaired, void,
                     summarize(penta, level=level))
