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
* A weak prior keeps every estimate finite: ``prior_draws`` virtual drawn games (default 1) between
  every two bots that met in some game (as opponents or teammates). It matters only when the data
  say "infinitely better": a bot that won or lost every game gets a large, finite rating with a
  wide interval and is flagged (``BotElo.perfect``). With thousands of games per pair it moves
  nothing visibly.
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

from harness.stats import outcome
from harness.stats.outcome import Result

Interval = Literal["curvature", "bootstrap"]
INTERVALS: tuple[str, ...] = ("curvature", "bootstrap")
Perfect = Literal["won all", "lost all"]

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of log-odds
_C = 1.0 / ELO_PER_NAT
_MAX_STEP = 400.0  # Newton steps are capped at this many Elo points
_TOL = 1e-7  # convergence: largest step, in Elo points

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


def _components(size: int, rows: Sequence[Row]) -> list[int]:
    """Component label of every bot (union-find over the bots of each row)."""
    parent = list(range(size))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for row in rows:
        first = find(row[0][0])
        for i, _ in row[1:]:
            parent[find(i)] = first
    return [find(i) for i in range(size)]


def _prior_rows(rows: Sequence[Row]) -> list[Row]:
    """One virtual one-against-one comparison for every two bots that met in some row."""
    met: set[tuple[int, int]] = set()
    for row in rows:
        bots = [i for i, _ in row]
        for a in range(len(bots)):
            for b in range(a + 1, len(bots)):
                met.add((bots[a], bots[b]))
    return [((a, 1.0), (b, -1.0)) for a, b in sorted(met)]


# ----------------------------------------------------------------------------- fitting


def _expit(x: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def _loglik(x: FloatArray, n: FloatArray, s: FloatArray, theta: FloatArray) -> float:
    eta = _C * (x @ theta)
    # log p = -log(1+e^-eta), log(1-p) = -log(1+e^eta)
    return float(-(s * np.logaddexp(0.0, -eta) + (n - s) * np.logaddexp(0.0, eta)).sum())


def _newton(x: FloatArray, n: FloatArray, s: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The MLE (Elo points) of the reduced parameters and its covariance (inverse information)."""
    theta = np.zeros(x.shape[1])
    ll = _loglik(x, n, s, theta)
    for _ in range(200):
        p = _expit(_C * (x @ theta))
        grad = _C * (x.T @ (s - n * p))
        info = (x.T * (_C * _C * n * p * (1.0 - p))) @ x
        step = np.linalg.solve(info, grad)
        big = float(np.max(np.abs(step))) if step.size else 0.0
        if big > _MAX_STEP:
            step *= _MAX_STEP / big
        for _ in range(60):  # halve the step until the likelihood does not drop
            trial = theta + step
            new = _loglik(x, n, s, trial)
            if new >= ll - 1e-12 * abs(ll):
                break
            step *= 0.5
        theta, ll = trial, new
        if big < _TOL:
            break
    else:
        raise ValueError("the Elo fit did not converge; give a larger prior_draws")
    p = _expit(_C * (x @ theta))
    info = (x.T * (_C * _C * n * p * (1.0 - p))) @ x
    cov: FloatArray = np.asarray(np.linalg.inv(info), dtype=np.float64)
    return theta, cov


def _newton_batch(x: FloatArray, n: FloatArray, s: FloatArray, theta0: FloatArray) -> FloatArray:
    """Newton's method on many data sets at once (rows of ``n``, ``s``), from ``theta0``."""
    theta = np.repeat(theta0[None, :], n.shape[0], axis=0)
    for _ in range(100):
        p = _expit(_C * (theta @ x.T))
        grad = _C * ((s - n * p) @ x)
        w = _C * _C * n * p * (1.0 - p)
        info = np.einsum("bm,mi,mj->bij", w, x, x, optimize=True)
        step = np.linalg.solve(info, grad[:, :, None])[:, :, 0]
        big = np.max(np.abs(step), axis=1, keepdims=True)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(big, 1e-300))
        theta += step
        if float(big.max()) < _TOL:
            return theta
    raise ValueError("a bootstrap fit did not converge; give a larger prior_draws")


@dataclass
class _Design:
    x: FloatArray  # rows x free parameters
    embed: FloatArray  # bots x free parameters: full ratings = embed @ theta
    report: FloatArray  # bots x bots: reported ratings = report @ full ratings
    n_prior: FloatArray
    labels: list[int]


def _design(data: _Data, anchor: str | None, prior_draws: float) -> _Design:
    size = len(data.names)
    labels = _components(size, data.rows)
    prior = _prior_rows(data.rows)
    all_rows = data.rows + prior
    reference: dict[int, int] = {}
    if anchor is not None:
        a = data.names.index(anchor)
        reference[labels[a]] = a
    for i in range(size):
        reference.setdefault(labels[i], i)
    free = [i for i in range(size) if reference[labels[i]] != i]
    column = {bot: c for c, bot in enumerate(free)}
    x = np.zeros((len(all_rows), len(free)))
    for r, row in enumerate(all_rows):
        for i, c in row:
            if i in column:
                x[r, column[i]] = c
    embed = np.zeros((size, len(free)))
    for bot, c in column.items():
        embed[bot, c] = 1.0
    report = np.eye(size)
    anchored = labels[data.names.index(anchor)] if anchor is not None else None
    for label in set(labels):
        if label == anchored:
            continue
        members = [i for i in range(size) if labels[i] == label]
        for i in members:
            for j in members:
                report[i, j] -= 1.0 / len(members)
    n_prior = np.full(len(prior), float(prior_draws))
    return _Design(x, embed, report, n_prior, labels)


def fit_elo(results: Iterable[Result], *, anchor: str | None = None, level: float = 0.95,
            interval: Interval = "curvature", bootstrap_samples: int = 1000, seed: int = 0,
            prior_draws: float = 1.0) -> EloFit:
    """Fit Elo ratings to ``results``; see the module docstring for the model and options.

    Raises ValueError (one line naming the fix) for an anchor not in the pool, a level outside
    (0, 1), an unknown interval method, a non-positive prior or bootstrap sample count.
    """
    z = z_value(level)
    if interval not in INTERVALS:
        raise ValueError(f"unknown interval method {interval!r}; choose one of "
                         f"{', '.join(INTERVALS)}")
    if not prior_draws > 0:
        raise ValueError(f"prior_draws must be positive (got {prior_draws}); the default is 1")
    if interval == "bootstrap" and bootstrap_samples < 2:
        raise ValueError(f"bootstrap_samples must be at least 2 (got {bootstrap_samples})")
    data = _collect(results)
    if anchor is not None and anchor not in data.names:
        pool = ", ".join(data.names) if data.names else "no bots"
        raise ValueError(f"anchor {anchor!r} is not in the pool ({pool}); "
                         f"name one of them or leave the anchor out")
    size = len(data.names)
    design = _design(data, anchor, prior_draws)
    n = np.concatenate([data.n, design.n_prior])
    s = np.concatenate([data.s, 0.5 * design.n_prior])
    if design.x.shape[1] == 0:  # no two bots ever met
        theta, cov_theta = np.zeros(0), np.zeros((0, 0))
        interval = "curvature"
    else:
        theta, cov_theta = _newton(design.x, n, s)
    to_report = design.report @ design.embed
    elo = to_report @ theta
    samples = 0
    if interval == "bootstrap":
        reps = _bootstrap(data, design, theta, bootstrap_samples, seed) @ to_report.T
        samples = bootstrap_samples
        cov = np.atleast_2d(np.cov(reps, rowvar=False))
        lo_q, hi_q = np.quantile(reps, [0.5 - level / 2.0, 0.5 + level / 2.0], axis=0)
        low, high = lo_q.tolist(), hi_q.tolist()
    else:
        cov = to_report @ cov_theta @ to_report.T
        se_c = np.sqrt(np.maximum(np.diag(cov), 0.0))
        low, high = (elo - z * se_c).tolist(), (elo + z * se_c).tolist()
    se = np.sqrt(np.maximum(np.diag(cov), 0.0)).tolist() if size else []
    comp_members: dict[int, list[int]] = {}
    for i, label in enumerate(design.labels):
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
                      if i != j and design.labels[i] == design.labels[j] else None
                      for j in order) for i in order)
    return EloFit(tuple(bots[i] for i in order), los,
                  tuple(tuple(data.names[i] for i in m) for m in order_comp), interval, level,
                  anchor, data.rated, data.void, data.uninformative, samples)


def _los(diff: float, var: float) -> float:
    if var <= 0.0:
        return 0.5 if abs(diff) < 1e-9 else float(diff > 0)
    return NormalDist().cdf(diff / math.sqrt(var))


def _bootstrap(data: _Data, design: _Design, theta: FloatArray, samples: int,
               seed: int) -> FloatArray:
    """Free parameters (samples x parameters) refitted on resamples of whole duplicate pairs."""
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
    prior_n = np.broadcast_to(design.n_prior, (samples, design.n_prior.size))
    n_all = np.concatenate([n_rep, prior_n], axis=1)
    s_all = np.concatenate([s_rep, 0.5 * prior_n], axis=1)
    p = design.x.shape[1]
    chunk = max(1, int(4e6 // max(1, p * p + p * design.x.shape[0])))
    thetas = [
        _newton_batch(design.x, n_all[i:i + chunk], s_all[i:i + chunk], theta)
        for i in range(0, samples, chunk)
    ]
    out: FloatArray = np.concatenate(thetas, axis=0)
    return out
