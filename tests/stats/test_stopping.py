"""Figures that account for the SPRT's stopping rule (harness/league/stopping.py): the stopped
Brownian motion against closed forms and an independent series, the estimator against the
fixed-sample figures where theory says they agree, against fishtest's numbers, by symmetry, and
(slow) its coverage and median by simulating many SPRTs."""

from __future__ import annotations

import math
import os
import random
from concurrent.futures import ProcessPoolExecutor
from statistics import NormalDist

import pytest

from harness.stats.pairs import elo_of_score, summarize
from harness.stats.sprt import Sprt, SprtParams
from harness.stats.stopping import (
    expected_time_to_exit,
    pairs_left_slowest,
    read_path,
    stopped_figures,
    worse_than,
)
from tests.stats.test_calibration import pentanomial, score_for

PHI = NormalDist().cdf


def spectral_worse(drift: float, variance: float, lower: float, upper: float, t: float,
                   y: float, terms: int = 4000) -> float:
    """worse_than by another route: the killed density as its eigenfunction (sine) series, the
    mass below y integrated in closed form, and the chance of stopping at ``lower`` by t as the
    eventual chance minus the flux through ``lower`` after t, integrated over time."""
    width, start, theta = upper - lower, -lower, drift / variance
    alive = flux_after = 0.0
    for n in range(1, terms + 1):
        k = n * math.pi / width
        decay = math.exp(-(variance * k * k / 2 + drift * drift / (2 * variance)) * t)
        rate = variance * k * k / 2 + drift * drift / (2 * variance)

        def primitive(x: float, k: float = k) -> float:  # of e^(θx)·sin(k(x − lower))
            return math.exp(theta * x) * (theta * math.sin(k * (x - lower))
                                          - k * math.cos(k * (x - lower))) / (theta ** 2 + k * k)

        alive += 2 / width * math.sin(k * start) * (primitive(y) - primitive(lower)) * decay
        flux_after += (variance / 2 * math.exp(theta * lower) * 2 / width * math.sin(k * start)
                       * k * decay / rate)
    eventual = (upper / width if theta == 0 else
                math.expm1(2 * theta * upper) / math.expm1(2 * theta * width))
    return eventual - flux_after + alive


Case = tuple[float, float, float, float, float, float]  # drift, variance, lower, upper, t, y
CASES: list[Case] = [
    (0.0, 1.0, -2.0, 3.0, 4.0, 1.0),
    (0.3, 0.5, -2.94, 2.94, 20.0, 2.94),
    (-0.3, 0.5, -2.94, 2.94, 20.0, -2.94),
    (0.05, 0.0149, -2.94, 2.94, 400.0, 0.7),
    (-0.01, 0.0149, -2.94, 2.94, 900.0, -2.94),
    (2.0, 1.0, -1.0, 4.0, 0.5, 0.8),
    (-1.5, 2.0, -4.0, 1.0, 3.0, 1.0),
    (0.02, 0.0066, -4.6, 1.56, 2500.0, -0.3),
]


@pytest.mark.parametrize("case", CASES)
def test_the_stopped_path_matches_the_sine_series(case: Case) -> None:
    assert worse_than(*case) == pytest.approx(spectral_worse(*case), abs=1e-9)


def test_the_stopped_path_meets_its_closed_forms() -> None:
    # no bound in reach: the plain normal law of the path at t
    assert worse_than(0.2, 1.5, -1e6, 1e6, 9.0, 2.5) == pytest.approx(
        PHI((2.5 - 0.2 * 9.0) / math.sqrt(1.5 * 9.0)), abs=1e-12)
    # one bound in reach: stopped at the lower one by t (the reflection principle)
    mu, var, a, t = 0.1, 0.8, -1.5, 6.0
    sd = math.sqrt(var * t)
    assert worse_than(mu, var, a, 1e6, t, a) == pytest.approx(
        PHI((a - mu * t) / sd) + math.exp(2 * mu * a / var) * PHI((a + mu * t) / sd), abs=1e-12)
    # after a long time every path has stopped: the gambler's ruin, at lower before upper
    theta = mu / var
    ruin = math.expm1(2 * theta * 2.0) / math.expm1(2 * theta * 3.5)
    assert worse_than(mu, var, -1.5, 2.0, 1e5, 2.0) == pytest.approx(ruin, abs=1e-12)
    assert worse_than(0.0, var, -1.5, 2.0, 1e5, 2.0) == pytest.approx(2.0 / 3.5, abs=1e-12)
    # mirrored, worse is better; the drift makes worse outcomes rarer
    for case in CASES:
        mu, var, a, b, t, y = case
        assert worse_than(mu, var, a, b, t, y) == pytest.approx(
            1 - worse_than(-mu, var, -b, -a, t, -y), abs=1e-12)
        assert worse_than(mu + 0.01, var, a, b, t, y) < worse_than(mu, var, a, b, t, y)


def test_far_bounds_give_the_fixed_sample_figures() -> None:
    """A test far inside its bounds at the cap is a fixed sample: the same Elo, interval and
    LOS as summarize() (alpha = beta = 1e-9 puts the bounds at ±20.7, some 12 sd away)."""
    counts = (30, 300, 900, 310, 40)
    for model in ("logistic", "normalized"):
        params = SprtParams(0, 5, 1e-9, 1e-9, model)
        fig, fixed = stopped_figures(counts, params, None), summarize(counts)
        path = read_path(counts, params, None)
        assert path is not None and path.exit == "inside"
        for ours, theirs in [(fig.elo, fixed.elo), (fig.elo_low, fixed.elo_low),
                             (fig.elo_high, fixed.elo_high), (fig.nelo, fixed.nelo),
                             (fig.los, fixed.los)]:
            assert ours == pytest.approx(theirs, abs=1e-6)
    # with the usual bounds, a path still inside at the cap reads nearly as a fixed sample, even
    # near a bound (LLR 2.79 of 2.94 by the approximation here); at the bound it does not
    near, fixed = (2, 20, 60, 50, 20), summarize((2, 20, 60, 50, 20))
    inside = stopped_figures(near, SprtParams(0, 10), None)
    assert (inside.elo_low, inside.elo, inside.elo_high) == pytest.approx(
        (fixed.elo_low, fixed.elo, fixed.elo_high), abs=0.1)
    stopped = stopped_figures(near, SprtParams(0, 10, model="logistic"), "H1")
    assert stopped.elo_low < fixed.elo_low - 5 and stopped.elo_high > fixed.elo_high + 2


# fishtest's sprt.analytics (server/fishtest/stats/sprt.py at b8eecff2, scipy 1.17.1) on the
# same pentanomial counts, alpha = beta = 0.05: Elo, interval and LOS. It does not know the
# verdict; ours reads these as it does (inside, or past a bound by the normal approximation).
FISHTEST = [
    ((3, 20, 50, 20, 7), 0, 10, "logistic", 13.9048, -16.4463, 44.4701, 0.81541),
    ((100, 400, 1000, 420, 110), 0, 5, "normalized", 3.4231, -3.4091, 10.2580, 0.83695),
    ((40, 200, 600, 180, 30), -3, 3, "normalized", -6.6186, -14.9480, 1.7031, 0.05952),
    ((20, 60, 100, 40, 10), 0, 10, "normalized", -30.2883, -52.2084, -8.6063, 0.00307),
    ((1, 3, 10, 8, 6), 0, 30, "normalized", 95.3898, 25.4434, 173.9369, 0.99649),
    ((2, 20, 60, 50, 20), 0, 10, "logistic", 74.8779, 43.4488, 107.5107, 1.0),  # past H1
    ((30, 60, 80, 20, 5), 0, 10, "normalized", -80.4385, -109.7845, -52.1607, 0.0),  # past H0
    ((20, 180, 500, 240, 60), 0, 5, "normalized", 23.8503, 14.3093, 33.4133, 1.0),
    ((50, 260, 600, 200, 30), 0, 5, "logistic", -14.4055, -25.3017, -3.4857, 0.0049),
]


@pytest.mark.parametrize("row", FISHTEST)
def test_the_figures_agree_with_fishtest(row: tuple) -> None:  # type: ignore[type-arg]
    counts, elo0, elo1, model, elo, low, high, los = row
    fig = stopped_figures(counts, SprtParams(elo0, elo1, 0.05, 0.05, model), None)
    assert (fig.elo, fig.elo_low, fig.elo_high) == pytest.approx((elo, low, high), abs=0.01)
    assert fig.los == pytest.approx(los, abs=1e-4)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize(("counts", "verdict"), [((5, 40, 100, 60, 15), None),
                                                 ((2, 20, 60, 50, 20), "H1"),
                                                 ((20, 180, 500, 240, 60), "H1")])
def test_mirrored_tests_give_mirrored_figures(counts: tuple[int, ...], verdict: str | None,
                                              model: str) -> None:
    params = SprtParams(-7, 7, 0.05, 0.05, model)  # type: ignore[arg-type]
    mirror = {"H1": "H0", "H0": "H1", None: None}[verdict]
    a = stopped_figures(counts, params, verdict)  # type: ignore[arg-type]
    b = stopped_figures(counts[::-1], params, mirror)  # type: ignore[arg-type]
    assert (a.elo, a.elo_low, a.elo_high) == pytest.approx((-b.elo, -b.elo_high, -b.elo_low),
                                                           abs=1e-6)
    assert (a.nelo, a.nelo_low, a.nelo_high) == pytest.approx(
        (-b.nelo, -b.nelo_high, -b.nelo_low), abs=1e-6)
    assert a.los == pytest.approx(1 - b.los, abs=1e-9)
    assert a.elo_low < a.elo < a.elo_high


def test_a_verdict_is_read_as_a_stop_at_its_bound() -> None:
    params = SprtParams(0, 10)
    # the GSPRT crossed (LLR 2.95) where the normal approximation says 2.79: a stop after N
    path = read_path((2, 20, 60, 50, 20), params, "H1")
    assert path is not None and (path.exit, path.t, path.y) == ("upper", 152.0, params.upper)
    inside = read_path((2, 20, 60, 50, 20), params, None)
    assert inside is not None and inside.exit == "inside" and inside.y < params.upper
    # past the bound by the approximation: where its straight line from 0 met it (overshoot)
    path = read_path((20, 180, 500, 240, 60), SprtParams(0, 5), "H1")
    assert path is not None and path.exit == "upper" and 900 < path.t < 1000
    # the stop lowers the estimate against the naive one, which leans away from 0
    fig = stopped_figures((20, 180, 500, 240, 60), SprtParams(0, 5), "H1")
    assert fig.elo < summarize((20, 180, 500, 240, 60)).elo


def test_too_few_pairs_say_nothing_and_a_bad_level_is_named() -> None:
    fig = stopped_figures((0, 1, 1, 1, 0), SprtParams(0, 10), None)
    assert math.isnan(fig.elo) and math.isnan(fig.los) and fig.exit is None
    assert fig.as_dict()["elo"] is None
    assert math.isnan(stopped_figures((0, 0, 9, 0, 0), SprtParams(0, 10), None).elo)
    with pytest.raises(ValueError, match="outside"):
        stopped_figures((3, 20, 50, 20, 7), SprtParams(0, 10), None, level=1.5)


def test_the_expected_time_to_a_verdict() -> None:
    # no drift: (upper − y)(y − lower) / variance; a strong drift: the distance over the drift
    assert expected_time_to_exit(0.0, 0.5, -3, 3, 1.0) == pytest.approx(16.0)
    assert expected_time_to_exit(1e-12, 0.5, -3, 3, 1.0) == pytest.approx(16.0)
    assert expected_time_to_exit(2.0, 0.01, -3, 3, 1.0) == pytest.approx(1.0, rel=1e-9)
    assert expected_time_to_exit(-0.1, 0.5, -3, 3, 1.0) == pytest.approx(
        expected_time_to_exit(0.1, 0.5, -3, 3, -1.0))
    assert expected_time_to_exit(0.1, 0.5, -3, 3, 3.0) == 0.0
    # the slowest plausible strength: unknown before 5 pairs or while all pairs are alike
    jumps = (-0.4, -0.2, 0.0, 0.2, 0.4)
    assert pairs_left_slowest((1, 1, 1, 1, 0), 0.0, jumps, -3, 3) is None
    assert pairs_left_slowest((0, 0, 9, 0, 0), 0.0, jumps, -3, 3) is None
    assert pairs_left_slowest((1, 2, 4, 2, 1), 3.5, jumps, -3, 3) == 0.0
    # evenly matched: the drift 0 is plausible and takes longest
    spread = sum(c * j * j for c, j in zip((10, 20, 40, 20, 10), jumps, strict=True)) / 100
    assert pairs_left_slowest((10, 20, 40, 20, 10), 0.0, jumps, -3, 3) == pytest.approx(
        9 / spread)
    # a clear lead rules drift 0 out: fewer pairs, but more than at the lead itself
    lead = pairs_left_slowest((2, 5, 30, 33, 30), 2.0, jumps, -3, 3)
    assert lead is not None and (3 - 2.0) / (2.0 / 100) < lead < 9 / spread


# ----------------------------------------------------------------------------- simulation

PARAMS = SprtParams(0.0, 30.0)  # normalised Elo: some 360 pairs at elo0 or elo1, 600 between
RUNS = 800  # per true strength: 3 standard errors of a 95 % coverage are ±0.023
CHECK = (10, 50)  # pairs after which the ETA's estimate is compared with the pairs still played


def simulate(args: tuple[float, int, int]) -> list[tuple[float, float, float, float, float,
                                                          list[tuple[int, float, int]]]]:
    """SPRTs at a true normalised Elo, pairs drawn from a pentanomial with 30 % draws and
    pairs correlated by the deal: per test the stopping-aware score, its interval, the
    fixed-sample Elo interval, and the ETA's estimate at each of CHECK."""
    true, runs, seed = args
    probs = pentanomial(score_for(true, PARAMS.model))
    rng = random.Random(seed)
    out = []
    for _ in range(runs):
        test, checks = Sprt(PARAMS), []
        while test.verdict is None:
            test.update(rng.choices((0.0, 0.5, 1.0, 1.5, 2.0), probs)[0])
            if test.pairs in CHECK and test.verdict is None:
                left = pairs_left_slowest(test.counts, test.llr, test.jumps, PARAMS.lower,
                                          PARAMS.upper)
                if left is not None:
                    checks.append((test.pairs, left, 0))
        fig, fixed = stopped_figures(test.counts, PARAMS, test.verdict), summarize(test.counts)
        out.append((fig.score, fig.score_low, fig.score_high, fixed.elo_low, fixed.elo_high,
                    [(k, left, test.pairs - k) for k, left, _ in checks]))
    return out


@pytest.mark.slow
def test_the_interval_covers_the_truth_as_often_as_it_says() -> None:
    """800 SPRTs (elo0 = 0, elo1 = 30, normalised) at each of three true strengths: below,
    between and at the hypotheses. The stopping-aware 95 % interval must cover the true score
    within 3 binomial standard errors of 95 % (±0.023 per strength, ±0.013 over all 2400), and
    the estimate must fall below the truth half the time (±3 standard errors: ±0.053) - where
    the fixed-sample interval of the same tests covers about 90 %. The ETA's estimate of the
    pairs left, at the slowest plausible strength, must not be short on average by more than
    20 % halfway between the hypotheses (the slowest case) and must not be short elsewhere."""
    trues = (0.0, 15.0, 30.0)
    jobs = [(true, RUNS // 2, 1000 * i + half) for i, true in enumerate(trues)
            for half in range(2)]
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        results = list(pool.map(simulate, jobs))
    lines, all_hits, all_naive = [], 0, 0
    se = math.sqrt(0.95 * 0.05 / RUNS)
    for i, true in enumerate(trues):
        runs = results[2 * i] + results[2 * i + 1]
        truth = score_for(true, PARAMS.model)
        hits = sum(lo <= truth <= hi for _, lo, hi, *_ in runs)
        naive = sum(lo <= elo_of_score(truth) <= hi for _, _, _, lo, hi, _ in runs)
        below = sum(est < truth for est, *_ in runs) / len(runs)
        median = sorted(elo_of_score(est) for est, *_ in runs)[len(runs) // 2]
        all_hits += hits
        all_naive += naive
        lines.append(f"nElo {true:+g} (Elo {elo_of_score(truth):+.2f}): covered "
                     f"{hits / len(runs):.3f}, fixed-sample {naive / len(runs):.3f}, below "
                     f"{below:.3f}, median Elo {median:+.2f}")
        assert abs(hits / len(runs) - 0.95) <= 3 * se, lines
        assert abs(below - 0.5) <= 3 * math.sqrt(0.25 / len(runs)), lines
        for k in CHECK:
            pairs = [(left, actual) for checks in (r[5] for r in runs)
                     for at, left, actual in checks if at == k]
            guess = sum(left for left, _ in pairs) / len(pairs)
            actual = sum(a for _, a in pairs) / len(pairs)
            lines.append(f"  after {k} pairs: ETA's pairs left {guess:.0f}, played {actual:.0f}")
            assert guess >= (0.8 if true == 15.0 else 1.0) * actual, lines
    total = len(trues) * RUNS
    lines.append(f"all: covered {all_hits / total:.3f}, fixed-sample {all_naive / total:.3f}")
    print("\n".join(lines))
    assert abs(all_hits / total - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / total), lines
    assert all_naive / total < 0.93, lines  # the problem this solves
