"""The matchmaker's model: every bot's rating as a Gaussian belief ``N(mu_i, v_i)``, kept up to
date result by result (the policy beside it, :mod:`harness.arena.matchmaking.policy`, chooses
the pairs from it). The model is the project's one Bradley–Terry fit
(:mod:`harness.stats.bradley_terry`): logistic, 400 Elo a factor of 10 in the odds, a draw half
a win, the ratings ``N(0, sd²)`` with the spread ``sd`` estimated from the games unless given.

**State, kept incrementally.** A result updates the two bots' beliefs at once by one step of
the Laplace (extended Kalman) update of the difference ``r_a − r_b`` (O(1), diagonal: the
correlation between bots is dropped between refits). Every ``refit_every`` results (default
half the active bots, so the cost is amortised) the beliefs are recomputed exactly by the one
fit: the MAP ratings of all results so far and their Laplace variances relative to the field
(a new bot, with no game, has the prior's). That cost is O(n³) per refit (about 0.1 s at 1,000
bots on a busy 2-core machine).

>>> model = Beliefs(["a", "b", "c"])
>>> model.record("a", "b", 2.0)  # a took both games of a duplicate pair
>>> model.rating("a")[0] > model.rating("b")[0]
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from harness.stats import bradley_terry as bt
from harness.stats.bradley_terry import ELO_PER_NAT, START_SD
from harness.stats.outcome import Result, points

FloatArray = npt.NDArray[np.float64]

_C = 1.0 / ELO_PER_NAT  # log-odds per Elo point
REFIT_TOL = 0.01  # a refit's Newton steps stop below this (Elo): beliefs, not the leaderboard


class Beliefs:
    """Ratings with uncertainty, kept up to date result by result.

    ``prior_sd``: the spread (Elo) of ratings assumed before a bot plays (None: estimated from
    the games at every refit, starting from 350). ``games_per_result``: games in one recorded
    result by default (2 for a duplicate pair).
    """

    def __init__(self, bots: Iterable[str] = (), *, prior_sd: float | None = None,
                 refit_every: int | None = None, games_per_result: int = 2) -> None:
        if prior_sd is not None and prior_sd <= 0:
            raise ValueError("prior_sd must be positive (or left out: estimated)")
        self.prior_sd = prior_sd
        self.prior_var = (prior_sd or START_SD) ** 2
        self.refit_every = refit_every
        self.games_per_result = games_per_result
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self._cap = 0
        self.mu: FloatArray = np.zeros(0)
        self.var: FloatArray = np.zeros(0)
        self.results: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)  # per bot
        self.active: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)
        # per-pair sufficient statistics: (low index, high index) -> [games, points of low]
        self._pairs: dict[tuple[int, int], list[float]] = {}
        self._since_refit = 0
        self.total_results = 0
        for name in bots:
            self.add_bot(name)

    def _grow(self) -> None:
        cap = max(16, 2 * self._cap)
        extra = cap - self._cap
        self.mu = np.concatenate([self.mu, np.zeros(extra)])
        self.var = np.concatenate([self.var, np.full(extra, self.prior_var)])
        self.results = np.concatenate([self.results, np.zeros(extra, dtype=np.int64)])
        self.active = np.concatenate([self.active, np.zeros(extra, dtype=bool)])
        self._cap = cap

    def add_bot(self, name: str) -> None:
        """A bot joins (or rejoins: its past results still count)."""
        i = self.index.get(name)
        if i is None:
            if len(self.names) == self._cap:
                self._grow()
            i = len(self.names)
            self.names.append(name)
            self.index[name] = i
        self.active[i] = True

    def remove_bot(self, name: str) -> None:
        """A bot leaves: it is no longer chosen; its results still inform the others."""
        self.active[self.index[name]] = False

    @property
    def bots(self) -> list[str]:
        """The active bots, in the order they joined."""
        return [n for i, n in enumerate(self.names) if self.active[i]]

    def rating(self, name: str) -> tuple[float, float]:
        """A bot's current rating estimate and its standard deviation (Elo)."""
        i = self.index[name]
        return float(self.mu[i]), math.sqrt(float(self.var[i]))

    def ranking(self) -> list[str]:
        """The active bots, best estimate first."""
        idx = np.flatnonzero(self.active[:len(self.names)])
        order = idx[np.argsort(-self.mu[idx], kind="stable")]
        return [self.names[i] for i in order]

    # ------------------------------------------------------------------ results

    @classmethod
    def from_pairings(cls, names: Sequence[str], lo: npt.NDArray[np.int64],
                      hi: npt.NDArray[np.int64], games: FloatArray, pts: FloatArray,
                      results: npt.NDArray[np.int64], start: FloatArray | None = None,
                      **options: Any) -> Self:
        """A model for ``names`` holding per-pairing totals at once (pairing ``k`` is
        ``names[lo[k]]`` v ``names[hi[k]]``, ``lo < hi``: its games and the points of
        ``lo``), ``results`` per bot, and one exact refit from ``start`` (default: 0): how a
        living league with a million stored games starts, not result by result."""
        mm = cls(names, **options)
        if lo.size:
            mm.load(lo, hi, games, pts, results)
            if start is not None:
                mm.mu[:len(names)] = start
        mm.refit()
        return mm

    def load(self, lo: npt.NDArray[np.int64], hi: npt.NDArray[np.int64], games: FloatArray,
             pts: FloatArray, results: npt.NDArray[np.int64]) -> None:
        """Hold per-pairing totals at once (pairing ``k``: ``names[lo[k]]`` v ``names[hi[k]]``,
        ``lo < hi``, its games and the points of ``lo``) and ``results`` per bot, in place of
        any results fed in before; the beliefs change at the next refit."""
        self._pairs = dict(zip(zip(lo.tolist(), hi.tolist(), strict=True),
                               map(list, zip(games.tolist(), pts.tolist(), strict=True)),
                               strict=True))
        self.total_results = int(lo.size)
        self.results[:results.size] = results

    @classmethod
    def from_results(cls, bots: Iterable[str], results: Iterable[Result],
                     **options: Any) -> Self:
        """A model for ``bots`` that has seen ``results`` (two-sided one-bot games count;
        others, and void games, are skipped). Games of the same ``pair_id`` make one result."""
        mm = cls(bots, **options)
        grouped: dict[tuple[str, str, str], list[float]] = {}
        for g_index, game in enumerate(results):
            if game.void or len(game.sides) != 2 or any(len(set(s)) != 1 for s in game.sides):
                continue
            x, y = game.sides[0][0], game.sides[1][0]
            if x == y:
                continue
            sx, sy = game.scores
            won = points(sx, sy)
            a, b, pts = (x, y, won) if x < y else (y, x, 1.0 - won)
            key = (a, b, game.pair_id or f"\0{g_index}")
            acc = grouped.setdefault(key, [0.0, 0.0])
            acc[0] += 1.0
            acc[1] += pts
        for (a, b, _), (games, pts) in grouped.items():
            for name in (a, b):
                if name not in mm.index:
                    mm.add_bot(name)
                    mm.remove_bot(name)
            mm.record(a, b, pts, games=int(games))
        return mm

    def record(self, a: str, b: str, points_a: float, games: int | None = None) -> None:
        """``a`` took ``points_a`` (a draw is a half) of ``games`` games against ``b``."""
        k = self.games_per_result if games is None else games
        i, j = self.index[a], self.index[b]
        if i == j or not 0.0 <= points_a <= k:
            raise ValueError(f"bad result {a} v {b}: {points_a} of {k}")
        key, pts = ((i, j), points_a) if i < j else ((j, i), k - points_a)
        acc = self._pairs.setdefault(key, [0.0, 0.0])
        acc[0] += k
        acc[1] += pts
        self.results[i] += 1
        self.results[j] += 1
        self.total_results += 1
        # Laplace (extended Kalman) step on d = r_i - r_j, diagonal covariance
        vi, vj = float(self.var[i]), float(self.var[j])
        p, denom = self.shrink(i, j, k)
        grad = _C * (points_a - k * p)
        self.mu[i] += vi * grad / denom
        self.mu[j] -= vj * grad / denom
        self._since_refit += 1
        every = self.refit_every or max(8, int(self.active.sum()) // 2)
        if self._since_refit >= every:
            self.refit()

    def shrink(self, i: int, j: int, games: int) -> tuple[float, float]:
        """Shrink ``v_i`` and ``v_j`` by the information ``games`` games of ``i`` v ``j`` are
        expected to bring (the variance half of the Laplace step, which does not depend on the
        result); return the predicted score of ``i`` and the step's denominator."""
        vi, vj = float(self.var[i]), float(self.var[j])
        kappa = 1.0 / math.sqrt(1.0 + math.pi * _C * _C * (vi + vj) / 8.0)
        p = 1.0 / (1.0 + math.exp(-kappa * _C * float(self.mu[i] - self.mu[j])))
        info = games * _C * _C * kappa * p * (1.0 - p)
        denom = 1.0 + info * (vi + vj)
        self.var[i] = vi - vi * vi * info / denom
        self.var[j] = vj - vj * vj * info / denom
        return p, denom

    def refit(self) -> None:
        """Recompute every belief exactly with the one fit (:func:`bt.fit`): the MAP ratings of
        all results under the prior and their Laplace variances relative to the field; a bot
        without a result keeps the prior's variance. The spread, when not given, is estimated
        again, one step from the last estimate."""
        self._since_refit = 0
        n = len(self.names)
        if n == 0:
            return
        if not self._pairs:
            self.mu[:n] = 0.0
            self.var[:n] = self.prior_var
            return
        keys = np.array(list(self._pairs), dtype=np.intp)
        stats = np.array(list(self._pairs.values()), dtype=np.float64)
        data = bt.Comparisons.pairwise(self.names, keys[:, 0], keys[:, 1], stats[:, 0],
                                       stats[:, 1])
        # at the spread of the last refit, then one step of its estimate (a refit costs one
        # fit; the estimate converges over the refits as the results grow)
        fitted = bt.fit(data, bt.Prior(sd=self.prior_sd or math.sqrt(self.prior_var)),
                        start=self.mu[:n], tol=REFIT_TOL)
        self.apply(fitted)
        if self.prior_sd is None and fitted.pools.size - np.unique(fitted.pools).size >= \
                bt.ESTIMATE_FROM and math.isfinite(fitted.implied_sd):
            self.prior_var = fitted.implied_sd ** 2

    def apply(self, fitted: bt.Fit) -> None:
        """Take the beliefs of ``fitted`` (a fit of this model's results over its names): its
        ratings, their variances relative to the field, its spread for bots without a game."""
        n = len(self.names)
        if math.isfinite(fitted.sd):
            self.prior_var = fitted.sd * fitted.sd
        self.mu[:n] = fitted.mu
        var = np.diag(fitted.cov).copy()
        alone = np.bincount(fitted.pools, minlength=n)[fitted.pools] == 1
        var[alone] = self.prior_var
        self.var[:n] = np.maximum(var, 1e-9)
