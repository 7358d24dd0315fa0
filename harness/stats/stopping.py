"""Figures of an SPRT that account for its stopping rule: a median-unbiased Elo, an interval
with the coverage it claims, and an LOS.

The fixed-sample figures of :func:`harness.stats.pairs.summarize` assume the number of pairs
was fixed in advance. An SPRT stops when its LLR crosses a bound, that is where the pairs
happened to look extreme, so read at that moment they lean away from 0 and their 95 % interval
covers the truth in only about 90 % of tests (simulated with elo0 = 0, elo1 = 30 normalised; at
a true elo1, Elo +24.3, the mean fixed-sample Elo was +32.0). The figures here read the test as
what it was: a path that was stopped.

The approach is fishtest's (``server/fishtest/stats/sprt.py`` and ``brownian.py``, after Michel
Van den Bergh's notes on the GSPRT): the LLR is treated as a Brownian motion in the number of
pairs, with the drift and variance per pair of the normal approximation

    drift(s) = (s − (s0 + s1)/2) · (s1 − s0) / v,    variance = (s1 − s0)² / v

where ``s`` is the true score per game, ``s0``, ``s1`` the hypotheses' scores and ``v`` the
variance of a pair's score (``docs/statistics.md``, "GSPRT"). The test's outcome is the point
(T, y) where the path stopped: at a bound, or still inside at T when the cap (or Ctrl-C) came
first. Outcomes are ordered from bad to good for the new bot (stopped at the lower bound early,
..., late; still inside, by y; stopped at the upper bound late, ..., early), and

    F(s) = P_s(an outcome worse than the observed one)

decreases with ``s``. The median-unbiased estimate solves F(s) = ½; the interval's ends solve
F(s) = 1 − (1 − level)/2 and (1 − level)/2; the LOS is F(½), the chance, were the bots equal, of
an outcome worse than this one (as the fixed-sample LOS is). Far from the bounds F is the normal
distribution function, so for a test that ran to its cap far inside them the figures are the
fixed-sample ones.

Our computation of F is our own: the density of the path still inside at T by the method of
images, and the chance it stopped at the lower bound by T from the same density through the
Markov property at T (closed forms in Φ throughout). Like fishtest's, the figures are
approximations that are good for small Elo differences (where the normal approximation of the
LLR holds) and only qualitative for large ones; ``tests/stats/test_stopping.py`` checks their
coverage by simulation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harness.stats.elo import z_value
from harness.stats.pairs import MIN_PAIRS, NELO_PER_T, elo_of_score, moments
from harness.stats.sprt import SprtParams, Verdict, logistic_score

Exit = Literal["lower", "upper", "inside"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_FLAT = 1e-8  # |θ|·(b − a) below this: the tilt of h is treated as flat (error about 1e-8)
_MAX_IMAGES = 2000  # image pairs each side; more are needed only for absurd outcomes


# ----------------------------------------------------------------------------- the normal law


def _log_ndtr(z: float) -> float:
    """log Φ(z), accurate far into the lower tail."""
    if z > -35.0:
        return math.log(0.5 * math.erfc(-z / math.sqrt(2.0)))
    r = 1.0 / (z * z)  # the asymptotic series of Mills' ratio
    return (-0.5 * z * z - math.log(-z) - _LOG_SQRT_2PI
            + math.log1p(-r + 3.0 * r * r - 15.0 * r ** 3 + 105.0 * r ** 4))


def _log_mass(z1: float, z2: float) -> float:
    """log(Φ(z2) − Φ(z1)) for z1 ≤ z2 (−inf when the mass is 0), without cancelling tails."""
    if z1 >= z2:
        return -math.inf
    if z1 > 0.0:  # both in the upper tail: the mirrored lower tail is exact
        z1, z2 = -z2, -z1
    if z2 <= 0.0:
        hi = _log_ndtr(z2)
        lo = _log_ndtr(z1) if z1 > -math.inf else -math.inf
        return hi + math.log1p(-math.exp(lo - hi)) if lo < hi else -math.inf
    lower_tail = 0.5 * math.erfc(-z1 / math.sqrt(2.0)) if z1 > -math.inf else 0.0
    upper_tail = 0.5 * math.erfc(z2 / math.sqrt(2.0))
    return math.log(max(1.0 - lower_tail - upper_tail, 1e-300))


def _pdf(z: float) -> float:
    return math.exp(-0.5 * z * z - _LOG_SQRT_2PI) if abs(z) < 40.0 else 0.0


# ----------------------------------------------------------------------------- stopped paths


def worse_than(drift: float, variance: float, lower: float, upper: float, t: float,
               y: float) -> float:
    """The chance that a Brownian motion with ``drift`` and ``variance`` per unit time, started
    at 0 and stopped on leaving (``lower``, ``upper``), ends worse than the outcome (t, y):
    stopped at ``lower`` before t, or still inside at t below y. With y = upper that is the
    chance of not reaching ``upper`` by t; with y = lower, of stopping at ``lower`` by t.

    >>> round(worse_than(0.0, 1.0, -1e9, 1e9, 4.0, 2.0), 6)  # no bound in reach: Φ(2 / √4)
    0.841345
    """
    if not (lower < 0.0 < upper and variance > 0.0 and t > 0.0):
        raise ValueError(f"no stopped path to read: bounds ({lower:g}, {upper:g}), variance "
                         f"{variance:g}, time {t:g}")
    y = min(max(y, lower), upper)
    if drift < 0.0:  # mirrored, the drift is positive and better is worse
        return 1.0 - worse_than(-drift, variance, -upper, -lower, t, -y)
    sd = math.sqrt(variance * t)
    width = upper - lower
    theta = drift / variance  # the drift's exponential tilt
    shift = drift * t
    k_max = min(int(4.5 * sd / width) + 3, _MAX_IMAGES)  # images past this weigh < e^-40
    # The density of the path still inside at t is Σ_c sign·e^(θc)·φ(x − c − shift) over the
    # images c = 2kw (+) and 2·lower + 2kw (−): integrate it below y, and over (lower, upper).
    images = [(2.0 * k * width + extra, sign) for k in range(-k_max, k_max + 1)
              for extra, sign in ((0.0, 1.0), (2.0 * lower, -1.0))]
    below = inside = 0.0
    for c, sign in images:
        z_lo = (lower - c - shift) / sd
        below += sign * math.exp(theta * c + _log_mass(z_lo, (y - c - shift) / sd))
        inside += sign * math.exp(theta * c + _log_mass(z_lo, (upper - c - shift) / sd))
    # A path inside at t at x goes on to stop at lower with chance h(x); so the chance it stopped
    # at lower by t is h(0) − ∫ density · h over (lower, upper).
    if theta * width < _FLAT:  # h(x) = (upper − x) / width
        moment = 0.0  # ∫ x · density
        for c, sign in images:
            z_lo, z_hi = (lower - c - shift) / sd, (upper - c - shift) / sd
            mass = math.exp(theta * c + _log_mass(z_lo, z_hi))
            moment += sign * ((c + shift) * mass
                              + sd * math.exp(theta * c) * (_pdf(z_lo) - _pdf(z_hi)))
        stopped_lower = upper / width - (upper * inside - moment) / width
    else:  # h(x) = (e^(−2θ(x − lower)) − e^(−2θw)) / (1 − e^(−2θw))
        tilted = 0.0  # ∫ density · e^(−2θ(x − lower)): the same sum with the drift reversed
        for c, sign in images:
            tilted += sign * math.exp(theta * (2.0 * lower - c) + _log_mass(
                (lower - c + shift) / sd, (upper - c + shift) / sd))
        far = math.exp(-2.0 * theta * width)
        norm = -math.expm1(-2.0 * theta * width)
        h0 = math.exp(2.0 * theta * lower) * -math.expm1(-2.0 * theta * upper) / norm
        stopped_lower = h0 - (tilted - far * inside) / norm
    return min(max(stopped_lower + below, 0.0), 1.0)


def expected_time_to_exit(drift: float, variance: float, lower: float, upper: float,
                          y: float) -> float:
    """Expected further time until a Brownian motion at y leaves (lower, upper) (Wald's
    identity: E[exit − y] = drift · E[time]).

    >>> expected_time_to_exit(0.0, 2.0, -3.0, 3.0, 1.0)  # (upper − y)(y − lower) / variance
    4.0
    """
    if not lower <= y <= upper:
        return 0.0
    if drift < 0.0:
        return expected_time_to_exit(-drift, variance, -upper, -lower, -y)
    width = upper - lower
    theta = drift / variance
    if theta * width < 1e-6:
        return (upper - y) * (y - lower) / variance
    # the chance of leaving at upper from y: (1 − e^(−2θ(y − lower))) / (1 − e^(−2θw))
    p_upper = math.expm1(-2.0 * theta * (y - lower)) / math.expm1(-2.0 * theta * width)
    return (p_upper * (upper - y) + (1.0 - p_upper) * (lower - y)) / drift


# ----------------------------------------------------------------------------- the SPRT's read


@dataclass(frozen=True, slots=True)
class Brownian:
    """An SPRT's pairs read as a stopped Brownian motion of the LLR (time in pairs).

    ``s0``, ``s1``: the hypotheses as scores per game; ``v``: the variance of a pair's score
    (points / 2) over the pairs; ``lower``, ``upper``: Wald's bounds; ``t``, ``y``: where the
    path stopped, ``exit`` which way."""

    s0: float
    s1: float
    v: float
    lower: float
    upper: float
    t: float
    y: float
    exit: Exit

    @property
    def variance(self) -> float:
        return (self.s1 - self.s0) ** 2 / self.v

    def drift(self, score: float) -> float:
        """The LLR's drift per pair when the true score per game is ``score``."""
        return (score - 0.5 * (self.s0 + self.s1)) * (self.s1 - self.s0) / self.v

    def worse(self, score: float) -> float:
        """F(score): the chance of an outcome worse than this one at that true score."""
        return worse_than(self.drift(score), self.variance, self.lower, self.upper, self.t,
                          self.y)

    def score_at(self, chance: float) -> float:
        """The score s with F(s) = chance (0 or 1 when no score in between gives it)."""
        lo, hi = 0.0, 1.0
        f_lo, f_hi = self.worse(lo) - chance, self.worse(hi) - chance
        if f_lo <= 0.0:
            return lo
        if f_hi >= 0.0:
            return hi
        side = 0
        for _ in range(200):  # regula falsi, Illinois variant: F falls from f_lo > 0 to f_hi < 0
            mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
            if not lo < mid < hi:
                mid = 0.5 * (lo + hi)
            f_mid = self.worse(mid) - chance
            if f_mid > 0.0:
                lo, f_lo = mid, f_mid
                if side == 1:
                    f_hi *= 0.5
                side = 1
            else:
                hi, f_hi = mid, f_mid
                if side == -1:
                    f_lo *= 0.5
                side = -1
            if hi - lo < 1e-12 or f_mid == 0.0:
                break
        return 0.5 * (lo + hi) if hi - lo < 1e-12 else mid



def hypothesis_scores(params: SprtParams, v: float) -> tuple[float, float]:
    """elo0 and elo1 as scores per game: logistic, or ½ + nElo / (800 / ln 10) · σ per game with
    σ = √(2v) (the pair variance's per-game equivalent)."""
    if params.model == "logistic":
        return logistic_score(params.elo0), logistic_score(params.elo1)
    sigma = math.sqrt(2.0 * v)
    return 0.5 + params.elo0 / NELO_PER_T * sigma, 0.5 + params.elo1 / NELO_PER_T * sigma


def read_path(counts: Sequence[int], params: SprtParams,
              verdict: Verdict | None) -> Brownian | None:
    """The stopped path of a test with these pentanomial counts and this verdict (None: too few
    pairs, or no spread in them, to say anything; as for the fixed-sample figures).

    The position is the LLR's normal approximation N·drift(ŝ), a function of the score, so the
    model's figures are those of the data. A verdict is a stop at its bound: after N pairs, or,
    where the approximation has overshot the bound, when its straight line from 0 reached it
    (fishtest's correction for the overshoot). A test without a verdict (cap, Ctrl-C) is a path
    still inside at N, unless the approximation already lies past a bound (read as a stop
    there)."""
    n, score, v = moments(counts)
    if n < MIN_PAIRS or not v > 0.0:
        return None
    s0, s1 = hypothesis_scores(params, v)
    path = Brownian(s0, s1, v, params.lower, params.upper, float(n), 0.0, "inside")
    slope = path.drift(score)
    y = n * slope
    exit: Exit = "inside"
    if verdict == "H1" or y >= params.upper:
        exit, bound = "upper", params.upper
    elif verdict == "H0" or y <= params.lower:
        exit, bound = "lower", params.lower
    if exit == "inside":
        return Brownian(s0, s1, v, params.lower, params.upper, float(n), y, exit)
    t = bound / slope if slope * bound > 0.0 and abs(y) > abs(bound) else float(n)
    return Brownian(s0, s1, v, params.lower, params.upper, t, bound, exit)


def pairs_left_slowest(counts: Sequence[int], llr: float, jumps: Sequence[float], lower: float,
                       upper: float, level: float = 0.95) -> float | None:
    """The expected number of pairs still to play at the slowest plausible strength: the
    largest expected time for the LLR to leave (``lower``, ``upper``) from ``llr`` (Wald's, for
    a Brownian LLR) over the drifts the pairs so far allow. The drift per pair is estimated as
    ``llr / N``, its spread from the LLR's ``jumps`` (its change for each of the five pair
    outcomes under the current fit) over the pairs, with an interval at ``level``. The slowest
    drift is usually 0 (a true strength halfway between the hypotheses), where a test takes
    longest; once the pairs rule that out, the estimate falls to the strength they show. None
    before :data:`~harness.stats.pairs.MIN_PAIRS` pairs, or while every pair has the same
    result.

    Simulated (``tests/stats/test_stopping.py``), the estimate is near the truth halfway between
    the hypotheses (the GSPRT's LLR varies some 7 % more per pair than its jumps say, so it is
    somewhat short there) and too long elsewhere, the more so the farther the strength is.

    >>> round(pairs_left_slowest((5, 5, 5, 5, 5), 0.0, (-1, -0.5, 0, 0.5, 1), -3.0, 3.0))
    18
    """
    n = sum(counts)
    if n < MIN_PAIRS or sum(1 for c in counts if c) < 2:
        return None
    if not lower < llr < upper:
        return 0.0
    mean = sum(c * j for c, j in zip(counts, jumps, strict=True)) / n
    variance = sum(c * (j - mean) ** 2 for c, j in zip(counts, jumps, strict=True)) / n
    if not variance > 0.0:
        return None
    drift = llr / n
    half = z_value(level) * math.sqrt(variance / n)
    drifts = [drift + half * (i / 20.0 - 1.0) for i in range(41)]
    if abs(drift) < half:
        drifts.append(0.0)
    return max(expected_time_to_exit(d, variance, lower, upper, llr) for d in drifts)


# ----------------------------------------------------------------------------- the figures


@dataclass(frozen=True, slots=True)
class StoppedFigures:
    """Median-unbiased score, Elo and normalised Elo with the interval at ``level``, and the LOS,
    of an SPRT read as a stopped path (nan: too few pairs, or none differ)."""

    level: float
    score: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float
    nelo: float
    nelo_low: float
    nelo_high: float
    los: float
    exit: Exit | None  # how the test's end was read (None: not read)

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: non-finite numbers become None."""
        def num(x: float, digits: int) -> float | None:
            return round(x, digits) if math.isfinite(x) else None

        return {"method": "median-unbiased, accounting for the SPRT's stopping rule",
                "level": self.level, "score": num(self.score, 4),
                "score_low": num(self.score_low, 4), "score_high": num(self.score_high, 4),
                "elo": num(self.elo, 2), "elo_low": num(self.elo_low, 2),
                "elo_high": num(self.elo_high, 2), "nelo": num(self.nelo, 2),
                "nelo_low": num(self.nelo_low, 2), "nelo_high": num(self.nelo_high, 2),
                "los": num(self.los, 4), "read_as": self.exit}


def stopped_figures(counts: Sequence[int], params: SprtParams, verdict: Verdict | None,
                    level: float = 0.95) -> StoppedFigures:
    """The figures of an SPRT with these counts and verdict that account for its stop.

    The README's example, H1 accepted after 48 pairs (fixed-sample Elo +293.0, 95 %: +212.0 to
    +413.7):

    >>> f = stopped_figures((1, 0, 13, 0, 34), SprtParams(0, 20), "H1")
    >>> round(f.elo, 1), round(f.elo_low, 1), round(f.elo_high, 1), f.exit
    (288.4, 186.5, 463.7, 'upper')
    """
    z_value(level)  # checks the level
    path = read_path(counts, params, verdict)
    if path is None:
        return StoppedFigures(level, *(math.nan,) * 10, None)
    tail = (1.0 - level) / 2.0
    low, mid, high = (path.score_at(c) for c in (1.0 - tail, 0.5, tail))
    sigma = math.sqrt(2.0 * path.v)

    def nelo(s: float) -> float:
        return (s - 0.5) / sigma * NELO_PER_T

    return StoppedFigures(level, mid, low, high, elo_of_score(mid), elo_of_score(low),
                          elo_of_score(high), nelo(mid), nelo(low), nelo(high),
                          path.worse(0.5), path.exit)
