"""Adaptive matchmaking for a living league: which two bots play the next duplicate pair.

Two parts, beside each other: the **model** (:mod:`.model`, :class:`Beliefs`: every bot's rating
with its uncertainty, from the one Bradley–Terry fit, kept result by result) and the **policy**
(:mod:`.policy`: a pairing rule, :class:`InformationGain` by default). :class:`Matchmaker` is the
model with a policy: bots join and leave at any time, every result is fed in as it arrives
(:meth:`~Beliefs.record`), and :meth:`Matchmaker.choose` names the next pair, seated at random.
docs/matchmaking.md has the criterion and its measurements.

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

import random
from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from harness.arena.matchmaking.model import Beliefs
from harness.arena.matchmaking.policy import PLACEMENT, InformationGain, PairingPolicy

__all__ = ["Beliefs", "InformationGain", "Matchmaker", "PairGate", "PairingPolicy"]

FloatArray = npt.NDArray[np.float64]


class PairGate(Protocol):
    """Which bots may get one more pair of a wave (:meth:`Matchmaker.choose_many`)."""

    def allowed(self) -> Collection[str]: ...

    def chosen(self, a: str, b: str) -> None: ...


class Matchmaker(Beliefs):
    """The model (:class:`Beliefs`) and a pairing rule (``policy``; default
    :class:`InformationGain` made of ``placement``, ``min_share``, ``candidates``, ``top``,
    ``top_weight``): ratings with uncertainty, and the choice of the next pair."""

    def __init__(self, bots: Iterable[str] = (), *, policy: PairingPolicy | None = None,
                 prior_sd: float | None = None, placement: Sequence[float] = PLACEMENT,
                 min_share: float = 0.5, candidates: int = 32, refit_every: int | None = None,
                 games_per_result: int = 2, top: int = 10, top_weight: float = 5.0) -> None:
        self.policy: PairingPolicy = policy or InformationGain(
            tuple(placement), min_share, candidates, top, top_weight)
        super().__init__(bots, prior_sd=prior_sd, refit_every=refit_every,
                         games_per_result=games_per_result)

    def density(self) -> FloatArray:
        """The rivals per Elo point around each bot (the default policy's weights)."""
        return self._gain_policy().density(self)

    def gains(self, rows: npt.NDArray[np.intp], rho: FloatArray | None = None) -> FloatArray:
        """The default policy's gain of a pair of each bot in ``rows`` against every bot."""
        return self._gain_policy().gains(self, rows, rho)

    def _gain_policy(self) -> InformationGain:
        if not isinstance(self.policy, InformationGain):
            raise TypeError("density and gains are the InformationGain policy's")
        return self.policy

    def choose(self, rng: random.Random) -> tuple[str, str]:
        """The next pair to play (two distinct active bots), in random seat order."""
        i, j = self.policy.choose(self, rng)
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
                self.shrink(i, j, self.games_per_result)
                self.results[i] += 1
                self.results[j] += 1
        finally:
            self.var, self.results = var, results
        return chosen

    def _seated(self, i: int, j: int, rng: random.Random) -> tuple[str, str]:
        a, b = self.names[i], self.names[j]
        return (a, b) if rng.random() < 0.5 else (b, a)
