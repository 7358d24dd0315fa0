"""Pairing rules: which two bots of the model (:mod:`harness.arena.matchmaking.model`) play
next. A rule is a :class:`PairingPolicy`; :class:`InformationGain` is the living league's. A new
rule is a class beside it with a ``choose(model, rng)``, handed to the
:class:`~harness.arena.matchmaking.Matchmaker` as ``policy=``.

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
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from harness.arena.matchmaking.model import Beliefs
from harness.stats.bradley_terry import ELO_PER_NAT

FloatArray = npt.NDArray[np.float64]

_C = 1.0 / ELO_PER_NAT  # log-odds per Elo point
PLACEMENT = (0.5, 0.15, 0.85)


def _expit(x: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


class PairingPolicy(Protocol):
    """A pairing rule: the next pair of two distinct active bots of ``model`` (their indices
    into ``model.names``); the matchmaker seats them and plays it."""

    def choose(self, model: Beliefs, rng: random.Random) -> tuple[int, int]: ...


@dataclass(frozen=True)
class InformationGain:
    """The living league's rule: place new bots at the quantiles ``placement``, keep every
    bot's share of results above ``min_share`` of the mean, otherwise the pair of largest
    expected drop in misordered pairs (``candidates`` bots scanned; the top ``top`` boundary
    weighs ``top_weight`` rivals)."""

    placement: Sequence[float] = PLACEMENT
    min_share: float = 0.5
    candidates: int = 32
    top: int = 10
    top_weight: float = 5.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.min_share < 1.0 or self.candidates < 1:
            raise ValueError("min_share must be in [0, 1), candidates >= 1")

    def density(self, model: Beliefs) -> FloatArray:
        """Rivals per Elo point around each bot: the active bots whose estimate lies within
        ``± 2 sd`` of the bot's (itself excluded), over the window's width (0 if inactive)."""
        n = len(model.names)
        act = model.active[:n]
        mu, sd = model.mu[:n], np.sqrt(model.var[:n])
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

    def gains(self, model: Beliefs, rows: npt.NDArray[np.intp],
              rho: FloatArray | None = None) -> FloatArray:
        """Expected reduction of the expected number of misordered pairs (up to a constant
        factor) by one duplicate pair of each bot in ``rows`` against every bot (shape
        ``len(rows) × bots``; ``-inf`` where the pair cannot be played)."""
        n = len(model.names)
        mu, var = model.mu[:n], model.var[:n]
        rho = self.density(model) if rho is None else rho
        vi = var[rows][:, None]
        vj = var[None, :]
        vsum = vi + vj
        kappa = 1.0 / np.sqrt(1.0 + math.pi * _C * _C * vsum / 8.0)
        p = _expit(kappa * _C * (mu[rows][:, None] - mu[None, :]))
        info = model.games_per_result * _C * _C * kappa * p * (1.0 - p)
        shrink = info / (1.0 + info * vsum)
        sdi, sdj = np.sqrt(vi), np.sqrt(vj)
        out: FloatArray = (rho[rows][:, None] * (sdi - np.sqrt(vi - vi * vi * shrink))
                           + rho[None, :] * (sdj - np.sqrt(vj - vj * vj * shrink)))
        out[:, ~model.active[:n]] = -np.inf
        out[np.arange(len(rows)), rows] = -np.inf
        return out

    def _best_opponent(self, model: Beliefs, i: int, rng: random.Random) -> int:
        row = self.gains(model, np.array([i], dtype=np.intp))[0]
        return int(_argmax(row, rng))

    def choose(self, model: Beliefs, rng: random.Random) -> tuple[int, int]:
        """The next pair to play: two distinct active bots (indices into ``model.names``)."""
        n = len(model.names)
        act = np.flatnonzero(model.active[:n])
        if act.size < 2:
            raise ValueError("matchmaking needs at least two active bots")
        res = model.results[act]
        # 1. placement of new bots
        new = act[res < len(self.placement)]
        if new.size:
            least = new[model.results[new] == model.results[new].min()]
            i = int(least[rng.randrange(least.size)])
            others = act[act != i]
            jitter = np.array([rng.random() for _ in range(others.size)])
            order = others[np.lexsort((jitter, model.mu[others]))]
            q = self.placement[int(model.results[i])]
            j = int(order[min(others.size - 1, round(q * (others.size - 1)))])
            return i, j
        # 2. minimum share
        floor = self.min_share * float(res.mean())
        late = act[res < floor]
        if late.size:
            i = int(late[np.argmin(model.results[late])])
            return i, self._best_opponent(model, i, rng)
        # 3. largest expected variance reduction
        k = min(self.candidates, act.size)
        rho = self.density(model)
        urgency = rho[act] * model.var[act] ** 1.5
        rows = act[np.argsort(-urgency, kind="stable")[:k]]
        g = self.gains(model, rows, rho)
        flat = int(_argmax(g.ravel(), rng))
        i, j = int(rows[flat // n]), flat % n
        return i, j


def _argmax(values: FloatArray, rng: random.Random) -> int:
    """Index of the largest value; exact ties broken by ``rng``."""
    ties = np.flatnonzero(values == values.max())
    return int(ties[rng.randrange(ties.size)] if ties.size > 1 else ties[0])
