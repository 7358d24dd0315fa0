"""The GSPRT: bounds, parameter checks, and LLRs against the worked examples of
docs/statistics.md."""

from __future__ import annotations

import math
import random

import pytest

from harness.stats.sprt import (
    SCORES,
    Sprt,
    SprtParams,
    constrained_mle,
    llr,
    logistic_score,
    parse_sprt,
    regularized,
)


@pytest.mark.parametrize(("alpha", "beta"), [(0.05, 0.05), (0.1, 0.2), (0.01, 0.3)])
def test_bounds_are_walds(alpha: float, beta: float) -> None:
    p = SprtParams(0, 10, alpha, beta)
    assert p.lower == pytest.approx(math.log(beta / (1 - alpha)))
    assert p.upper == pytest.approx(math.log((1 - beta) / alpha))


# docs/statistics.md, "Worked examples": counts, model, LLR of elo1=10 over elo0=0
DOC_EXAMPLES = [
    ((10, 20, 30, 20, 10), "logistic", -0.111740587),
    ((10, 20, 30, 20, 10), "normalized", -0.074534784),
    ((25, 0, 50, 0, 25), "logistic", -0.082796503),
    ((25, 0, 50, 0, 25), "normalized", -0.082807863),
    ((5, 10, 40, 30, 15), "logistic", 1.701494778),
    ((5, 10, 40, 30, 15), "normalized", 1.361521664),
]


@pytest.mark.parametrize(("counts", "model", "value"), DOC_EXAMPLES)
def test_llr_of_the_worked_examples(counts: tuple[int, ...], model: str, value: float) -> None:
    assert llr(counts, 0, 10, model) == pytest.approx(value, abs=1e-8)  # type: ignore[arg-type]


def test_the_logistic_example_by_hand() -> None:
    # counts 10,20,30,20,10: the mean is ½ so the H0 fit is the data; H1's is p̂/(1 + λ v) with
    # v = a − L(10) and the λ written in the docs. Check it meets the conditions and the LLR.
    counts = (10, 20, 30, 20, 10)
    p_hat = [c / 90 for c in counts]
    lam = -0.172539533
    v = [a - logistic_score(10) for a in SCORES]
    p1 = [p / (1 + lam * x) for p, x in zip(p_hat, v, strict=True)]
    assert sum(p1) == pytest.approx(1, abs=1e-9)
    assert sum(p * a for p, a in zip(p1, SCORES, strict=True)) == pytest.approx(0.514387184)
    by_hand = -sum(c * math.log(1 + lam * x) for c, x in zip(counts, v, strict=True))
    assert llr(counts, 0, 10, "logistic") == pytest.approx(by_hand, abs=1e-8)
    # and the normal approximation N (s1 − s0)(2 μ̂ − s0 − s1) / (2 σ̂²) is close
    s1 = logistic_score(10)
    approx = 90 * (s1 - 0.5) * (1 - 0.5 - s1) / (2 * (1 / 12))
    assert llr(counts, 0, 10, "logistic") == pytest.approx(approx, rel=0.01)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize("counts", [(3, 11, 40, 25, 9), (0, 2, 9, 4, 1), (50, 1, 2, 1, 50)])
def test_the_constrained_fit_beats_every_nearby_distribution_on_the_constraint(
        counts: tuple[int, ...], model: str) -> None:
    """Brute force: random distributions meeting the same constraint are never likelier."""
    p_hat = regularized(counts)
    p, _ = constrained_mle(p_hat, 15.0, model)  # type: ignore[arg-type]

    def elo_of(q: list[float]) -> float:
        mu = sum(x * a for x, a in zip(q, SCORES, strict=True))
        if model == "logistic":
            return 400 * math.log10(mu / (1 - mu))
        sd = math.sqrt(sum(x * (a - mu) ** 2 for x, a in zip(q, SCORES, strict=True)))
        return (mu - 0.5) / (math.sqrt(2) * sd) * 800 / math.log(10)

    def loglik(q: list[float]) -> float:
        return sum(h * math.log(x) for h, x in zip(p_hat, q, strict=True))

    assert elo_of(p) == pytest.approx(15.0, abs=1e-6)
    best = loglik(p)
    rng = random.Random(7)
    direction = [1.0 if a > 0.5 else -1.0 if a < 0.5 else 0.0 for a in SCORES]
    for _ in range(300):
        d = [rng.gauss(0, 1) for _ in range(5)]
        mean = sum(d) / 5
        d = [x - mean for x in d]
        eps = 10 ** rng.uniform(-4, -1.5)
        base = [max(1e-12, x * (1 + eps * y)) for x, y in zip(p, d, strict=True)]
        lo, hi = -0.3, 0.3  # move along `direction` until the constraint holds again

        def at(t: float, base: list[float] = base) -> list[float]:
            q = [max(1e-12, x * (1 + t * y)) for x, y in zip(base, direction, strict=True)]
            total = sum(q)
            return [x / total for x in q]

        if (elo_of(at(lo)) - 15) * (elo_of(at(hi)) - 15) > 0:
            continue
        for _ in range(100):
            mid = (lo + hi) / 2
            if (elo_of(at(lo)) - 15) * (elo_of(at(mid)) - 15) <= 0:
                hi = mid
            else:
                lo = mid
        assert loglik(at(lo)) <= best + 1e-12


def test_incremental_updates_match_the_batch_llr() -> None:
    rng = random.Random(1)
    test = Sprt(SprtParams(-5, 5))
    for _ in range(200):
        test.update(rng.choice([0, 0.5, 1, 1, 1.5, 2]))
    assert test.llr == pytest.approx(llr(test.counts, -5, 5), abs=1e-9)
    assert Sprt(SprtParams(-5, 5), test.counts).llr == pytest.approx(test.llr, abs=1e-9)


def test_the_verdict_is_the_first_crossing_and_stays() -> None:
    test = Sprt(SprtParams(0, 10))
    pairs = 0
    while test.verdict is None:
        test.update(2.0 if pairs % 3 else 1.0)
        pairs += 1
    assert test.verdict == "H1" and test.decided_after == pairs
    assert test.llr >= test.params.upper
    for _ in range(50):
        test.update(0.0)
    assert test.verdict == "H1" and test.decided_after == pairs
    losing = Sprt(SprtParams(0, 10))
    while losing.verdict is None:
        losing.update(0.5)
    assert losing.verdict == "H0" and losing.llr <= losing.params.lower
    assert losing.as_dict()["verdict"] == "H0"


def test_no_pairs_means_no_evidence() -> None:
    assert llr((0, 0, 0, 0, 0), 0, 10) == 0.0
    assert Sprt(SprtParams(0, 10)).llr == 0.0


@pytest.mark.parametrize(("spec", "message"), [
    ("elo0=10,elo1=0", "elo0 must be below elo1"),
    ("elo0=0,elo1=0", "elo0 must be below elo1"),
    ("elo0=0,elo1=10,alpha=0", r"alpha must be within \(0, 0.5\)"),
    ("elo0=0,elo1=10,beta=0.5", r"beta must be within \(0, 0.5\)"),
    ("elo0=0,elo1=10,alpha=-1", "alpha"),
    ("elo1=10", "needs elo0"),
    ("elo0=0,elo1=ten", "is not a number"),
    ("elo0=0,elo1=5,gamma=2", "cannot read SPRT setting 'gamma=2'"),
    ("elo0=0,elo1=5,elo1=6", "given twice"),
    ("elo0=0,elo1=5,model=bayes", "unknown SPRT Elo model"),
    ("elo0=nan,elo1=5", "finite"),
])
def test_bad_parameters_are_named(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_sprt(spec)


def test_parse_reads_every_setting() -> None:
    assert parse_sprt(" elo0=-1.5, elo1=3,alpha=0.1,beta=0.2,model=logistic") == SprtParams(
        -1.5, 3, 0.1, 0.2, "logistic")
    assert parse_sprt("elo0=0,elo1=10").model == "normalized"


def test_update_rejects_impossible_pair_points() -> None:
    with pytest.raises(ValueError, match=r"0, 0\.5, 1, 1\.5 or 2"):
        Sprt(SprtParams(0, 10)).update(0.7)


def test_the_jumps_are_what_each_outcome_adds_to_the_llr() -> None:
    """Sprt.jumps (the ETA's spread of the LLR per pair): log(p1_i / p0_i) of the current fit,
    so the counts times the jumps are the LLR."""
    test = Sprt(SprtParams(0, 10), (5, 10, 40, 30, 15))
    assert sum(c * j for c, j in zip(test.counts, test.jumps, strict=True)) == pytest.approx(
        test.llr, abs=1e-12)
    assert list(test.jumps) == sorted(test.jumps)  # more points, more for H1
    assert Sprt(SprtParams(0, 10)).jumps == (0.0,) * 5


def test_logistic_score_reads_an_elo_difference_as_a_share_even_at_the_ends() -> None:
    """The duel reads a pair interval's Elo bounds as shares with it, ±inf included."""
    assert logistic_score(0.0) == 0.5
    assert abs(logistic_score(400.0) - 10 / 11) < 1e-12  # a factor of 10 in the odds
    assert logistic_score(float("inf")) == 1.0 and logistic_score(float("-inf")) == 0.0
