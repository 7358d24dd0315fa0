"""Batch Elo ratings: a Bradley–Terry fit by maximum likelihood over all rated games at once.

The model: every bot ``i`` has a rating ``r_i`` on the Elo scale, and a side (one bot, or a team)
beats another with probability ``1 / (1 + 10 ** (-(R_x - R_y) / 400))``, where a side's strength
``R`` is the **mean of its members' ratings** (a War Chest team of ``a`` and ``b`` is as strong as
the average of the two; a team of one bot twice is that bot). The fit is order-free: the same
games give the same ratings, whatever order they were played or stored in.

* A draw counts as half a win each way (as Ordo and BayesElo do by default).
* A free-for-all game of ``k`` sides counts as the ``k (k - 1) / 2`` pairwise comparisons of its
  ranking, each weighted ``1 / (k - 1)``, so every side takes part in one game's worth of
  comparisons. A two-sided game is one comparison of weight 1.
* Void games are counted and left out; a game whose sides are made of the same bots teaches
  nothing and is counted as uninformative.
* The prior is a parameter (``prior``, :class:`~harness.stats.bradley_terry.Prior`; the one fit
  is :mod:`harness.stats.bradley_terry`, which the arena's leaderboard and matchmaker use too, so
  the same games give the same rating everywhere). By default every rating is ``N(0, sd²)`` with
  the spread ``sd`` estimated from the games (empirical Bayes): it keeps every estimate finite
  (a bot that won or lost every game is flagged, ``BotElo.perfect``) and follows the field's
  true spread, narrow or wide. ``prior_draws`` virtual draws between every two bots that met
  (BayesElo's and Ordo's way) are the prior of a pool too small to show a spread (fewer than
  five bots: a two-bot match gets its score's Elo) and of the bootstrap interval (which sees an
  estimate's spread over resamples, never a shrinkage's bias), or when asked for.
* Ratings are anchored so that the pool mean is 0, or a named bot sits at 0 (``anchor``). Bots
  that never met, even through others, cannot be compared: each connected component of the
  "played together" graph is reported, every component other than the anchor's is centred on its
  own mean, and the LOS between bots of different components is ``None``.

Intervals (``interval=``), at the selectable ``level`` (default 0.95):

* ``"curvature"``: the Wald interval ``elo ± z·se``, with the covariance from the inverse of the
  log-likelihood's curvature (Fisher information). Asymptotic: its coverage is nominal only in
  the large-sample limit, for independent games without draws; draws and seat-swapped pairs
  make it wider than needed (conservative), since both lower the true variance of a game's
  score.
* ``"bootstrap"``: the fit repeated on resamples of whole **duplicate pairs** (games with the same
  ``pair_id``, with replacement; a game without a pair id is its own unit), which keeps the
  variance reduction of the seat swap; percentile interval, covariance from the replicates.

LOS (likelihood of superiority) of ``a`` over ``b`` is ``Φ((r_a − r_b) / sd(r_a − r_b))`` with the
covariance of the chosen method.

>>> games = [Result((("a",), ("b",)), (1.0, 0.0), pair_id=f"p{i}") for i in range(3)]
>>> games += [Result((("b",), ("a",)), (1.0, 0.0), pair_id=f"p{i}") for i in range(3)]
>>> fit = fit_elo(games)
>>> [(b.name, round(b.elo, 6)) for b in fit.bots]
[('a', 0.0), ('b', 0.0)]
>>> fit.los_of("a", "b")
0.5
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from harness.stats import bradley_terry as bt
from harness.stats import outcome
from harness.stats.bradley_terry import ELO_PER_NAT, Prior
from harness.stats.outcome import Result

__all__ = ["ELO_PER_NAT", "INTERVALS", "BotElo", "EloFit", "Interval", "Prior", "fit_elo",
           "z_value"]

Interval = Literal["curvature", "bootstrap"]
INTERVALS: tuple[str, ...] = ("curvature", "bootstrap")
Perfect = Literal["won all", "lost all"]


FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class BotElo:
    """One bot's batch rating."""

    name: str
    elo: float
    low: float  # interval bounds at the fit's level
    high: float
    se: float  # standard error (Elo points)
    games: int  # rated games played
    score: float  # share of points taken in its comparisons (a draw is a half)
    perfect: Perfect | None  # won or lost every game: the estimate leans on the prior
    component: int  # index into EloFit.components

    def as_dict(self) -> dict[str, Any]:
        return {"bot": self.name, "elo": _finite(self.elo), "low": _finite(self.low),
                "high": _finite(self.high), "se": _finite(self.se), "games": self.games,
                "score": round(self.score, 4), "perfect": self.perfect,
                "component": self.component}


@dataclass(frozen=True)
class EloFit:
    """The batch fit: bots best first, the LOS matrix in the same order."""

    bots: tuple[BotElo, ...]
    los: tuple[tuple[float | None, ...], ...]  # los[i][j]: P(bots[i] stronger than bots[j])
    components: tuple[tuple[str, ...], ...]  # bots that can be compared, largest first
    interval: Interval
    level: float
    anchor: str | None  # None: each component's mean is 0
    rated_games: int
    void_games: int
    uninformative_games: int
    bootstrap_samples: int  # 0 for the curvature interval
    prior: str = ""  # the prior in words
    prior_sd: float = math.inf  # the Gaussian prior's spread (inf: virtual draws)

    @property
    def method(self) -> str:
        """The interval method in words, for the output."""
        if self.interval == "bootstrap":
            return f"bootstrap over duplicate pairs ({self.bootstrap_samples} resamples)"
        return "curvature of the likelihood (Wald)"

    def bot(self, name: str) -> BotElo:
        for b in self.bots:
            if b.name == name:
                return b
        raise KeyError(name)

    def los_of(self, a: str, b: str) -> float | None:
        """P(a is stronger than b); None if they cannot be compared."""
        names = [x.name for x in self.bots]
        return self.los[names.index(a)][names.index(b)]

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe: non-finite numbers become None."""
        return {
            "elo": [b.as_dict() for b in self.bots],
            "los": {a.name: {b.name: _finite(v, 4) for b, v in zip(self.bots, row, strict=True)
                             if v is not None}
                    for a, row in zip(self.bots, self.los, strict=True)},
            "components": [list(c) for c in self.components],
            "interval": self.interval, "method": self.method, "level": self.level,
            "anchor": self.anchor, "rated_games": self.rated_games,
            "void_games": self.void_games, "uninformative_games": self.uninformative_games,
            "prior": self.prior, "prior_sd": _finite(self.prior_sd, 1),
        }


def _finite(x: float | None, digits: int = 2) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, digits)


def z_value(level: float) -> float:
    """The two-sided normal quantile for a confidence level in (0, 1)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level {level} is outside (0, 1); give e.g. 0.95")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


# ----------------------------------------------------------------------------- data

Row = tuple[tuple[int, float], ...]  # (bot index, coefficient) pairs, canonical orientation


@dataclass
class _Data:
    names: list[str]
    rows: list[Row]
    n: FloatArray  # weight of comparisons per row
    s: FloatArray  # points of the row's positive side
    cluster_types: list[tuple[tuple[int, float, float], ...]]  # (row, weight, points) entries
    cluster_counts: list[int]
    games: list[int]
    points: list[float]
    weight: list[float]
    rated: int
    void: int
    uninformative: int


def _row(index: dict[str, int], plus: tuple[str, ...], minus: tuple[str, ...]) -> tuple[Row, int]:
    """The canonical design row of ``plus`` beating ``minus`` and its orientation (+1/-1)."""
    coef: dict[int, float] = {}
    for side, sign in ((plus, 1.0), (minus, -1.0)):
        for name in side:
            i = index[name]
            coef[i] = coef.get(i, 0.0) + sign / len(side)
    items = tuple(sorted((i, c) for i, c in coef.items() if abs(c) > 1e-12))
    if not items:
        return (), 0
    if items[0][1] < 0:
        return tuple((i, -c) for i, c in items), -1
    return items, 1


def _collect(results: Iterable[Result]) -> _Data:
    games = [r for r in results]
    names = sorted({n for g in games for side in g.sides for n in side})
    index = {n: i for i, n in enumerate(names)}
    row_of: dict[Row, int] = {}
    n_acc: list[float] = []
    s_acc: list[float] = []
    clusters: dict[str, list[tuple[int, float, float]]] = {}
    played = [0] * len(names)
    points = [0.0] * len(names)
    weight = [0.0] * len(names)
    rated = void = uninformative = 0
    for g_index, game in enumerate(games):
        if game.void:
            void += 1
            continue
        k = len(game.sides)
        w = 1.0 / (k - 1)
        entries: list[tuple[int, float, float]] = []
        for x in range(k):
            for y in range(x + 1, k):
                row, sign = _row(index, game.sides[x], game.sides[y])
                if sign == 0:
                    continue
                sx, sy = game.scores[x], game.scores[y]
                won = outcome.points(sx, sy)
                r = row_of.setdefault(row, len(row_of))
                if r == len(n_acc):
                    n_acc.append(0.0)
                    s_acc.append(0.0)
                pts = w * (won if sign > 0 else 1.0 - won)
                n_acc[r] += w
                s_acc[r] += pts
                entries.append((r, w, pts))
                for side, got in ((game.sides[x], won), (game.sides[y], 1.0 - won)):
                    for name in set(side):
                        points[index[name]] += w * got
                        weight[index[name]] += w
        if not entries:
            uninformative += 1
            continue
        rated += 1
        for name in {n for side in game.sides for n in side}:
            played[index[name]] += 1
        key = game.pair_id or f"\0game{g_index}"
        clusters.setdefault(key, []).extend(entries)
    types: dict[tuple[tuple[int, float, float], ...], int] = {}
    for entries in clusters.values():
        t = tuple(sorted(entries))
        types[t] = types.get(t, 0) + 1
    return _Data(names, list(row_of), np.array(n_acc, dtype=np.float64),
                 np.array(s_acc, dtype=np.float64), list(types), list(types.values()),
                 played, points, weight, rated, void, uninformative)


def _prior(prior: Prior | None, prior_draws: float | None) -> Prior:
    if prior_draws is not None:
        if not prior_draws > 0:
            raise ValueError(f"prior_draws must be positive (got {prior_draws}); leave it out "
                             f"for the Gaussian prior whose spread the games give")
        if prior is not None:
            raise ValueError("give a prior or prior_draws, not both")
        return Prior(draws=prior_draws)
    return prior or Prior()


def _report(names: Sequence[str], pools: npt.NDArray[np.intp], anchor: str | None
            ) -> npt.NDArray[np.float64]:
    """Ratings relative to their pool's mean -> the ratings reported: relative to the anchor
    in the anchor's pool."""
    size = len(names)
    report = np.eye(size)
    if anchor is not None:
        a = list(names).index(anchor)
        for i in np.flatnonzero(pools == pools[a]).tolist():
            report[i, a] -= 1.0
    return report


def fit_elo(results: Iterable[Result], *, anchor: str | None = None, level: float = 0.95,
            interval: Interval = "curvature", bootstrap_samples: int = 1000, seed: int = 0,
            prior: Prior | None = None, prior_draws: float | None = None) -> EloFit:
    """Fit Elo ratings to ``results``; see the module docstring for the model and options.

    ``prior``: the fit's prior (:class:`~harness.stats.bradley_terry.Prior`; default a
    Gaussian whose spread the games give); ``prior_draws``: virtual draws instead.
    Raises ValueError (one line naming the fix) for an anchor not in the pool, a level outside
    (0, 1), an unknown interval method, a non-positive prior or bootstrap sample count.
    """
    z = z_value(level)
    if interval not in INTERVALS:
        raise ValueError(f"unknown interval method {interval!r}; choose one of "
                         f"{', '.join(INTERVALS)}")
    chosen = _prior(prior, prior_draws)
    if interval == "bootstrap" and prior is None and prior_draws is None:
        chosen = Prior(draws=1.0)  # resamples see the spread of an estimate, not a shrinkage
    if interval == "bootstrap" and bootstrap_samples < 2:
        raise ValueError(f"bootstrap_samples must be at least 2 (got {bootstrap_samples})")
    data = _collect(results)
    if anchor is not None and anchor not in data.names:
        pool = ", ".join(data.names) if data.names else "no bots"
        raise ValueError(f"anchor {anchor!r} is not in the pool ({pool}); "
                         f"name one of them or leave the anchor out")
    size = len(data.names)
    comparisons = bt.Comparisons.of_rows(data.names, data.rows, data.n, data.s)
    fitted = bt.fit(comparisons, chosen)
    labels = fitted.pools.tolist()
    if len(set(labels)) == size:  # no two bots ever met
        interval = "curvature"
    report = _report(data.names, fitted.pools, anchor)
    elo = report @ fitted.mu
    samples = 0
    if interval == "bootstrap":
        reps = _bootstrap(data, comparisons, fitted, bootstrap_samples, seed) @ report.T
        samples = bootstrap_samples
        cov = np.atleast_2d(np.cov(reps, rowvar=False))
        lo_q, hi_q = np.quantile(reps, [0.5 - level / 2.0, 0.5 + level / 2.0], axis=0)
        low, high = lo_q.tolist(), hi_q.tolist()
    else:
        cov = report @ fitted.cov @ report.T
        se_c = np.sqrt(np.maximum(np.diag(cov), 0.0))
        low, high = (elo - z * se_c).tolist(), (elo + z * se_c).tolist()
    se = np.sqrt(np.maximum(np.diag(cov), 0.0)).tolist() if size else []
    comp_members: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        comp_members.setdefault(label, []).append(i)
    order_comp = sorted(comp_members.values(), key=lambda m: (-len(m), data.names[m[0]]))
    comp_index = {i: c for c, members in enumerate(order_comp) for i in members}
    bots = []
    for i, name in enumerate(data.names):
        alone = len(order_comp[comp_index[i]]) == 1
        score = data.points[i] / data.weight[i] if data.weight[i] else 0.5
        perfect: Perfect | None = None
        if data.weight[i] and score == 1.0:
            perfect = "won all"
        elif data.weight[i] and score == 0.0:
            perfect = "lost all"
        bots.append(BotElo(name, float(elo[i]), -math.inf if alone else low[i],
                           math.inf if alone else high[i], math.inf if alone else se[i],
                           data.games[i], score, perfect, comp_index[i]))
    order = sorted(range(size), key=lambda i: (-bots[i].elo, bots[i].name))
    los = tuple(tuple(_los(float(elo[i] - elo[j]), cov[i, i] + cov[j, j] - 2.0 * cov[i, j])
                      if i != j and labels[i] == labels[j] else None
                      for j in order) for i in order)
    return EloFit(tuple(bots[i] for i in order), los,
                  tuple(tuple(data.names[i] for i in m) for m in order_comp), interval, level,
                  anchor, data.rated, data.void, data.uninformative, samples,
                  fitted.describe(), fitted.sd)


def _los(diff: float, var: float) -> float:
    if var <= 0.0:
        return 0.5 if abs(diff) < 1e-9 else float(diff > 0)
    return NormalDist().cdf(diff / math.sqrt(var))


def _bootstrap(data: _Data, comparisons: bt.Comparisons, fitted: bt.Fit, samples: int,
               seed: int) -> npt.NDArray[np.float64]:
    """Ratings (samples x bots) refitted on resamples of whole duplicate pairs."""
    rng = np.random.default_rng(seed)
    counts = np.array(data.cluster_counts, dtype=np.float64)
    units = int(counts.sum())
    entry_type = np.array([t for t, entries in enumerate(data.cluster_types) for _ in entries],
                          dtype=np.intp)
    entry_row = np.array([e[0] for entries in data.cluster_types for e in entries], dtype=np.intp)
    entry_n = np.array([e[1] for entries in data.cluster_types for e in entries])
    entry_s = np.array([e[2] for entries in data.cluster_types for e in entries])
    m = len(data.rows)
    draws = rng.multinomial(units, counts / units, size=samples).astype(np.float64)
    n_rep = np.zeros((samples, m))
    s_rep = np.zeros((samples, m))
    for b in range(samples):
        w = draws[b, entry_type]
        n_rep[b] = np.bincount(entry_row, weights=w * entry_n, minlength=m)
        s_rep[b] = np.bincount(entry_row, weights=w * entry_s, minlength=m)
    return bt.refit_many(comparisons, fitted, n_rep, s_rep)
