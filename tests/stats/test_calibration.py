"""Calibration: simulated leagues between synthetic players of known strength (results drawn from
the model, no games played). The 95 % intervals must cover the true Elo in 93–97 % of cases, and
the SPRT must accept the wrong hypothesis at elo0 / elo1 at a rate within ±0.03 of alpha / beta
(300 runs each: about 2.5 standard errors)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from harness.stats.elo import fit_elo
from harness.stats.outcome import Result
from harness.stats.sprt import NELO_PER_T, SCORES, Sprt, SprtParams

TRUE = [-120.0, -60.0, -20.0, 20.0, 60.0, 120.0]  # mean 0, the fit's default anchoring
NAMES = [f"bot{i}" for i in range(len(TRUE))]


def expected(diff: float) -> float:
    return float(1.0 / (1.0 + 10.0 ** (-diff / 400.0)))


def league(rng: np.random.Generator, pairs: int, draw: float, luck: float) -> list[Result]:
    """Duplicate pairs of every pairing. A game's expected score follows the model exactly;
    draws take ``draw`` of the games; a pair's deal favours one seat by up to ``luck`` in
    probability, so the two games of a pair are negatively correlated, as with real deals."""
    out = []
    for i in range(len(TRUE)):
        for j in range(i + 1, len(TRUE)):
            p = expected(TRUE[i] - TRUE[j])
            width = min(luck, p - draw / 2, 1 - p - draw / 2)
            for k in range(pairs):
                shift = rng.uniform(-width, width)
                for seat, win in ((0, p + shift), (1, p - shift)):
                    u = rng.random()
                    s = 1.0 if u < win - draw / 2 else 0.5 if u < win + draw / 2 else 0.0
                    sides = ((NAMES[i],), (NAMES[j],))
                    scores = (s, 1.0 - s)
                    if seat:
                        sides, scores = sides[::-1], scores[::-1]
                    out.append(Result(sides, scores, pair_id=f"{i}-{j}-{k}"))
    return out


def coverage(interval: str, repeats: int, pairs: int, draw: float, luck: float) -> float:
    rng = np.random.default_rng(5)
    hit = total = 0
    for r in range(repeats):
        fit = fit_elo(league(rng, pairs, draw, luck), interval=interval,  # type: ignore[arg-type]
                      bootstrap_samples=300, seed=r)
        for name, true in zip(NAMES, TRUE, strict=True):
            b = fit.bot(name)
            hit += b.low <= true <= b.high
            total += 1
    return hit / total


@pytest.mark.slow
def test_curvature_intervals_cover_the_true_elo() -> None:
    # independent games without draws: the case the curvature interval is exact for
    assert 0.93 <= coverage("curvature", 300, 30, draw=0.0, luck=0.0) <= 0.97


@pytest.mark.slow
def test_bootstrap_intervals_cover_the_true_elo_with_draws_and_correlated_pairs() -> None:
    assert 0.93 <= coverage("bootstrap", 250, 30, draw=0.3, luck=0.2) <= 0.97


def pentanomial(score: float, draw: float = 0.3, luck: float = 0.1) -> list[float]:
    """Pair outcome probabilities: per-game expected score ``score``, the deal favouring one
    seat by ±luck (each half the time)."""
    out = [0.0] * 5
    for shift in (-luck, luck):
        first = [1 - draw - (score - draw / 2 + shift), draw, score - draw / 2 + shift]
        second = [1 - draw - (score - draw / 2 - shift), draw, score - draw / 2 - shift]
        for a in range(3):
            for b in range(3):
                out[a + b] += 0.5 * first[a] * second[b]
    return out


def nelo(p: list[float]) -> float:
    mu = sum(x * a for x, a in zip(p, SCORES, strict=True))
    var = sum(x * (a - mu) ** 2 for x, a in zip(p, SCORES, strict=True))
    return (mu - 0.5) / math.sqrt(2 * var) * NELO_PER_T


def score_for(target: float, model: str) -> float:
    if model == "logistic":
        return expected(target)
    lo, hi = 0.3, 0.7
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if nelo(pentanomial(mid)) < target else (lo, mid)
    return (lo + hi) / 2


def wrong_rate(true: float, params: SprtParams, runs: int, seed: int) -> float:
    probs = pentanomial(score_for(true, params.model))
    rng = random.Random(seed)
    right = "H0" if true == params.elo0 else "H1"
    wrong = 0
    for _ in range(runs):
        test = Sprt(params)
        while test.verdict is None:
            test.update(rng.choices((0.0, 0.5, 1.0, 1.5, 2.0), probs)[0])
        wrong += test.verdict != right
    return wrong / runs


@pytest.mark.slow
@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_sprt_error_rates_match_alpha_and_beta(model: str) -> None:
    params = SprtParams(0.0, 30.0, 0.05, 0.1, model)  # type: ignore[arg-type]
    assert abs(wrong_rate(0.0, params, 300, 1) - params.alpha) <= 0.03
    assert abs(wrong_rate(30.0, params, 300, 2) - params.beta) <= 0.03
