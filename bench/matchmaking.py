"""Matchmaking simulation: how fast each scheme finds the true order of a synthetic field.

True strengths are drawn from a normal distribution (standard deviation 300 Elo). A simulated
result is one duplicate pair: two games, each won by a bot with the logistic probability of the
true Elo difference (no draws; the two games are independent, which is the noisiest case: a
real duplicate pair's shared deal lowers the noise). Three schemes choose the pairs:

* ``adaptive``: :class:`harness.arena.matchmaking.Matchmaker` (placement, minimum share,
  largest expected variance reduction);
* ``round robin``: all pairs in a random order, cycled;
* ``neighbours``: the bot with the fewest results (random among ties) against a current
  neighbour in the estimated order (the naive "pair current neighbours" scheme).

All three rate with the same estimator (the matchmaker's MAP fit), so only the choice of pairs
differs. Rank accuracy: Kendall's tau of the estimated against the true order, and the share of
the true top 10 in the estimated top 10. "Games per bot" counts games (a pair is two games, for
each of its two bots).

    python -m bench.matchmaking [--bots 50,200,1000] [--seed S[,S...]] [--quick]
                                        [--plot docs/matchmaking.png]

With several seeds each is run and reported in turn, then summarised. ``--plot`` draws the curves
(τ and top-10 share against games per bot, each scheme's mean over the seeds with its min–max
band, one column per field size) into a PNG; it needs matplotlib (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from harness.arena.matchmaking import Matchmaker
from harness.stats.elo import ELO_PER_NAT
from harness.stats.rank import kendall_tau

SD = 300.0
SCHEMES = ("adaptive", "round robin", "neighbours")
Chooser = Callable[[Matchmaker, random.Random], tuple[str, str]]
Curve = list[tuple[int, float, float]]  # (pairs so far, tau, top-10 share)


@dataclass
class FieldRun:
    """One field size and seed: every scheme's accuracy curve."""

    bots: int
    seed: int
    curves: dict[str, Curve] = dataclasses.field(default_factory=dict)

    @property
    def full(self) -> int:
        """Pairs in one round robin."""
        return self.bots * (self.bots - 1) // 2

    @property
    def per_bot(self) -> float:
        """Games per bot of one pair (two games, each played by two of the bots)."""
        return 4.0 / self.bots

    def needed(self) -> tuple[float | None, float | None]:
        """Share of one round robin's games the adaptive scheme needs to reach the round robin's
        final tau and top-10 share (None if not reached, or the round robin was cut short)."""
        rr = self.curves["round robin"]
        if rr[-1][0] < self.full:
            return None, None
        t, s = first_reaching(self.curves["adaptive"], rr[-1][1], rr[-1][2])
        return (None if t is None else t / self.full), (None if s is None else s / self.full)


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
             seed: int, probes: Sequence[int] = ()) -> Curve:
    """Play ``pairs`` pairs; (pairs so far, tau, top-10 share) at every checkpoint and probe.

    At a checkpoint the matchmaker is refitted and goes on from the refit (as the bench always
    did); at a probe the refit is measured and thrown away, so a probe does not change what a
    scheme does next (the extra points of a plot)."""
    names = sorted(truth)
    mm = Matchmaker(names)
    pick, luck = random.Random(seed), random.Random(seed + 1)
    fixed = set(checkpoints)
    marks = sorted(fixed | set(probes))
    out = []
    done = 0
    for mark in marks:
        while done < min(mark, pairs):
            a, b = chooser(mm, pick)
            mm.record(a, b, play(truth, a, b, luck))
            done += 1
        if mark in fixed:
            mm.refit()
            out.append((done, *accuracy(truth, mm)))
            continue
        saved = mm.mu.copy(), mm.var.copy(), mm._since_refit, mm.prior_var
        mm.refit()
        out.append((done, *accuracy(truth, mm)))
        mm.mu, mm.var, mm._since_refit, mm.prior_var = saved
    return out


def ideal_share(bots: int, seed: int) -> tuple[float, float]:
    """What the information in the games allows, in the independent-errors model: each bot's
    estimate errs by ``N(0, 1/I_i)``, ``I_i`` the Fisher information of its games
    (``C² p(1−p)`` each), independently of the others, so two bots whose true ratings differ by
    ``g`` are misordered with probability ``Φ(−g / sqrt(1/I_i + 1/I_k))``.

    Returns the round robin's expected final tau in this model, and the share of one round
    robin's games after which an ideal scheme expects no more misordered pairs: every game
    between two bots of equal strength (``p(1−p) = 1/4``, the most a game can tell), each bot's
    games in the best proportions (where the misorders are dense). Not a strict bound: results
    between the same bots correlate their errors, which a scheme can use a little.
    """
    c = 1.0 / ELO_PER_NAT
    strengths = np.array(sorted(field(bots, seed).values()))
    n = strengths.size
    gap = np.abs(strengths[:, None] - strengths[None, :])
    upper = np.triu_indices(n, 1)
    erf = np.vectorize(math.erf)

    def misordered(info: npt.NDArray[np.float64]) -> float:
        sd = np.sqrt(1.0 / info[:, None] + 1.0 / info[None, :])
        return float(0.5 * (1.0 - erf(gap[upper] / sd[upper] / math.sqrt(2.0))).sum())

    p = 1.0 / (1.0 + np.exp(-c * gap))
    q = p * (1.0 - p)
    np.fill_diagonal(q, 0.0)
    round_robin = misordered(2.0 * c * c * q.sum(axis=1))  # two games v every other bot
    per_bot = 2.0 * (n - 1)  # games per bot in one round robin
    weight = np.ones(n)
    for _ in range(200):  # equalise the value of one more game (multiplicative updates)
        info = per_bot * weight / weight.mean() * c * c / 4.0
        sd2 = 1.0 / info[:, None] + 1.0 / info[None, :]
        slope = np.exp(-0.5 * gap * gap / sd2) * gap / sd2**1.5  # ∝ d misordered / d sd2
        value = slope.sum(axis=1) / info**2
        weight *= (value / value.mean()) ** 0.3
    shape = weight / weight.mean()
    lo, hi = 0.0, 2.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        if misordered(mid * per_bot * shape * c * c / 4.0) > round_robin:
            lo = mid
        else:
            hi = mid
    return 1.0 - 4.0 * round_robin / (n * (n - 1)), hi


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


def run_field(bots: int, seed: int) -> FieldRun:
    """Every scheme on one field; prints the rows of 20, 40, 80 (and 160 and one round robin's)
    games per bot and returns the curves."""
    truth = field(bots, seed)
    names = sorted(truth)
    run = FieldRun(bots, seed)
    full, per_bot = run.full, run.per_bot
    skip_full = bots > 300
    budgets = [20, 40, 80] + ([] if skip_full else [160, 2 * (bots - 1)])
    rows = [round(g / per_bot) for g in budgets]
    last = full if not skip_full else rows[-1]
    # 50 checkpoints to the end (one round robin, or 80 games per bot)
    fine = sorted(set(rows + [round(last * f / 50) for f in range(1, 51)]))
    fine = [p for p in fine if p <= last]
    schemes: list[tuple[str, Chooser]] = [
        ("adaptive", adaptive),
        ("round robin", round_robin(names, random.Random(seed + 7))),
        ("neighbours", neighbours),
    ]
    for scheme, chooser in schemes:
        t0 = time.perf_counter()
        # the figures' checkpoints as ever; at 1,000 bots the plot's points are probes
        marks, probes = (fine, []) if not skip_full else (rows, fine)
        curve = simulate(truth, chooser, last, marks, seed + 100, probes)
        run.curves[scheme] = curve
        for p, tau, top in curve:
            if p in rows:
                print(f"{bots:>5}  {scheme:<12} {p * per_bot:>8.0f}  {tau:6.3f}  {top:5.2f}")
        print(f"{'':>5}  ({scheme}: {time.perf_counter() - t0:.1f} s)", flush=True)
    if skip_full:
        print(f"{bots:>5}  round robin: the full round robin ({full:,} pairs) is skipped")
        return run
    _, rr_tau, rr_top = run.curves["round robin"][-1]
    for what, got, final in zip(("tau", "top-10 share"), run.needed(), (rr_tau, rr_top),
                                strict=True):
        frac = ("not reached" if got is None
                else f"{got:.3f} of its games ({round(got * full):,} pairs)")
        print(f"{bots:>5}  adaptive reaches the round robin's final {what} ({final:.3f}) "
              f"with {frac}")
    model_tau, ideal = ideal_share(bots, seed)
    print(f"{bots:>5}  independent-errors model: the round robin ends at tau {model_tau:.3f}; "
          f"an ideal scheme (every game between equals) needs {ideal:.2f} of its games")
    return run


def summary(runs: Sequence[FieldRun]) -> None:
    """Over the seeds: the share of one round robin's games the adaptive scheme needs, and the
    last checkpoint's figures of every scheme (mean, min–max)."""
    for bots in sorted({r.bots for r in runs}):
        group = [r for r in runs if r.bots == bots]
        seeds = ", ".join(str(r.seed) for r in group)
        for scheme in SCHEMES:
            ends = [r.curves[scheme][-1] for r in group]
            taus = [e[1] for e in ends]
            print(f"{bots:>5}  {scheme:<12} at {ends[0][0] * group[0].per_bot:.0f} games per "
                  f"bot: tau {sum(taus) / len(taus):.3f} ({min(taus):.3f}–{max(taus):.3f}) "
                  f"over seeds {seeds}")
        needs = [r.needed() for r in group]
        for k, what in enumerate(("tau", "top-10 share")):
            if group[0].curves["round robin"][-1][0] < group[0].full:
                continue
            got = [f"{n[k]:.2f}" if n[k] is not None else "not reached" for n in needs]
            shares = [x for x in (n[k] for n in needs) if x is not None]
            mean = f"mean {sum(shares) / len(shares):.3f} of " if len(shares) == len(got) else ""
            print(f"{bots:>5}  adaptive needs {', '.join(got)} ({mean}one round robin's games) "
                  f"for the round robin's final {what}, over seeds {seeds}")


def plot(runs: Sequence[FieldRun], path: str) -> None:
    """The curves as a PNG: tau (top row) and top-10 share (bottom row) against games per bot,
    one column per field size; each scheme's mean over the seeds with its min–max band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({r.bots for r in runs})
    colours = {"adaptive": "tab:blue", "round robin": "tab:grey", "neighbours": "tab:orange"}
    fig, axes = plt.subplots(2, len(sizes), figsize=(4.2 * len(sizes), 6.4), squeeze=False,
                             sharey="row")
    seeds_all: set[int] = set()
    for col, bots in enumerate(sizes):
        group = [r for r in runs if r.bots == bots]
        seeds_all.update(r.seed for r in group)
        per_bot, full = group[0].per_bot, group[0].full
        for scheme in SCHEMES:
            curves = [r.curves[scheme] for r in group]
            xs = [p * per_bot for p, _, _ in curves[0]]
            for row in (0, 1):
                ys = [[c[k][1 + row] for c in curves] for k in range(len(xs))]
                mean = [sum(y) / len(y) for y in ys]
                ax = axes[row][col]
                ax.plot(xs, mean, color=colours[scheme], lw=1.4, label=scheme)
                if len(curves) > 1:
                    ax.fill_between(xs, [min(y) for y in ys], [max(y) for y in ys],
                                    color=colours[scheme], alpha=0.18, lw=0)
        last_rr = group[0].curves["round robin"][-1][0]
        for row in (0, 1):
            ax = axes[row][col]
            if last_rr == full:  # the round robin's final figure and half its games
                final = [r.curves["round robin"][-1][1 + row] for r in group]
                ax.axhline(sum(final) / len(final), color="grey", ls="--", lw=0.8)
                ax.axvline(full * per_bot / 2, color="grey", ls=":", lw=0.8)
            ax.grid(alpha=0.3)
            ax.set_xlim(0, None)
        cut = "" if last_rr == full else " (round robin cut at 80)"
        axes[0][col].set_title(f"{bots} bots{cut}", fontsize=10)
        axes[1][col].set_xlabel("games per bot")
    axes[0][0].set_ylabel("Kendall τ (estimate v truth)")
    axes[1][0].set_ylabel("share of the true top 10 found")
    axes[0][0].set_ylim(0.6, 1.0)
    axes[0][0].legend(loc="lower right", fontsize=8)
    seeds = ", ".join(str(s) for s in sorted(seeds_all))
    fig.suptitle(f"Matchmaking: true strengths N(0, {SD:.0f}²) Elo, a result = a duplicate pair; "
                 f"mean over seeds {seeds}, band min–max\n(dashed: the round robin's final "
                 "figure; dotted: half the round robin's games)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"plot written to {path}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.matchmaking",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bots", default=None,
                        help="comma-separated field sizes (default 50,200,1000; quick: 50,200)")
    parser.add_argument("--seed", default="1", help="a seed, or comma-separated seeds")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--plot", default=None, metavar="PNG",
                        help="draw the curves into this PNG (needs matplotlib)")
    args = parser.parse_args(argv)
    sizes = ([int(x) for x in args.bots.split(",")] if args.bots
             else [50, 200] if args.quick else [50, 200, 1000])
    seeds = [int(x) for x in str(args.seed).split(",")]
    runs: list[FieldRun] = []
    for seed in seeds:
        print(f"seed {seed}; true strengths N(0, {SD:.0f}²) Elo; one result = a duplicate pair")
        print(f"{'bots':>5}  {'scheme':<12} {'games/bot':>8}  {'tau':>6}  {'top10':>5}")
        for bots in sizes:
            runs.append(run_field(bots, seed))
    if len(seeds) > 1:
        summary(runs)
    big = max(sizes)
    choose, update, refit = timings(big, seeds[0])
    print(f"at {big} bots: choose next pair {choose * 1e3:.2f} ms; incremental rating update "
          f"{update * 1e6:.1f} µs; full refit {refit * 1e3:.0f} ms (every "
          f"{max(8, big // 2)} results: {refit / max(8, big // 2) * 1e3:.2f} ms amortised)")
    if args.plot:
        plot(runs, args.plot)


def run(quick: bool) -> None:
    """Entry point for a bench section (``make bench``)."""
    main(["--quick"] if quick else [])


if __name__ == "__main__":
    main()
