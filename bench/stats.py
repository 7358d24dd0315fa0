"""Rating statistics: the batch Elo fit with intervals for 20 bots and 100,000 games (50,000
duplicate pairs), with the curvature and with the pair bootstrap, and the SPRT update per pair
in both Elo models. Results are drawn from the model, so no game is played."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bench import figure
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
