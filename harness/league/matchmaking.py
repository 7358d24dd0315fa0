"""Adaptive matchmaking for a living league: which two bots play the next duplicate pair.

Bots join and leave at any time; every result (a duplicate pair, or any number of games between
two bots) is fed in as it arrives, and :meth:`Matchmaker.choose` names the next pair. The model is
the project's Elo model (:mod:`harness.stats.elo`): logistic, 400 Elo a factor of 10 in the
odds, a draw half a win. Each bot's rating has a Gaussian belief ``N(mu_i, v_i)``.

**State, kept incrementally.** A result updates the two bots' beliefs at once by one step of
the Laplace (extended Kalman) update of the difference ``r_a − r_b`` (O(1), diagonal: the
correlation between bots is dropped between refits). Every ``refit_every`` results (default
half the active bots, so the cost is amortised) the beliefs are recomputed exactly: the MAP of
the Bradley–Terry likelihood of all results so far under a ``N(0, prior_sd²)`` prior on every
rating (a few warm-started Newton steps on the dense Hessian), and each ``v_i`` is the diagonal
of the inverse Hessian (the Laplace posterior covariance, correlations included). That cost is
O(n³) per refit (about 0.1 s at 1,000 bots on a busy 2-core machine).

**The criterion: the expected drop in the expected number of misordered pairs.** What the league
must get right is the order, so the criterion is Kendall's: the number of pairs of bots whose
estimates are in the wrong order. For bot ``i`` with rating sd ``s_i`` and rivals around it at a
density of ``rho_i`` bots per Elo point, the expected number of misordered pairs it is part of is
``sum_k Φ(−|mu_i − mu_k| / s) ≈ rho_i · s_i · sqrt(2/π)``: it falls in proportion to
``rho_i`` times the drop of ``s_i``. (A bot far from every other, at either end of the field,
has few rivals and needs less precision; that is what stops its large variance from drawing
game after game.) ``rho_i`` counts the active bots within ``± 2 s_i`` of ``mu_i`` over the
window's width; the boundary of the estimated top ``top`` counts as ``top_weight`` more rivals
(a Gaussian bump of width ``s_i``), so the head of the table is sorted early.

A duplicate pair of ``i`` v ``j`` carries Fisher information ``I = k·C²·E[p(1−p)]`` about the
difference ``d = r_i − r_j`` (``k`` games, ``C = ln 10 / 400`` per Elo point), the expectation
over the current belief of ``d``: with the probit approximation of the logistic,
``E[σ'(C·d)] = κ·σ'(κ·C·Δμ)`` with ``κ = 1 / sqrt(1 + π·C²·(v_i + v_j) / 8)``. Observing ``d``
with information ``I`` is a rank-one update of the covariance: ``v_i`` drops by
``I·v_i² / (1 + I·(v_i + v_j))``, and likewise ``v_j``. So the pair played is the one of largest

    ``gain(i, j) = rho_i · (s_i − s_i') + rho_j · (s_j − s_j')``

(``s'`` the sd after the update): unsure bots in crowded parts of the table, against opponents
near their level (where ``p(1−p)`` is largest) who are unsure themselves. The gain is evaluated
for the ``candidates`` bots of largest ``rho_i · v_i^1.5`` (the order of their best gain)
against every active bot: one vectorised ``K × n`` array, under a millisecond at 1,000 bots.

**New bots are placed quickly.** A bot with fewer than ``len(placement)`` results plays first,
against the bot found at the ``placement`` quantiles of the current order of the other bots
(default: the median, then the 15th and 85th percentiles), so three results bracket it; after
that its large variance makes the criterion pick it against bots near its estimated level.

**Minimum share.** A bot whose results number fewer than ``min_share`` times the active bots'
mean is overdue: the most overdue bot plays next, against the opponent of largest gain. So no
rating goes stale, however sure it already looks.

Ties are broken by the caller's RNG (:class:`random.Random`), so the same results and the same
seed give the same choices.

>>> import random
>>> mm = Matchmaker(["a", "b", "c"])
>>> a, b = mm.choose(random.Random(1))
>>> a != b and {a, b} <= {"a", "b", "c"}
True
>>> mm.record("a", "b", 2.0)  # a took both games of a duplicate pair
>>> mm.rating("a")[0] > mm.rating("b")[0]
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from harness.stats.elo import ELO_PER_NAT
from harness.stats.outcome import Result, points

FloatArray = npt.NDArray[np.float64]

_C = 1.0 / ELO_PER_NAT  # log-odds per Elo point
PLACEMENT = (0.5, 0.15, 0.85)


def _expit(x: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


class PairGate(Protocol):
    """Which bots may get one more pair of a wave (:meth:`Matchmaker.choose_many`)."""

    def allowed(self) -> Collection[str]: ...

    def chosen(self, a: str, b: str) -> None: ...


class Matchmaker:
    """Ratings with uncertainty, kept up to date result by result, and the choice of the next pair.

    ``prior_sd``: the spread (Elo) of ratings assumed before a bot plays. ``games_per_result``:
    games in one recorded result by default (2 for a duplicate pair).
    """

    def __init__(self, bots: Iterable[str] = (), *, prior_sd: float = 350.0,
                 placement: Sequence[float] = PLACEMENT, min_share: float = 0.5,
                 candidates: int = 32, refit_every: int | None = None,
                 games_per_result: int = 2, top: int = 10, top_weight: float = 5.0) -> None:
        if prior_sd <= 0 or not 0.0 <= min_share < 1.0 or candidates < 1:
            raise ValueError("prior_sd must be positive, min_share in [0, 1), candidates >= 1")
        self.prior_var = prior_sd * prior_sd
        self.placement = tuple(placement)
        self.min_share = min_share
        self.candidates = candidates
        self.refit_every = refit_every
        self.games_per_result = games_per_result
        self.top = top
        self.top_weight = top_weight
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

    # ------------------------------------------------------------------ the field

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
                      **options: float | int | Sequence[float] | None) -> Matchmaker:
        """A matchmaker for ``names`` holding per-pairing totals at once (pairing ``k`` is
        ``names[lo[k]]`` v ``names[hi[k]]``, ``lo < hi``: its games and the points of
        ``lo``), ``results`` per bot, and one exact refit from ``start`` (default: 0): how a
        living league with a million stored games starts, not result by result."""
        mm = cls(names, **options)  # type: ignore[arg-type]
        n = len(names)
        if lo.size:
            mm._pairs = dict(zip(zip(lo.tolist(), hi.tolist(), strict=True),
                                 map(list, zip(games.tolist(), pts.tolist(), strict=True)),
                                 strict=True))
            mm.total_results = int(lo.size)
            mm.results[:n] = results
            if start is not None:
                mm.mu[:n] = start
        mm.refit()
        return mm

    @classmethod
    def from_results(cls, bots: Iterable[str], results: Iterable[Result],
                     **options: float | int | Sequence[float] | None) -> Matchmaker:
        """A matchmaker for ``bots`` that has seen ``results`` (two-sided one-bot games count;
        others, and void games, are skipped). Games of the same ``pair_id`` make one result."""
        mm = cls(bots, **options)  # type: ignore[arg-type]
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
        p, denom = self._shrink(i, j, k)
        grad = _C * (points_a - k * p)
        self.mu[i] += vi * grad / denom
        self.mu[j] -= vj * grad / denom
        self._since_refit += 1
        every = self.refit_every or max(8, int(self.active.sum()) // 2)
        if self._since_refit >= every:
            self.refit()

    def _shrink(self, i: int, j: int, games: int) -> tuple[float, float]:
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

    def refit(self, iterations: int = 3) -> None:
        """Recompute every belief exactly: the MAP ratings of all results under the prior, and
        their Laplace variances (diagonal of the inverse Hessian)."""
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
        lo, hi, games, pts = keys[:, 0], keys[:, 1], stats[:, 0], stats[:, 1]
        theta = self.mu[:n].copy()
        cov = np.eye(n) * self.prior_var
        for it in range(iterations + 1):
            grad, hess = posterior_system(n, lo, hi, games, pts, self.prior_var, theta)
            cov = np.asarray(np.linalg.inv(hess), dtype=np.float64)
            if it == iterations:
                break
            step = cov @ grad
            big = float(np.max(np.abs(step)))
            if big > 400.0:
                step *= 400.0 / big
            theta += step
            if big < 0.01:
                break
        self.mu[:n] = theta
        self.var[:n] = np.diag(cov)

    # ------------------------------------------------------------------ the choice

    def density(self) -> FloatArray:
        """Rivals per Elo point around each bot: the active bots whose estimate lies within
        ``± 2 sd`` of the bot's (itself excluded), over the window's width (0 if inactive)."""
        n = len(self.names)
        act = self.active[:n]
        mu, sd = self.mu[:n], np.sqrt(self.var[:n])
        ordered = np.sort(mu[act])
        half = np.maximum(2.0 * sd, 10.0)
        count = (np.searchsorted(ordered, mu + half, "right")
                 - np.searchsorted(ordered, mu - half, "left") - 1)
        rho = np.maximum(count, 0) / (2.0 * half)
        if self.top and self.top_weight and ordered.size > self.top:
            # the top-``top`` boundary counts as ``top_weight`` rivals sitting between the
            # estimated ``top``-th and next bot
            cut = 0.5 * (ordered[-self.top] + ordered[-self.top - 1])
            z = (mu - cut) / sd
            rho = rho + self.top_weight * np.exp(-0.5 * z * z) / (math.sqrt(2 * math.pi) * sd)
        out: FloatArray = np.where(act, rho, 0.0)
        return out

    def gains(self, rows: npt.NDArray[np.intp], rho: FloatArray | None = None) -> FloatArray:
        """Expected reduction of the expected number of misordered pairs (up to a constant
        factor) by one duplicate pair of each bot in ``rows`` against every bot (shape
        ``len(rows) × bots``; ``-inf`` where the pair cannot be played)."""
        n = len(self.names)
        mu, var = self.mu[:n], self.var[:n]
        rho = self.density() if rho is None else rho
        vi = var[rows][:, None]
        vj = var[None, :]
        vsum = vi + vj
        kappa = 1.0 / np.sqrt(1.0 + math.pi * _C * _C * vsum / 8.0)
        p = _expit(kappa * _C * (mu[rows][:, None] - mu[None, :]))
        info = self.games_per_result * _C * _C * kappa * p * (1.0 - p)
        shrink = info / (1.0 + info * vsum)
        sdi, sdj = np.sqrt(vi), np.sqrt(vj)
        out: FloatArray = (rho[rows][:, None] * (sdi - np.sqrt(vi - vi * vi * shrink))
                           + rho[None, :] * (sdj - np.sqrt(vj - vj * vj * shrink)))
        out[:, ~self.active[:n]] = -np.inf
        out[np.arange(len(rows)), rows] = -np.inf
        return out

    def _best_opponent(self, i: int, rng: random.Random) -> int:
        row = self.gains(np.array([i], dtype=np.intp))[0]
        return int(_argmax(row, rng))

    def choose(self, rng: random.Random) -> tuple[str, str]:
        """The next pair to play (two distinct active bots), in random seat order."""
        n = len(self.names)
        act = np.flatnonzero(self.active[:n])
        if act.size < 2:
            raise ValueError("matchmaking needs at least two active bots")
        res = self.results[act]
        # 1. placement of new bots
        new = act[res < len(self.placement)]
        if new.size:
            least = new[self.results[new] == self.results[new].min()]
            i = int(least[rng.randrange(least.size)])
            others = act[act != i]
            jitter = np.array([rng.random() for _ in range(others.size)])
            order = others[np.lexsort((jitter, self.mu[others]))]
            q = self.placement[int(self.results[i])]
            j = int(order[min(others.size - 1, round(q * (others.size - 1)))])
            return self._seated(i, j, rng)
        # 2. minimum share
        floor = self.min_share * float(res.mean())
        late = act[res < floor]
        if late.size:
            i = int(late[np.argmin(self.results[late])])
            return self._seated(i, self._best_opponent(i, rng), rng)
        # 3. largest expected variance reduction
        k = min(self.candidates, act.size)
        rho = self.density()
        urgency = rho[act] * self.var[act] ** 1.5
        rows = act[np.argsort(-urgency, kind="stable")[:k]]
        g = self.gains(rows, rho)
        flat = int(_argmax(g.ravel(), rng))
        i, j = int(rows[flat // n]), flat % n
        return self._seated(i, j, rng)

    def choose_many(self, rng: random.Random, count: int, gate: PairGate | None = None
                    ) -> list[tuple[str, str]]:
        """The next ``count`` pairs, to play at once (a wave for parallel workers).

        After each choice the pair counts as played with the information it is expected to
        bring (variances shrink as :meth:`record` would shrink them, the result counts go up),
        so the next choice goes elsewhere; the beliefs are restored before returning, and the
        real results are then fed in with :meth:`record` as they arrive.

        ``gate`` (a policy of the caller, e.g. the arena's fair share of worker time) names
        before each choice the bots that may have one more pair; the others sit this choice
        out, and the wave ends early when fewer than two may play.
        """
        var, results = self.var.copy(), self.results.copy()
        chosen: list[tuple[str, str]] = []
        try:
            for _ in range(count):
                if gate is None:
                    a, b = self.choose(rng)
                else:
                    allowed = set(gate.allowed())
                    held = np.array([self.index[name] for name in self.bots
                                     if name not in allowed], dtype=np.intp)
                    if len(self.bots) - held.size < 2:
                        break
                    self.active[held] = False
                    try:
                        a, b = self.choose(rng)
                    finally:
                        self.active[held] = True
                    gate.chosen(a, b)
                chosen.append((a, b))
                i, j = self.index[a], self.index[b]
                self._shrink(i, j, self.games_per_result)
                self.results[i] += 1
                self.results[j] += 1
        finally:
            self.var, self.results = var, results
        return chosen

    def _seated(self, i: int, j: int, rng: random.Random) -> tuple[str, str]:
        a, b = self.names[i], self.names[j]
        return (a, b) if rng.random() < 0.5 else (b, a)


def posterior_system(n: int, lo: npt.NDArray[np.intp] | npt.NDArray[np.int64],
                     hi: npt.NDArray[np.intp] | npt.NDArray[np.int64], games: FloatArray,
                     pts: FloatArray, prior_var: float, theta: FloatArray
                     ) -> tuple[FloatArray, FloatArray]:
    """The gradient of the log posterior and the Hessian of its negative, at ``theta``, of the
    matchmaker's model (logistic in Elo, a ``N(0, prior_var)`` prior on every rating) given
    per-pairing totals (``lo < hi``): what a Newton step and the Laplace variances need."""
    p = _expit(_C * (theta[lo] - theta[hi]))
    resid = _C * (pts - games * p)
    grad: FloatArray = np.bincount(lo, resid, n) - np.bincount(hi, resid, n) - theta / prior_var
    w = _C * _C * games * p * (1.0 - p)
    hess: FloatArray = np.bincount(lo * n + hi, -w, n * n).astype(np.float64).reshape(n, n)
    hess += hess.T
    hess[np.diag_indices(n)] = np.bincount(lo, w, n) + np.bincount(hi, w, n) + 1.0 / prior_var
    return grad, hess


def _argmax(values: FloatArray, rng: random.Random) -> int:
    """Index of the largest value; exact ties broken by ``rng``."""
    ties = np.flatnonzero(values == values.max())
    return int(ties[rng.randrange(ties.size)] if ties.size > 1 else ties[0])


# ----------------------------------------------------------------------------- rank accuracy


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-a of two equally long sequences, in O(n log n): (concordant − discordant)
    pairs over all ``n (n − 1) / 2`` pairs; a pair tied in either sequence counts as neither.

    >>> kendall_tau([1, 2, 3, 4], [10, 20, 40, 30])
    0.6666666666666666
    """
    n = len(x)
    if n != len(y):
        raise ValueError("kendall_tau needs two sequences of the same length")
    if n < 2:
        return math.nan
    pairs = sorted(zip(x, y, strict=True))
    ys = [b for _, b in pairs]
    discordant = _inversions(ys)
    total = n * (n - 1) // 2

    def tied(values: Iterable[object]) -> int:
        counts: dict[object, int] = {}
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        return sum(c * (c - 1) // 2 for c in counts.values())

    ties_x, ties_y, ties_xy = tied(x), tied(y), tied(pairs)
    concordant = total - discordant - ties_x - ties_y + ties_xy
    return (concordant - discordant) / total


def _inversions(values: list[float]) -> int:
    """Pairs i < j with values[i] > values[j] (strictly), by merge sort."""
    count = 0
    width = 1
    data = list(values)
    n = len(data)
    while width < n:
        merged: list[float] = []
        for start in range(0, n, 2 * width):
            left = data[start:start + width]
            right = data[start + width:start + 2 * width]
            a = b = 0
            while a < len(left) and b < len(right):
                if right[b] < left[a]:
                    merged.append(right[b])
                    count += len(left) - a
                    b += 1
                else:
                    merged.append(left[a])
                    a += 1
            merged.extend(left[a:])
            merged.extend(right[b:])
        data = merged
        width *= 2
    return count
