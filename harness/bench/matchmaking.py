"""Matchmaking simulation: how fast each scheme finds the true order of a synthetic field.

True strengths are drawn from a normal distribution (standard deviation 300 Elo). A simulated
result is one duplicate pair: two games, each won by a bot with the logistic probability of the
true Elo difference (no draws; the two games are independent, which is the noisiest case: a
real duplicate pair's shared deal lowers the noise). Three schemes choose the pairs:

* ``adaptive``: :class:`harness.league.matchmaking.Matchmaker` (placement, minimum share,
  largest expected variance reduction);
* ``round robin``: all pairs in a random order, cycled;
* ``neighbours``: the bot with the fewest results (random among ties) against a current
  neighbour in the estimated order (the naive "pair current neighbours" scheme).

All three rate with the same estimator (the matchmaker's MAP fit), so only the choice of pairs
differs. Rank accuracy: Kendall's tau of the estimated against the true order, and the share of
the true top 10 in the estimated top 10. "Games per bot" counts games (a pair is two games, for
each of its two bots).

    python -m harness.bench.matchmaking [--bots 50,200,1000] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.league.matchmaking import Matchmaker, kendall_tau

SD = 300.0
Chooser = Callable[[Matchmaker, random.Random], tuple[str, str]]


@dataclass(frozen=True)
class Point:
    bots: int
    scheme: str
    games_per_bot: float
    tau: float
    top10: float


def field(bots: int, seed: int) -> dict[str, float]:
    """Bot names and their true strengths (Elo)."""
    rng = random.Random(seed)
    return {f"b{i:04d}": rng.gauss(0.0, SD) for i in range(bots)}


def play(truth: dict[str, float], a: str, b: str, rng: random.Random) -> float:
    """a's points in one duplicate pair against b (two games)."""
    p = 1.0 / (1.0 + 10.0 ** (-(truth[a] - truth[b]) / 400.0))
    return float((rng.random() < p) + (rng.random() < p))


def accuracy(truth: dict[str, float], mm: Matchmaker) -> tuple[float, float]:
    """Kendall's tau against the true order and the share of the true top 10 found."""
    names = sorted(truth)
    tau = kendall_tau([truth[n] for n in names], [mm.rating(n)[0] for n in names])
    top = min(10, len(names))
    true_top = set(sorted(names, key=lambda n: -truth[n])[:top])
    found = set(mm.ranking()[:top])
    return tau, len(true_top & found) / top


def adaptive(mm: Matchmaker, rng: random.Random) -> tuple[str, str]:
    return mm.choose(rng)


def round_robin(names: Sequence[str], rng: random.Random) -> Chooser:
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    rng.shuffle(pairs)
    state = {"k": 0}

    def choose(mm: Matchmaker, rng: random.Random) -> tuple[str, str]:
        k = state["k"]
        state["k"] = k + 1
        return pairs[k % len(pairs)]

    return choose


def neighbours(mm: Matchmaker, rng: random.Random) -> tuple[str, str]:
    order = mm.ranking()
    counts = [int(mm.results[mm.index[n]]) for n in order]
    least = min(counts)
    at = [k for k, c in enumerate(counts) if c == least]
    k = at[rng.randrange(len(at))]
    if k == 0:
        other = 1
    elif k == len(order) - 1:
        other = k - 1
    else:
        other = k + rng.choice((-1, 1))
    return order[k], order[other]


def simulate(truth: dict[str, float], chooser: Chooser, pairs: int, checkpoints: Sequence[int],
             seed: int) -> list[tuple[int, float, float]]:
    """Play ``pairs`` pairs; (pairs so far, tau, top-10 share) at every checkpoint."""
    names = sorted(truth)
    mm = Matchmaker(names)
    pick, luck = random.Random(seed), random.Random(seed + 1)
    marks = sorted(set(checkpoints))
    out = []
    done = 0
    for mark in marks:
        while done < min(mark, pairs):
            a, b = chooser(mm, pick)
            mm.record(a, b, play(truth, a, b, luck))
            done += 1
        mm.refit()
        out.append((done, *accuracy(truth, mm)))
    return out


def timings(bots: int, seed: int) -> tuple[float, float, float]:
    """Seconds of one choice, one incremental update and one refit at ``bots`` bots (after
    20 games per bot)."""
    truth = field(bots, seed)
    names = sorted(truth)
    mm = Matchmaker(names)
    pick, luck = random.Random(seed), random.Random(seed + 1)
    for _ in range(bots * 5):
        a, b = mm.choose(pick)
        mm.record(a, b, play(truth, a, b, luck))
    mm.refit_every = 10**9
    reps = 200
    t0 = time.perf_counter()
    chosen = [mm.choose(pick) for _ in range(reps)]
    choose = (time.perf_counter() - t0) / reps
    t0 = time.perf_counter()
    for a, b in chosen:
        mm.record(a, b, 1.0)
    update = (time.perf_counter() - t0) / reps
    t0 = time.perf_counter()
    mm.refit()
    refit = time.perf_counter() - t0
    return choose, update, refit


def first_reaching(curve: Sequence[tuple[int, float, float]], tau: float,
                   top10: float) -> tuple[int | None, int | None]:
    """Pairs at the first checkpoint whose tau (top-10 share) reaches the given value."""
    t = next((p for p, x, _ in curve if x >= tau), None)
    s = next((p for p, _, y in curve if y >= top10), None)
    return t, s


def run_field(bots: int, seed: int) -> None:
    truth = field(bots, seed)
    names = sorted(truth)
    full = bots * (bots - 1) // 2  # pairs in one round robin
    per_bot = 4.0 / bots  # games per bot of one pair
    skip_full = bots > 300
    budgets = [20, 40, 80] + ([] if skip_full else [160, 2 * (bots - 1)])
    rows = [round(g / per_bot) for g in budgets]
    last = full if not skip_full else rows[-1]
    fine = sorted(set(rows + [round(last * f / 50) for f in range(1, 51)]))
    fine = [p for p in fine if p <= last]
    schemes: list[tuple[str, Chooser]] = [
        ("adaptive", adaptive),
        ("round robin", round_robin(names, random.Random(seed + 7))),
        ("neighbours", neighbours),
    ]
    curves: dict[str, list[tuple[int, float, float]]] = {}
    for scheme, chooser in schemes:
        t0 = time.perf_counter()
        marks = fine if bots <= 300 else rows
        curve = simulate(truth, chooser, last, marks, seed + 100)
        curves[scheme] = curve
        for p, tau, top in curve:
            if p in rows:
                print(f"{bots:>5}  {scheme:<12} {p * per_bot:>8.0f}  {tau:6.3f}  {top:5.2f}")
        print(f"{'':>5}  ({scheme}: {time.perf_counter() - t0:.1f} s)", flush=True)
    if skip_full:
        print(f"{bots:>5}  round robin: the full round robin ({full:,} pairs) is skipped")
        return
    _, rr_tau, rr_top = curves["round robin"][-1]
    t, s = first_reaching(curves["adaptive"], rr_tau, rr_top)
    for what, got in (("tau", t), ("top-10 share", s)):
        frac = "not reached" if got is None else f"{got / full:.3f} of its games ({got:,} pairs)"
        print(f"{bots:>5}  adaptive reaches the round robin's final {what} "
              f"({rr_tau if what == 'tau' else rr_top:.3f}) with {frac}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.bench.matchmaking",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bots", default=None,
                        help="comma-separated field sizes (default 50,200,1000; quick: 50,200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sizes = ([int(x) for x in args.bots.split(",")] if args.bots
             else [50, 200] if args.quick else [50, 200, 1000])
    print(f"seed {args.seed}; true strengths N(0, {SD:.0f}²) Elo; one result = a duplicate pair")
    print(f"{'bots':>5}  {'scheme':<12} {'games/bot':>8}  {'tau':>6}  {'top10':>5}")
    for bots in sizes:
        run_field(bots, args.seed)
    big = max(sizes)
    choose, update, refit = timings(big, args.seed)
    print(f"at {big} bots: choose next pair {choose * 1e3:.2f} ms; incremental rating update "
          f"{update * 1e6:.1f} µs; full refit {refit * 1e3:.0f} ms (every "
          f"{max(8, big // 2)} results: {refit / max(8, big // 2) * 1e3:.2f} ms amortised)")


def run(quick: bool) -> None:
    """Entry point for a bench section (``tourney bench``)."""
    main(["--quick"] if quick else [])


if __name__ == "__main__":
    main()
