"""The one fit's intervals in narrow and wide fields (issue 46): with the prior's spread
estimated from the games, 95 % intervals hold the truth about as often as they say and the
scale of the estimates follows the truth's, at a true spread of 300 Elo and of 600; the fixed
350-Elo prior the arena used before squeezes a 600-Elo field. A fast version of bench/stats.py's
figures (docs/arena.md quotes the full ones); the fields are drawn from a seeded generator."""

from __future__ import annotations

import pytest

from bench.stats import coverage
from harness.stats import bradley_terry as bt


@pytest.mark.parametrize("spread", [300.0, 600.0])
def test_estimated_spread_keeps_coverage_and_scale(spread: float) -> None:
    cover, ends, slope = coverage(spread, bt.Prior(), pairs_per_bot=80, repeats=10)
    assert 0.88 <= cover <= 0.99
    assert ends >= 0.75
    assert 0.88 <= slope <= 1.08


def test_the_old_fixed_prior_squeezes_a_wide_field() -> None:
    fixed = coverage(600.0, bt.Prior(sd=350.0), pairs_per_bot=20, repeats=10)
    estimated = coverage(600.0, bt.Prior(), pairs_per_bot=20, repeats=10)
    assert fixed[0] < 0.85 and fixed[2] < 0.78  # coverage and slope both well short
    assert estimated[0] > fixed[0] + 0.08 and estimated[2] > fixed[2] + 0.06


def test_the_spread_is_estimated_near_the_truth() -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    for spread in (100.0, 300.0, 600.0):
        true = rng.normal(0.0, spread, 40)
        lo, hi = np.triu_indices(40, 1)
        p = 1.0 / (1.0 + 10.0 ** (-(true[lo] - true[hi]) / 400.0))
        games = np.full(lo.size, 20.0)
        points = rng.binomial(20, p).astype(float)
        fitted = bt.fit(bt.Comparisons.pairwise([str(i) for i in range(40)], lo, hi, games,
                                                points))
        assert fitted.sd == pytest.approx(float(np.std(true)), rel=0.25)
        assert "estimated from the games" in fitted.describe()
