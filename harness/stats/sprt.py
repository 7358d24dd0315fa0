"""The generalised sequential probability ratio test (GSPRT) on pentanomial pair results.

After every finished duplicate pair the test compares two hypotheses about the new bot's
strength against the old: H0 "Elo = elo0" and H1 "Elo = elo1". Only the Elo is fixed by a
hypothesis; the rest of the distribution of pair results (draws, how correlated the two games
of a pair are) is estimated from the data, by maximum likelihood under each hypothesis. The
log-likelihood ratio of the two fitted distributions,

    LLR = Σ_i n_i · log(p1_i / p0_i)

over the five pair outcomes i (A's points 0, ½, 1, 1½, 2 over a pair), is compared with Wald's
bounds ``log(β / (1 − α))`` (accept H0 at or below) and ``log((1 − β) / α)`` (accept H1 at or
above). ``docs/statistics.md`` derives the constrained fit and works examples through.

Elo models (fishtest's meaning of elo0/elo1; ``normalized`` is the default there and here):

* ``normalized``: ``nElo = (μ − ½) / σ_g · 800 / ln 10`` where ``μ`` is the mean score per game
  and ``σ_g = √2 · sd(pair score / 2)`` the standard deviation per game. Equal to the logistic Elo
  for independent games without draws; it measures a difference in units of the noise, so the
  number of games it takes does not depend on the draw ratio.
* ``logistic``: the plain Elo of the mean score, ``μ = 1 / (1 + 10^(−Elo/400))``.

>>> test = Sprt(SprtParams(elo0=0, elo1=10))
>>> round(test.params.lower, 4), round(test.params.upper, 4)
(-2.9444, 2.9444)
>>> for points in [2.0, 1.5, 1.0, 1.0, 0.5]:
...     _ = test.update(points)
>>> test.counts, test.verdict
((0, 1, 2, 1, 1), None)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harness.stats.pairs import PAIR_POINTS, PairSummary, summarize

Model = Literal["normalized", "logistic"]
MODELS: tuple[str, ...] = ("normalized", "logistic")
Verdict = Literal["H0", "H1"]

NELO_PER_T = 800.0 / math.log(10.0)  # normalised Elo of a t-value (per game) of 1
REGULARIZE = 1e-3  # pseudo-count given to an outcome never seen, so the fit is defined from pair 1
SCORES = tuple(p / 2.0 for p in PAIR_POINTS)  # per-game score of each outcome: 0, ¼, ½, ¾, 1
_KEYS = ("elo0", "elo1", "alpha", "beta", "model")
SPEC_HELP = "elo0=0,elo1=10,alpha=0.05,beta=0.05[,model=normalized|logistic]"


@dataclass(frozen=True, slots=True)
class SprtParams:
    """The test's four parameters (fishtest's meaning) and its Elo model."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "normalized"

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"SPRT {name} must be a finite number (got {getattr(self, name)})")
        if self.elo0 >= self.elo1:
            raise ValueError(f"SPRT elo0 must be below elo1 (got elo0={self.elo0:g}, "
                             f"elo1={self.elo1:g}); e.g. elo0=0,elo1=10")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise ValueError(f"SPRT {name} must be within (0, 0.5) (got "
                                 f"{getattr(self, name):g}); 0.05 is usual")
        if self.model not in MODELS:
            raise ValueError(f"unknown SPRT Elo model {self.model!r}; choose one of "
                             f"{', '.join(MODELS)}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: log(β / (1 − α))."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: log((1 − β) / α)."""
        return math.log((1.0 - self.beta) / self.alpha)

    def as_dict(self) -> dict[str, Any]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model, "lower": round(self.lower, 4),
                "upper": round(self.upper, 4)}


def parse_sprt(spec: str) -> SprtParams:
    """Parse ``elo0=0,elo1=10,alpha=0.05,beta=0.05`` (alpha, beta default 0.05; ``model=`` may
    follow). Raises ValueError with one line that names the problem and the expected form.

    >>> parse_sprt("elo0=0,elo1=5,model=logistic")
    SprtParams(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05, model='logistic')
    """
    values: dict[str, str] = {}
    for part in spec.split(","):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in _KEYS:
            raise ValueError(f"cannot read SPRT setting {part.strip()!r}; write {SPEC_HELP}")
        if key in values:
            raise ValueError(f"SPRT setting {key} is given twice; write {SPEC_HELP}")
        values[key] = value.strip()
    missing = [k for k in ("elo0", "elo1") if k not in values]
    if missing:
        raise ValueError(f"SPRT needs {' and '.join(missing)}; write {SPEC_HELP}")
    numbers: dict[str, float] = {}
    for key in ("elo0", "elo1", "alpha", "beta"):
        if key in values:
            try:
                numbers[key] = float(values[key])
            except ValueError:
                raise ValueError(f"SPRT {key}={values[key]!r} is not a number; "
                                 f"write {SPEC_HELP}") from None
    model = values.get("model", "normalized")
    if model not in MODELS:
        raise ValueError(f"unknown SPRT Elo model {model!r}; choose one of {', '.join(MODELS)}")
    return SprtParams(numbers["elo0"], numbers["elo1"], numbers.get("alpha", 0.05),
                      numbers.get("beta", 0.05), "logistic" if model == "logistic" else
                      "normalized")


# ----------------------------------------------------------------------------- the fit


def logistic_score(elo: float) -> float:
    """Expected score of an Elo difference: 1 / (1 + 10^(−elo/400))."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


class _Infeasible(ArithmeticError):
    """No reweighting of the outcomes meets the constraint as linearised here."""


def _solve_lambda(p_hat: Sequence[float], v: Sequence[float], start: float) -> float:
    """The root of h(λ) = Σ p̂_i v_i / (1 + λ v_i), decreasing on where every 1 + λ v_i > 0."""
    hi_v, lo_v = max(v), min(v)
    if hi_v <= 0.0 or lo_v >= 0.0:
        raise _Infeasible
    lo, hi = -1.0 / hi_v, -1.0 / lo_v
    lam = start if lo < start < hi else 0.0
    for _ in range(100):
        h = dh = 0.0
        for p, x in zip(p_hat, v, strict=True):
            d = 1.0 / (1.0 + lam * x)
            h += p * x * d
            dh -= p * x * x * d * d
        if h > 0.0:
            lo = lam
        else:
            hi = lam
        if abs(h) < 1e-15:
            break
        nxt = lam - h / dh
        if not lo < nxt < hi:  # Newton left the bracket: bisect instead
            nxt = 0.5 * (lo + hi)
        if abs(nxt - lam) <= 1e-15 * max(1.0, abs(lam)):
            lam = nxt
            break
        lam = nxt
    return lam


def constrained_mle(p_hat: Sequence[float], elo: float, model: Model,
                    start: tuple[list[float], float] | None = None) -> tuple[list[float], float]:
    """The distribution over the five outcomes nearest ``p_hat`` (maximum likelihood) whose Elo
    in ``model`` is ``elo``, and a number that, passed back with it as ``start``, warm-starts
    the next call on nearby data (λ in the logistic model, the fitted mean otherwise)."""
    try:
        if model == "logistic":
            target = logistic_score(elo)
            v = [a - target for a in SCORES]
            lam = _solve_lambda(p_hat, v, start[1] if start else 0.0)
            return [p / (1.0 + lam * x) for p, x in zip(p_hat, v, strict=True)], lam
        if elo == 0.0:  # (μ − ½)/σ = 0 is the linear constraint μ = ½
            return constrained_mle(p_hat, 0.0, "logistic", start)
        for begin in ([] if start is None else [start[0]]) + [[0.2] * 5]:
            try:  # fast: the fixed point, from the last fit, else from the uniform distribution
                return _fixed_point(p_hat, elo, begin)
            except _Infeasible:
                pass
        return _normalized_mle(p_hat, elo, None)  # slower, and safe
    except _Infeasible:
        raise ValueError(f"an Elo of {elo:g} lies outside what pair results can show; "
                         f"choose elo0 and elo1 closer to 0") from None


def _fixed_point(p_hat: Sequence[float], elo: float,
                 p: list[float]) -> tuple[list[float], float]:
    """Iterate p ← p̂ / (1 + λ·v(p)), v_i = a_i − ½ − s·((a_i − μ)²/σ + σ)/2 with (μ, σ) p's own
    mean and standard deviation, λ the root of Σ p̂_i v_i / (1 + λ v_i). Under p, v has mean
    μ − ½ − s·σ, so a fixed point meets the constraint and is stationary on it. Fast from a
    nearby start; raises _Infeasible when the linearisation loses its way."""
    s = math.sqrt(2.0) * elo / NELO_PER_T
    lam, last = 0.0, (math.nan, math.nan)
    for _ in range(100):
        mu = sum(q * a for q, a in zip(p, SCORES, strict=True))
        sigma = math.sqrt(max(sum(q * (a - mu) ** 2 for q, a in zip(p, SCORES, strict=True)),
                              1e-300))
        if abs(mu - last[0]) < 1e-13 and abs(sigma - last[1]) < 1e-13:
            return p, mu
        last = (mu, sigma)
        v = [a - 0.5 - 0.5 * s * ((a - mu) ** 2 / sigma + sigma) for a in SCORES]
        lam = _solve_lambda(p_hat, v, lam)
        p = [q / (1.0 + lam * x) for q, x in zip(p_hat, v, strict=True)]
    raise _Infeasible


def _el_two(p_hat: Sequence[float], u1: Sequence[float], u2: Sequence[float],
            lam: tuple[float, float]) -> tuple[float, float, float]:
    """Empirical likelihood with two moment constraints Σ p u1 = Σ p u2 = 0: the multipliers
    (λ1, λ2) minimising the convex F(λ) = −Σ p̂_i log(1 + λ1 u1_i + λ2 u2_i), and F there.
    Newton's method, the step halved to stay where every 1 + λ·u_i > 0 and F decreases."""
    def value(l1: float, l2: float) -> float:
        total = 0.0
        for p, x, y in zip(p_hat, u1, u2, strict=True):
            d = 1.0 + l1 * x + l2 * y
            if d <= 0.0:
                return math.inf
            total -= p * math.log(d)
        return total

    l1, l2 = lam
    f = value(l1, l2)
    if not math.isfinite(f):
        l1, l2 = 0.0, 0.0
        f = 0.0
    for _ in range(100):
        g1 = g2 = h11 = h12 = h22 = 0.0
        for p, x, y in zip(p_hat, u1, u2, strict=True):
            w = p / (1.0 + l1 * x + l2 * y)
            g1 -= w * x
            g2 -= w * y
            w2 = w / (1.0 + l1 * x + l2 * y)
            h11 += w2 * x * x
            h12 += w2 * x * y
            h22 += w2 * y * y
        det = h11 * h22 - h12 * h12
        if det <= 0.0:
            raise _Infeasible
        d1 = -(h22 * g1 - h12 * g2) / det
        d2 = -(h11 * g2 - h12 * g1) / det
        if -(g1 * d1 + g2 * d2) < 1e-20:  # Newton decrement: F is within 1e-20 of its minimum
            return l1, l2, f
        step = 1.0
        while True:
            trial = value(l1 + step * d1, l2 + step * d2)
            if trial <= f + 1e-16 * abs(f) or step < 1e-12:
                break
            step *= 0.5
        l1, l2 = l1 + step * d1, l2 + step * d2
        f = trial
    raise _Infeasible


def _min_variance(m: float) -> float:
    """The least variance of a distribution over the five outcomes with mean m."""
    k = min(int(m * 4.0), 3)
    lo, hi = k / 4.0, (k + 1) / 4.0
    return (m - lo) * (hi - m)


def _normalized_mle(p_hat: Sequence[float], elo: float,
                    start: tuple[list[float], float] | None) -> tuple[list[float], float]:
    """The likeliest distribution with (μ − ½) / σ = s, s = √2·nElo·ln10/800 (σ: sd of the pair
    score / 2), found as the maximum over μ = m of the likelihood with two linear constraints:
    mean m and variance σ_m² = ((m − ½)/s)² (``_el_two``). By the envelope theorem the profile's
    slope is λ1 + 2 λ2 (m − ½)/s², whose root is bracketed between the least m whose σ_m² a
    distribution over the outcomes can reach and the largest (σ_m² = m(1 − m), all on 0 and 1).
    For s < 0 the outcomes are mirrored. Returns p and the optimal m (to warm-start)."""
    s = math.sqrt(2.0) * elo / NELO_PER_T
    if s < 0.0:
        mirrored = None if start is None else (start[0][::-1], 1.0 - start[1])
        p, m = _normalized_mle(p_hat[::-1], -elo, mirrored)
        return p[::-1], 1.0 - m
    lo = 0.5  # the least feasible m: σ_m² rises above the least variance at m
    hi = 0.5 + 0.5 * s / math.sqrt(1.0 + s * s)  # σ_m² = m (1 − m)
    a, b = lo, hi
    for _ in range(60):
        mid = 0.5 * (a + b)
        if ((mid - 0.5) / s) ** 2 > _min_variance(mid):
            b = mid
        else:
            a = mid
    lo = b
    lam = (0.0, 0.0)
    cache: dict[float, tuple[float, float, float]] = {}
    data_mu = sum(q * x for q, x in zip(p_hat, SCORES, strict=True))
    data_var = sum(q * (x - data_mu) ** 2 for q, x in zip(p_hat, SCORES, strict=True))

    def slope(m: float) -> float:
        nonlocal lam
        var = ((m - 0.5) / s) ** 2
        u1 = [x - m for x in SCORES]
        u2 = [(x - m) ** 2 - var for x in SCORES]
        try:
            l1, l2, _ = _el_two(p_hat, u1, u2, lam)
        except _Infeasible:  # out of reach numerically: far too little or too much variance
            return math.inf if var < data_var else -math.inf
        lam = (l1, l2)
        cache[m] = (l1, l2, var)
        return l1 + 2.0 * l2 * (m - 0.5) / (s * s)

    a, b, fa, fb = lo, hi, math.inf, -math.inf
    m = start[1] if start is not None and a < start[1] < b else 0.5 * (a + b)
    fm = slope(m)
    for k in range(300):  # secant inside the shrinking bracket, every third step a bisection
        if fm > 0.0:
            a, fa = m, fm
        else:
            b, fb = m, fm
        if (b - a < 1e-13 or abs(fm) < 1e-9) and m in cache:
            break
        nxt = 0.5 * (a + b)
        if k % 3 != 2 and math.isfinite(fa - fb):
            secant = b - fb * (b - a) / (fb - fa)
            if a + 0.001 * (b - a) < secant < b - 0.001 * (b - a):
                nxt = secant
        m, fm = nxt, slope(nxt)
    if m not in cache:
        raise _Infeasible
    l1, l2, var = cache[m]
    p = [q / (1.0 + l1 * (x - m) + l2 * ((x - m) ** 2 - var))
         for q, x in zip(p_hat, SCORES, strict=True)]
    return p, m


def regularized(counts: Sequence[int]) -> list[float]:
    """The observed outcome frequencies, an outcome never seen counting REGULARIZE."""
    weights = [float(c) if c > 0 else REGULARIZE for c in counts]
    total = sum(weights)
    return [w / total for w in weights]


def llr(counts: Sequence[int], elo0: float, elo1: float, model: Model = "normalized") -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) over H0 (elo0) for pentanomial ``counts``.

    >>> round(llr((10, 20, 30, 20, 10), 0, 10, "logistic"), 4)
    -0.1117
    """
    if len(counts) != 5 or any(c < 0 for c in counts):
        raise ValueError(f"pentanomial counts are five non-negative numbers (got {counts})")
    if sum(counts) == 0:
        return 0.0
    p_hat = regularized(counts)
    p0, _ = constrained_mle(p_hat, elo0, model)
    p1, _ = constrained_mle(p_hat, elo1, model)
    return sum(n * math.log(b / a) for n, a, b in zip(counts, p0, p1, strict=True) if n)


# ----------------------------------------------------------------------------- the test


class Sprt:
    """The running test: feed it pair results in schedule order with ``update``.

    The verdict is the first crossing of a bound; ``decided_after`` is the number of pairs it
    took. Stop feeding pairs once there is a verdict (further updates keep counting and move
    the LLR, but never change the verdict).
    """

    __slots__ = ("_warm0", "_warm1", "counts", "decided_after", "llr", "params", "verdict")

    def __init__(self, params: SprtParams, counts: Sequence[int] = (0, 0, 0, 0, 0)) -> None:
        self.params = params
        self.counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
        self.llr = 0.0
        self.verdict: Verdict | None = None
        self.decided_after: int | None = None
        self._warm0: tuple[list[float], float] | None = None
        self._warm1: tuple[list[float], float] | None = None
        if sum(counts):
            self.add_counts(counts)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def update(self, points: float) -> Verdict | None:
        """Add one finished pair where A took ``points`` (0, 0.5, 1, 1.5 or 2); the verdict."""
        i = round(2.0 * points)
        if not 0 <= i <= 4 or abs(2.0 * points - i) > 1e-9:
            raise ValueError(f"a pair's points are 0, 0.5, 1, 1.5 or 2 (got {points})")
        c = list(self.counts)
        c[i] += 1
        return self._set_counts(c)

    def add_counts(self, counts: Sequence[int]) -> Verdict | None:
        """Add many pairs at once (their order is lost: use for a start, not for stopping)."""
        if len(counts) != 5 or any(c < 0 for c in counts):
            raise ValueError(f"pentanomial counts are five non-negative numbers (got {counts})")
        return self._set_counts([a + b for a, b in zip(self.counts, counts, strict=True)])

    def _set_counts(self, counts: Sequence[int]) -> Verdict | None:
        """Recompute the LLR for new counts, warm-started from the last fit."""
        self.counts = (counts[0], counts[1], counts[2], counts[3], counts[4])
        p_hat = regularized(self.counts)
        self._warm0 = constrained_mle(p_hat, self.params.elo0, self.params.model, self._warm0)
        self._warm1 = constrained_mle(p_hat, self.params.elo1, self.params.model, self._warm1)
        self.llr = sum(n * math.log(b / a) for n, a, b in
                       zip(self.counts, self._warm0[0], self._warm1[0], strict=True) if n)
        if self.verdict is None:
            if self.llr >= self.params.upper:
                self.verdict = "H1"
            elif self.llr <= self.params.lower:
                self.verdict = "H0"
            if self.verdict is not None:
                self.decided_after = self.pairs
        return self.verdict

    @property
    def jumps(self) -> tuple[float, ...]:
        """What a pair of each outcome (0, ½, 1, 1½, 2 points) counts for in the LLR under the
        current fit, log(p1_i / p0_i), so that the LLR is Σ counts_i · jumps_i; zeros before
        the first pair."""
        if self._warm0 is None or self._warm1 is None:
            return (0.0,) * 5
        return tuple(math.log(b / a) for a, b in zip(self._warm0[0], self._warm1[0], strict=True))

    def summary(self, level: float = 0.95) -> PairSummary:
        """Score, Elo with interval, normalised Elo and LOS of the pairs so far."""
        return summarize(self.counts, level=level)

    def as_dict(self, level: float = 0.95) -> dict[str, Any]:
        return {"sprt": self.params.as_dict(), "llr": round(self.llr, 4),
                "verdict": self.verdict, "decided_after": self.decided_after,
                "pairs": self.pairs, "pentanomial": list(self.counts),
                **self.summary(level).as_dict()}
