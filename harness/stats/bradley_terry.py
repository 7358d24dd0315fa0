"""The one Bradley–Terry fit: the Elo table, the arena's leaderboard and its matchmaker all rate
with it, so the same games give the same number wherever they are shown.

**The model.** Every bot ``i`` has a rating ``r_i`` (Elo); a comparison is a row of
coefficients ``c`` over the bots (one bot against one: ``+1`` and ``-1``; a team plays at its
members' mean: ``±1/size``) won by its positive side with probability
``1 / (1 + 10 ** (-(c · r) / 400))``. A row carries a weight of comparisons ``n`` and the points
``s`` of its positive side (a draw is half a win).

**The prior** (:class:`Prior`), a parameter:

* ``Prior()`` (the default): ratings ``N(0, sd²)``, each bot's rating drawn from the field's
  spread, with ``sd`` **estimated from the data** by empirical Bayes: the ``sd`` that maximises
  the marginal likelihood of the games (its Laplace approximation), found by MacKay's fixed
  point ``sd² = |r̂|² / γ``, ``γ = (bots − pools) − tr(Σ_centred) / sd²`` (the number of
  ratings the games determine). A narrow field is shrunk hard, a wide one hardly at all: the
  scale of the estimates follows the truth's (see bench/stats.py's coverage figures).
  A spread needs several ratings to be seen: where the games determine fewer than
  ``ESTIMATE_FROM`` (two bots: one difference), the prior is one virtual draw (below), and a
  two-bot match gets the score's own Elo, as fishtest states it.
* ``Prior(sd=350)``: the same Gaussian with its spread given.
* ``Prior(draws=1)``: no Gaussian; ``draws`` virtual drawn games between every two bots that met
  in some row (as BayesElo and Ordo do): a nearly flat prior that only keeps a perfect record
  finite.

The ratings reported are **relative to the field**: each pool of bots that met (even through
others) has mean 0, and the covariance is that of ``r_i − mean(pool)``. Games tell only
differences, so a bot's rating relative to the field is what they can tell.

>>> data = Comparisons.pairwise(["a", "b"], [0], [1], [10.0], [7.0])
>>> fit = fit(data, Prior(draws=1.0))
>>> round(float(fit.mu[0] - fit.mu[1]), 1), round(float(fit.mu[0] + fit.mu[1]), 9)
(132.4, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of log-odds
_C = 1.0 / ELO_PER_NAT
MAX_STEP = 400.0  # Newton steps are capped at this many Elo points
TOL = 1e-7  # convergence: largest step, in Elo points
START_SD = 350.0  # the spread assumed before any game (and where its estimate starts)
SD_BOUNDS = (10.0, 4000.0)  # the estimated spread is kept within these (Elo)
EB_TOL = 1e-9  # the estimate of the spread: its relative gap to the fixed point at the end
ESTIMATE_FROM = 4  # ratings the games must determine (bots less pools) to estimate a spread
FEW_BOTS_DRAWS = 1.0  # below that, the prior is this many virtual draws

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class Prior:
    """What is believed before the games: ``N(0, sd²)`` on every rating (``sd`` None:
    estimated from the data), or, with ``draws`` > 0, virtual draws and no Gaussian."""

    sd: float | None = None
    draws: float = 0.0

    def __post_init__(self) -> None:
        if self.draws < 0 or (self.draws > 0 and self.sd is not None):
            raise ValueError("a prior is either virtual draws (draws > 0) or a Gaussian "
                             "(sd, or none to estimate it), not both")
        if self.sd is not None and not self.sd > 0:
            raise ValueError(f"the prior's sd must be positive (got {self.sd}); leave it out "
                             f"to estimate it from the games")

    @property
    def gaussian(self) -> bool:
        return self.draws == 0

    def describe(self, sd: float) -> str:
        """The prior in words, with the spread the fit used."""
        if not self.gaussian:
            draws = "1 virtual draw" if self.draws == 1 else f"{self.draws:g} virtual draws"
            return f"{draws} between every two bots that met"
        how = "estimated from the games" if self.sd is None else "given"
        return f"ratings N(0, {sd:.0f}²), the spread {how}"


@dataclass
class Comparisons:
    """Rows of comparisons over ``names``, stored sparse: entry ``e`` puts coefficient
    ``coef[e]`` on bot ``bot[e]`` in row ``row[e]``; row ``r`` has weight ``n[r]`` and the
    points ``s[r]`` of its positive side."""

    names: list[str]
    row: IntArray
    bot: IntArray
    coef: FloatArray
    n: FloatArray
    s: FloatArray

    @classmethod
    def pairwise(cls, names: Sequence[str], lo: npt.ArrayLike, hi: npt.ArrayLike,
                 games: npt.ArrayLike, points: npt.ArrayLike) -> Comparisons:
        """Per-pairing totals: pairing ``k`` is ``names[lo[k]]`` v ``names[hi[k]]``, with its
        games and the points of ``lo``."""
        lo_a, hi_a = np.asarray(lo, dtype=np.intp), np.asarray(hi, dtype=np.intp)
        m = lo_a.size
        return cls(list(names), np.repeat(np.arange(m, dtype=np.intp), 2),
                   np.column_stack([lo_a, hi_a]).ravel(),
                   np.tile(np.array([1.0, -1.0]), m), np.asarray(games, dtype=np.float64),
                   np.asarray(points, dtype=np.float64))

    @classmethod
    def of_rows(cls, names: Sequence[str], rows: Sequence[Sequence[tuple[int, float]]],
                n: Sequence[float] | FloatArray, s: Sequence[float] | FloatArray
                ) -> Comparisons:
        """Rows given as ``(bot index, coefficient)`` pairs."""
        row = [r for r, items in enumerate(rows) for _ in items]
        bot = [i for items in rows for i, _ in items]
        coef = [c for items in rows for _, c in items]
        return cls(list(names), np.array(row, dtype=np.intp), np.array(bot, dtype=np.intp),
                   np.array(coef, dtype=np.float64), np.asarray(n, dtype=np.float64),
                   np.asarray(s, dtype=np.float64))

    @property
    def size(self) -> int:
        return len(self.names)

    def pools(self) -> IntArray:
        """The pool (connected component of "met in some row") of every bot, as the index of
        its smallest member."""
        parent = list(range(self.size))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        first: dict[int, int] = {}
        for r, i in zip(self.row.tolist(), self.bot.tolist(), strict=True):
            if r in first:
                a, b = find(first[r]), find(i)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                first[r] = i
        return np.array([find(i) for i in range(self.size)], dtype=np.intp)

    def with_virtual_draws(self, draws: float) -> Comparisons:
        """These rows and ``draws`` virtual draws (one against one) between every two bots
        that met in some row."""
        met: set[tuple[int, int]] = set()
        by_row: dict[int, list[int]] = {}
        for r, i in zip(self.row.tolist(), self.bot.tolist(), strict=True):
            by_row.setdefault(r, []).append(i)
        for bots in by_row.values():
            for x in range(len(bots)):
                for y in range(x + 1, len(bots)):
                    a, b = sorted((bots[x], bots[y]))
                    met.add((a, b))
        pairs = sorted(met)
        extra = Comparisons.pairwise(self.names, [a for a, _ in pairs], [b for _, b in pairs],
                                     np.full(len(pairs), float(draws)),
                                     np.full(len(pairs), 0.5 * draws))
        m = self.n.size
        return Comparisons(self.names, np.concatenate([self.row, extra.row + m]),
                           np.concatenate([self.bot, extra.bot]),
                           np.concatenate([self.coef, extra.coef]),
                           np.concatenate([self.n, extra.n]), np.concatenate([self.s, extra.s]))


@dataclass(frozen=True)
class Fit:
    """Ratings relative to their pool's mean, their covariance, the prior's spread used."""

    names: list[str]
    mu: FloatArray
    cov: FloatArray  # of r_i − mean(pool of i)
    pools: IntArray
    prior: Prior
    sd: float  # the Gaussian's spread (estimated or given); inf for virtual draws
    why: str = ""  # why this prior, when it is not the one asked for
    implied_sd: float = math.nan  # the spread these ratings imply (the estimate's next step)

    @property
    def se(self) -> FloatArray:
        out: FloatArray = np.sqrt(np.maximum(np.diag(self.cov), 0.0))
        return out

    def describe(self) -> str:
        return self.prior.describe(self.sd) + (f" ({self.why})" if self.why else "")


class _System:
    """The log-likelihood of some comparisons, its gradient and Hessian, vectorised."""

    def __init__(self, data: Comparisons) -> None:
        self.size = data.size
        self.data = data
        # every two entries of a row (itself included): where the Hessian's terms go
        order = np.argsort(data.row, kind="stable")
        row = data.row[order]
        starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
        lengths = np.diff(np.r_[starts, row.size])
        first, second = [], []
        for length in np.unique(lengths).tolist():
            at = starts[lengths == length]
            for x in range(length):
                for y in range(length):
                    first.append(order[at + x])
                    second.append(order[at + y])
        e1 = np.concatenate(first) if first else np.zeros(0, dtype=np.intp)
        e2 = np.concatenate(second) if second else np.zeros(0, dtype=np.intp)
        self.h_row = data.row[e1]
        self.h_cell = data.bot[e1] * self.size + data.bot[e2]
        self.h_coef = data.coef[e1] * data.coef[e2]

    def eta(self, theta: FloatArray) -> FloatArray:
        d = self.data
        out: FloatArray = _C * np.bincount(d.row, d.coef * theta[d.bot], d.n.size).astype(
            np.float64)
        return out

    def loglik(self, theta: FloatArray) -> float:
        eta, d = self.eta(theta), self.data
        return float(-(d.s * np.logaddexp(0.0, -eta) + (d.n - d.s) * np.logaddexp(0.0, eta)).sum())

    def gradient_and_information(self, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        d = self.data
        p = _expit(self.eta(theta))
        resid = _C * (d.s - d.n * p)
        grad: FloatArray = np.bincount(d.bot, d.coef * resid[d.row], self.size).astype(np.float64)
        w = _C * _C * d.n * p * (1.0 - p)
        info = np.bincount(self.h_cell, self.h_coef * w[self.h_row], self.size * self.size)
        return grad, info.astype(np.float64).reshape(self.size, self.size)


def _expit(x: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def _projection(pools: IntArray) -> FloatArray:
    """``P``: the mean of each pool (``P θ`` puts every bot at its pool's mean)."""
    same = pools[:, None] == pools[None, :]
    counts = same.sum(axis=1)
    out: FloatArray = same / counts[:, None]
    return out


def _map(system: _System, precision: float, flat: FloatArray, theta: FloatArray,
         tol: float) -> FloatArray:
    """The MAP (Newton with capped, halved steps) under ``N(0, 1/precision)`` on every rating;
    ``flat``: added to the curvature where there is no Gaussian (each pool's mean held)."""
    def objective(t: FloatArray) -> float:
        return system.loglik(t) - 0.5 * precision * float(t @ t)

    value = objective(theta)
    for _ in range(200):
        grad, info = system.gradient_and_information(theta)
        grad = grad - precision * theta
        info[np.diag_indices_from(info)] += precision
        step = np.linalg.solve(info + flat, grad)
        big = float(np.max(np.abs(step))) if step.size else 0.0
        if big > MAX_STEP:
            step *= MAX_STEP / big
        for _ in range(60):  # halve the step until the objective does not drop
            trial = theta + step
            new = objective(trial)
            if new >= value - 1e-12 * abs(value):
                break
            step *= 0.5
        theta, value = trial, new
        if big < tol:
            return theta
    raise ValueError("the Bradley-Terry fit did not converge; give a prior (an sd, or draws)")


def fit(data: Comparisons, prior: Prior | None = None, *, start: FloatArray | None = None,
        start_sd: float | None = None, tol: float = TOL) -> Fit:
    """The ratings of ``data`` under ``prior`` (default: a Gaussian whose spread is estimated);
    ``start``, ``start_sd``: where Newton's method and the spread's estimate start (a warm
    start changes the answer by less than ``tol``)."""
    prior = prior or Prior()
    size = data.size
    pools = data.pools()
    flat = _projection(pools)
    theta = np.zeros(size) if start is None else np.asarray(start, dtype=np.float64).copy()
    theta -= flat @ theta  # each pool's mean at 0, as every fit ends
    determined = size - int(np.unique(pools).size)  # ratings the games can tell
    why = ""
    if prior.sd is None and prior.gaussian and determined < ESTIMATE_FROM:
        prior = Prior(draws=FEW_BOTS_DRAWS)  # one difference or three say nothing of a spread
        why = "too few bots to estimate a spread"
    if not prior.gaussian:
        system = _System(data.with_virtual_draws(prior.draws))
        theta = _map(system, 0.0, flat, theta, tol)
        _, info = system.gradient_and_information(theta)
        cov: FloatArray = np.linalg.inv(info + flat) - flat
        return Fit(data.names, theta, cov, pools, prior, math.inf, why)
    system = _System(data)
    flat_zero = np.zeros((size, size))

    def at(sd: float, theta: FloatArray) -> tuple[FloatArray, FloatArray, float]:
        """The MAP and centred covariance at spread ``sd``, and the spread they imply."""
        precision = 1.0 / (sd * sd)
        theta = _map(system, precision, flat_zero, theta, tol)
        _, info = system.gradient_and_information(theta)
        info[np.diag_indices_from(info)] += precision
        cov = _centred(np.asarray(np.linalg.inv(info), dtype=np.float64), flat)
        gamma = determined - float(np.trace(cov)) * precision
        spread = float(theta @ theta)
        implied = math.sqrt(spread / gamma) if gamma > 1e-9 and spread > 0.0 else SD_BOUNDS[0]
        return theta, cov, min(SD_BOUNDS[1], max(SD_BOUNDS[0], implied))

    if prior.sd is not None:
        theta, cov, implied = at(prior.sd, theta)
        return Fit(data.names, theta, cov, pools, prior, prior.sd, implied_sd=implied)
    sd = start_sd or START_SD
    theta, cov, implied = at(sd, theta)
    previous: tuple[float, float] | None = None  # (log sd, its gap) of the step before
    for _ in range(100):  # the fixed point sd = implied(sd), by secant steps on log sd
        x, gap = math.log(sd), math.log(implied) - math.log(sd)
        if abs(gap) < EB_TOL:
            break
        step = gap
        if previous is not None and previous[1] != gap:
            secant = -gap * (x - previous[0]) / (gap - previous[1])
            if 0.0 < secant / gap < 10.0:  # the same way, not wildly further
                step = secant
        previous = x, gap
        sd = min(SD_BOUNDS[1], max(SD_BOUNDS[0], math.exp(x + step)))
        theta, cov, implied = at(sd, theta)
    return Fit(data.names, theta, cov, pools, prior, sd, implied_sd=implied)


def _centred(cov: FloatArray, flat: FloatArray) -> FloatArray:
    """The covariance of ``r − P r`` (each rating less its pool's mean) from that of ``r``."""
    c = np.eye(cov.shape[0]) - flat
    out: FloatArray = c @ cov @ c.T
    return out


def refit_many(data: Comparisons, base: Fit, n: FloatArray, s: FloatArray) -> FloatArray:
    """The ratings (one row per data set) refitted to many data sets at once, each the rows of
    ``data`` with the weights ``n[b]`` and points ``s[b]`` (a bootstrap's resamples), under the
    prior ``base`` was fitted with (the same spread: not estimated again), from ``base``."""
    if not base.prior.gaussian:
        extra = data.with_virtual_draws(base.prior.draws)
        m = data.n.size
        prior_n = np.broadcast_to(extra.n[m:], (n.shape[0], extra.n.size - m))
        n = np.concatenate([n, prior_n], axis=1)
        s = np.concatenate([s, np.broadcast_to(extra.s[m:], prior_n.shape)], axis=1)
        data = extra
    size, rows = data.size, data.n.size
    x = np.zeros((rows, size))
    np.add.at(x, (data.row, data.bot), data.coef)
    precision = 1.0 / (base.sd * base.sd) if base.prior.gaussian else 0.0
    flat = np.zeros((size, size)) if base.prior.gaussian else _projection(base.pools)
    chunk = max(1, int(4e6 // max(1, size * size + size * rows)))
    out = [_newton_batch(x, n[i:i + chunk], s[i:i + chunk], base.mu, precision, flat)
           for i in range(0, n.shape[0], chunk)]
    return np.concatenate(out, axis=0) if out else np.zeros((0, size))


def _newton_batch(x: FloatArray, n: FloatArray, s: FloatArray, theta0: FloatArray,
                  precision: float, flat: FloatArray) -> FloatArray:
    """Newton's method on many data sets at once (rows of ``n``, ``s``), from ``theta0``."""
    theta = np.repeat(theta0[None, :], n.shape[0], axis=0)
    extra = flat + precision * np.eye(theta0.size)
    for _ in range(100):
        p = _expit(_C * (theta @ x.T))
        grad = _C * ((s - n * p) @ x) - precision * theta
        w = _C * _C * n * p * (1.0 - p)
        info = np.einsum("bm,mi,mj->bij", w, x, x, optimize=True) + extra
        step = np.linalg.solve(info, grad[:, :, None])[:, :, 0]
        big = np.max(np.abs(step), axis=1, keepdims=True)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300))
        theta += step
        if float(big.max()) < TOL:
            return theta
    raise ValueError("a bootstrap fit did not converge; give a prior (an sd, or draws)")
