"""Rating statistics: the batch Elo fit with intervals for 20 bots and 100,000 games (50,000
duplicate pairs), with the curvature and with the pair bootstrap, the SPRT update per pair
in both Elo models, and the coverage of the one fit's 95 % intervals in fields whose true
ratings spread 300 and 600 Elo (sd), with the prior's spread estimated and with the fixed 350
the arena used before. Results are drawn from the model, so no game is played."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from bench import figure
from harness.stats import bradley_terry as bt
from harness.stats.elo import fit_elo
from harness.stats.outcome import Result
from harness.stats.sprt import Sprt, SprtParams


def _games(bots: int, pairs: int, seed: int = 1) -> list[Result]:
    rng = random.Random(seed)
    strength = [rng.gauss(0.0, 150.0) for _ in range(bots)]
    names = [f"bot{i:02d}" for i in range(bots)]
    pairings = [(i, j) for i in range(bots) for j in range(i + 1, bots)]
    out = []
    for k in range(pairs):
        i, j = pairings[k % len(pairings)]
        p = 1.0 / (1.0 + 10.0 ** (-(strength[i] - strength[j]) / 400.0))
        for seat in (0, 1):
            u = rng.random()
            s = 1.0 if u < p - 0.1 else 0.5 if u < p + 0.1 else 0.0
            sides, scores = ((names[i],), (names[j],)), (s, 1.0 - s)
            if seat:
                sides, scores = sides[::-1], scores[::-1]
            out.append(Result(sides, scores, pair_id=f"p{k}"))
    return out


def coverage(spread: float, prior: bt.Prior, *, bots: int = 30, pairs_per_bot: int = 20,
             repeats: int = 20, seed: int = 1) -> tuple[float, float, float]:
    """How often the one fit's 95 % intervals hold the truth, at the field's ends too, and the
    slope of the estimates on the truth (1: the scale kept; below 1: squeezed).

    Each repeat draws a field of ``bots`` true ratings ``N(0, spread²)``, plays
    ``pairs_per_bot`` duplicate pairs per bot between random opponents (each game won with the
    model's probability, no draws) and fits them under ``prior``; ratings and truth are both
    relative to the field's mean. The ends are the top and bottom tenth of each field."""
    rng = np.random.default_rng(seed)
    hit = total = end_hit = end_total = 0
    slopes = []
    names = [f"bot{i}" for i in range(bots)]
    for _ in range(repeats):
        true = rng.normal(0.0, spread, bots)
        true -= true.mean()
        m = bots * pairs_per_bot // 2
        a = rng.integers(0, bots, m)
        b = (a + rng.integers(1, bots, m)) % bots
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        p = 1.0 / (1.0 + 10.0 ** (-(true[lo] - true[hi]) / 400.0))
        won = (rng.random((m, 2)) < p[:, None]).sum(axis=1).astype(np.float64)
        key, at = np.unique(lo * bots + hi, return_inverse=True)
        games = np.bincount(at, minlength=key.size) * 2.0
        points = np.bincount(at, won, minlength=key.size)
        fitted = bt.fit(bt.Comparisons.pairwise(names, key // bots, key % bots, games, points),
                        prior)
        inside = np.abs(fitted.mu - true) <= 1.959963984540054 * fitted.se
        ends = np.argsort(true)[np.r_[:max(1, bots // 10), -max(1, bots // 10):0]]
        hit += int(inside.sum())
        total += bots
        end_hit += int(inside[ends].sum())
        end_total += ends.size
        slopes.append(float(np.polyfit(true, fitted.mu, 1)[0]))
    return hit / total, end_hit / end_total, float(np.mean(slopes))


def _coverage_figures(quick: bool) -> None:
    repeats = 5 if quick else 40
    for spread in (300.0, 600.0):
        for pairs in (20, 80):
            for label, prior in (("spread estimated", bt.Prior()),
                                 ("fixed sd 350", bt.Prior(sd=350.0))):
                cover, ends, slope = coverage(spread, prior, pairs_per_bot=pairs,
                                              repeats=repeats)
                what = f"true sd {spread:.0f} Elo, 30 bots, {pairs} pairs a bot, {label}"
                figure(f"95% interval coverage, {what}", 100 * cover, "%",
                       f"ends {100 * ends:.0f}%, slope {slope:.2f}, {repeats} fields")


def _best(repeats: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return min(times)


def run(quick: bool) -> None:
    games = _games(20, 5_000 if quick else 50_000)
    n = len(games)
    repeats = 1 if quick else 3
    curvature = _best(repeats, lambda: fit_elo(games))
    figure(f"Elo fit, curvature interval, 20 bots, {n:,} games", curvature * 1000, "ms")
    boot = _best(repeats, lambda: fit_elo(games, interval="bootstrap", bootstrap_samples=1000))
    figure(f"Elo fit, bootstrap over pairs (1000 resamples), {n:,} games", boot * 1000, "ms")
    rng = random.Random(2)
    points = [rng.choice((0.0, 0.5, 0.5, 1.0, 1.0, 1.0, 1.5, 1.5, 2.0)) for _ in range(2000)]
    for model in ("normalized", "logistic"):
        test = Sprt(SprtParams(0.0, 10.0, 0.05, 0.05, model))  # updates go on past a verdict
        t0 = time.perf_counter()
        for p in points:
            test.update(p)
        per = (time.perf_counter() - t0) / len(points)
        figure(f"SPRT update per pair ({model} Elo)", per * 1e6, "µs")
    _coverage_figures(quick)
