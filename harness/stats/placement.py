"""One bot's Elo against opponents of known ratings: the ladder's placement among its rungs.

The rungs' ratings are fixed (calibrated by their own round robin); only the bot's rating
``r`` is fit. A game against an opponent rated ``R`` gives the bot ``s`` points (1 a win, ½ a
draw, 0 a loss) with expected ``p(r) = 1 / (1 + 10 ** ((R - r) / 400))``, and the fit
maximises the likelihood ``L(r) = Σ s·ln p + (1 − s)·ln(1 − p)``, which is concave in ``r``.

The interval is the likelihood-ratio one: every ``r`` with ``2·(L(r̂) − L(r)) ≤ z²``. Unlike a
curvature interval it stays honest at the edges: a bot that lost every game has its best
rating at minus infinity and an interval ``(−∞, upper]``, an upper bound under the weakest
opponent it lost to, where a batch fit of everyone at once would give it a finite rating
with a symmetric interval as wide as the prior allows. Games are taken as independent; the
seat-swapped games of a duplicate pair are usually negatively correlated, so the interval is
on the wide (safe) side.

>>> fit = rate_against([(0.0, 1.0), (0.0, 0.0)] * 5)
>>> round(fit.elo), round(fit.low), round(fit.high)
(0, -222, 222)
>>> fit = rate_against([(200.0, 0.0)] * 10 + [(0.0, 0.0)] * 4)
>>> fit.elo, fit.low, round(fit.high) < 0
(-inf, -inf, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from harness.stats.elo import z_value

_SCALE = math.log(10.0) / 400.0
_REACH = 4000.0  # Elo beyond the opponents' range searched before a bound is called infinite


@dataclass(frozen=True)
class FixedFit:
    """The bot's rating, its interval (either end may be infinite) and its games."""

    elo: float
    low: float
    high: float
    games: int
    points: float
    level: float


def _loglik(r: float, games: Sequence[tuple[float, float]]) -> float:
    total = 0.0
    for rating, s in games:
        x = (r - rating) * _SCALE  # ln p = -log1p(e^-x), ln(1 - p) = -log1p(e^x)
        if s:
            total -= s * (math.log1p(math.exp(-x)) if x > -30 else -x)
        if s < 1.0:
            total -= (1.0 - s) * (math.log1p(math.exp(x)) if x < 30 else x)
    return total


def _slope(r: float, games: Sequence[tuple[float, float]]) -> float:
    return sum(s - 1.0 / (1.0 + math.exp(-(r - rating) * _SCALE)) for rating, s in games)


def _bisect(low: float, high: float, above: bool, test: object) -> float:
    """The point between ``low`` and ``high`` where ``test`` changes (``test(low) == above``)."""
    assert callable(test)
    for _ in range(100):
        mid = 0.5 * (low + high)
        if bool(test(mid)) == above:
            low = mid
        else:
            high = mid
        if abs(high - low) < 1e-6:
            break
    return 0.5 * (low + high)


def rate_against(games: Sequence[tuple[float, float]], level: float = 0.95) -> FixedFit:
    """Fit a rating to ``games``: (the opponent's fixed rating, the bot's points 0 .. 1)."""
    if not games:
        return FixedFit(math.nan, -math.inf, math.inf, 0, 0.0, level)
    points = sum(s for _, s in games)
    ratings = [rating for rating, _ in games]
    lo, hi = min(ratings) - _REACH, max(ratings) + _REACH
    if points <= 0.0:
        elo, best = -math.inf, 0.0
    elif points >= len(games):
        elo, best = math.inf, 0.0
    else:
        elo = _bisect(lo, hi, True, lambda r: _slope(r, games) > 0)
        best = _loglik(elo, games)
    cut = best - z_value(level) ** 2 / 2.0

    def inside(r: float) -> bool:
        return _loglik(r, games) >= cut

    start = elo if math.isfinite(elo) else (lo if elo < 0 else hi)
    low = -math.inf if elo == -math.inf or inside(lo) else _bisect(start, lo, True, inside)
    high = math.inf if elo == math.inf or inside(hi) else _bisect(start, hi, True, inside)
    return FixedFit(elo, low, high, len(games), points, level)
