"""The ``mcts`` bot's speed, and the duels that measured its strength.

``run(quick)`` (the bench section) prints, per game on one core: search iterations/s of the
default bot from mid-game positions, and the ``sample_state`` and ``clone`` rates its search
leans on. ``python -m bench.mcts duel GAME A B --games 400 --seed 6000`` is a thin
client of the league: it plays a two-bot league in this process's league service (the deals,
duplicate pairs and seat rule of ``tourney league --seed``, on ``--workers`` processes), reads
it with the pair statistics of ``tourney ratings --pairs`` and prints the points with the pair
interval (head to head, these pairs only) and the machine's load while it played: the figures
of the README's ``mcts`` tables. ``--out`` keeps the league folder (else a temporary one).
A bot is written ``greedy``, ``random`` or ``mcts[:options]``, e.g. ``mcts:iters=100,c=0.5``.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.greedy import GreedyBot
from agents.mcts import MctsBot, hooks_for, parse_options, safety_net
from agents.random import RandomBot
from bench import figure
from games import registry
from games.protocol import State
from harness.bots.spec import BotSpecError, parse_spec
from harness.league import store
from harness.league.limits import LimitChoice
from harness.league.service import League
from harness.stats.outcome import COLUMNS, Result
from harness.stats.pairs import PairStats, pair_stats
from harness.stats.sprt import logistic_score

GAMES: list[tuple[str, dict[str, str]]] = [
    ("battleline", {}),
    ("battleline", {"rules": "schotten-totten"}),
    ("warchest", {}),
    ("warchest", {"players": "4"}),
]


def make_bot(spec: str) -> Callable[[], Any]:
    """A factory of fresh bots for a built-in spec with its options (``mcts:iters=100``), read
    by the one spec parser; raises :class:`harness.bots.spec.BotSpecError` for anything else."""
    source = parse_spec(spec, check=False)
    classes: dict[str, Callable[..., Any]] = {"greedy": GreedyBot, "random": RandomBot,
                                              "mcts": MctsBot}
    if source.builtin not in classes:
        raise BotSpecError(f"{spec!r}: a duel plays built-ins; write greedy, random or "
                           f"mcts[:options]")
    cls, kwargs = classes[source.builtin], source.kwargs()
    return lambda: cls(**kwargs)


@dataclass(frozen=True)
class Duel:
    """What a duel measured: the pair statistics of ``a`` against ``b`` and how it was run."""

    stats: PairStats
    seconds: float
    workers: int
    load: tuple[float, float]  # the 1-minute load average when it started and when it ended

    def line(self, game: str, variant: dict[str, str], a: str, b: str) -> str:
        s = self.stats.summary
        label = game + "".join(f" {k}={v}" for k, v in variant.items())
        if math.isnan(s.elo_low):  # too few pairs for an interval (harness.stats.pairs)
            interval = "no interval below 5 pairs"
        else:
            low, high = (logistic_score(e) for e in (s.elo_low, s.elo_high))
            interval = (f"95 % {100 * low:.1f}-{100 * high:.1f} %, Elo {s.elo:+.0f} "
                        f"({s.elo_low:+.0f} .. {s.elo_high:+.0f})")
        return (f"{label} {a} vs {b}: {s.score * self.stats.games:g}/{self.stats.games} points "
                f"= {100 * s.score:.1f} % ({interval}; head to head, {self.stats.pairs} "
                f"duplicate pairs) in {self.seconds:.0f} s on {self.workers or 1} worker(s), "
                f"{os.cpu_count() or 1} cores, load {self.load[0]:.1f} -> {self.load[1]:.1f}")


def duel(game: str, variant: dict[str, str], a: str, b: str, *, games: int, seed: int,
         workers: int = 0, out: Path | None = None, move_time: float | None = None) -> Duel:
    """A league of ``a`` against ``b`` (``games`` games, duplicate pairs dealt from ``seed``)
    run by the league service on ``workers`` processes (0: this one), read with the pair
    statistics of ``tourney ratings --pairs``."""
    make_bot(a), make_bot(b)  # a bad spec fails here, before any game
    with tempfile.TemporaryDirectory() as scratch:
        folder = out if out is not None else Path(scratch) / "duel"
        league = League.prepare(game, [f"a={a}", f"b={b}"], out=folder, games=games,
                                seed=seed, variants=[f"{k}={v}" for k, v in variant.items()],
                                limits=LimitChoice({"move_time": move_time}))
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        league.run(workers=workers, progress=False)
        seconds = time.perf_counter() - t0
        rows = store.load_games([folder]).games.select(COLUMNS).to_pylist()
    stats = pair_stats([Result.from_row(row) for row in rows], "a", "b")
    return Duel(stats, seconds, workers, (load, os.getloadavg()[0]))


def positions(game: str, variant: dict[str, str], count: int) -> list[State]:
    """Decision points of greedy-against-greedy games, from the opening to the late middle game
    (the positions a search bot meets; random play reaches unrepresentative ones)."""
    out: list[State] = []
    for seed in range(count):
        state = registry.get(game).new_game(900 + seed, **variant)
        bots = [GreedyBot() for _ in range(state.num_players)]
        for seat, bot in enumerate(bots):
            bot.start({"game": game, "seat": seat, "rng_seed": seed})
        target = 6 + 7 * seed
        while not state.is_terminal() and len(state.history) < target:
            seat = state.current_player
            state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
        while not state.is_terminal() and len(state.legal_actions()) < 2:
            state.apply(state.legal_actions()[0])
        if not state.is_terminal():
            out.append(state)
    return out


def _decide(game: str, states: list[State], options: str, budget: dict[str, Any]
            ) -> tuple[int, float]:
    """One ``mcts:<options>`` decision per state with ``budget`` (iters or ms): the iterations
    done and the seconds taken (the root's one-step seeding included, as in a real game)."""
    done = 0
    seconds = 0.0
    for i, state in enumerate(states):
        bot = MctsBot(**{**parse_options(options), "iters": None, "ms": None, **budget})
        seat = state.current_player
        bot.start({"game": game, "seat": seat, "rng_seed": i,
                   "limits": {"move_time": 600.0, "overage": 0.0}})
        t0 = time.perf_counter()
        bot.act(state.observation(seat), state.legal_actions())
        seconds += time.perf_counter() - t0
        done += bot.last_iterations
    return done, seconds


def _search_rate(game: str, states: list[State], options: str, iters: int) -> float:
    """Iterations per second of ``mcts:<options>`` at a fixed budget over ``states``."""
    done, seconds = _decide(game, states, options, {"iters": iters})
    return done / seconds


def _within(game: str, states: list[State], options: str, ms: float) -> float:
    """Mean iterations ``mcts:<options>`` completes in ``ms`` per decision over ``states``."""
    done, _ = _decide(game, states, options, {"ms": ms})
    return done / max(1, len(states))


def calibrate(game: str, variant: dict[str, str], options: str, ms: float = 50.0,
              count: int = 8) -> float:
    """Mean iterations ``mcts:<options>`` completes in ``ms`` from positions of greedy play."""
    return _within(game, positions(game, variant, count), options, ms)


def headroom(game: str, states: list[State], move_time: float = 1.0,
             scale: int = 1) -> tuple[float, float]:
    """The slowest decision at ``scale`` times the default budget over ``states`` in seconds
    (one core, as loaded as the machine is now), and how many times slower the machine could
    run before that decision reached the safety net at ``move_time`` (the point past which a
    fixed budget stops being reproducible from its seed)."""
    return rung_headroom(game, states, f"mcts:scale={scale}" if scale != 1 else "mcts",
                         move_time)


def rung_headroom(game: str, states: list[State], spec: str,
                  move_time: float) -> tuple[float, float]:
    """The slowest decision of the built-in ``spec`` over ``states`` in seconds, and how many
    times slower the machine could run before it reached the safety net of ``move_time``."""
    make = make_bot(spec)
    slowest = 0.0
    for i, state in enumerate(states):
        bot = make()
        seat = state.current_player
        bot.start({"game": game, "seat": seat, "rng_seed": i,
                   "limits": {"move_time": 600.0, "overage": 0.0}})
        t0 = time.perf_counter()
        bot.act(state.observation(seat), state.legal_actions())
        slowest = max(slowest, time.perf_counter() - t0)
    return slowest, safety_net(move_time) / max(slowest, 1e-9)


def rungs_headroom(game: str, states: list[State]) -> None:
    """Print each ladder rung's slowest decision and its headroom under the safety net of the
    move time the ladder gives it."""
    from harness.league.ladder import RUNGS
    from harness.league.limits import split_limits

    for rung in RUNGS:
        text, limits = split_limits(rung)
        name, _, spec = text.partition("=") if "=" in text.partition(":")[0] else ("", "", text)
        move_time = float(limits.get("move_time", 1.0))
        slowest, factor = rung_headroom(game, states, spec, move_time)
        figure(f"{game} rung {name or spec} slowest decision", 1000 * slowest, "ms",
               f"headroom {factor:.1f}x: the safety net at its {move_time:g} s move time is "
               f"{factor:.1f} times that (load {os.getloadavg()[0]:.1f})")


def run(quick: bool) -> None:
    """Print search iterations/s (and per 50 ms) and the samples/s it relies on, per game, and
    the default budget's headroom under the clock's safety net."""
    for game, variant in GAMES:
        label = game + "".join(f" {k}={v}" for k, v in variant.items())
        states = positions(game, variant, 3 if quick else 8)
        hooks = hooks_for(game)
        searches = [("", "iterations")]
        if hooks.reply:  # the default is the reply ply: its trials, then the tree's
            searches = [("", "trials"), ("reply=0", "iterations")]
        for options, unit in searches:
            name = f"{label} mcts{':' + options if options else ''}"
            budget = hooks.iters if not options else 200
            rate = _search_rate(game, states, options, budget // 6 if quick else budget)
            figure(f"{name} search rate", rate, f"{unit}/s",
                   f"{len(states)} positions of greedy play")
            figure(f"{name} in 50 ms", _within(game, states, options, 50.0), unit,
                   "what ms=50 reaches: the iters equivalent of a 50 ms budget")
        if not variant:  # the ladder's rungs, each at the move time the ladder gives it
            rungs_headroom(game, states)
        else:
            slowest, factor = headroom(game, states)
            figure(f"{label} mcts slowest default decision", 1000 * slowest, "ms",
                   f"the safety net at 1 s move time is {factor:.1f} times that: a machine "
                   f"that much slower cuts it (load {os.getloadavg()[0]:.1f})")
        sampler = registry.get(game)
        rng = random.Random(0)
        reps = 50 if quick else 300
        t0 = time.perf_counter()
        for state in states:
            observation = state.observation(state.current_player)
            for _ in range(reps):
                sampler.sample_state(observation, rng)
        figure(f"{label} sample_state", reps * len(states) / (time.perf_counter() - t0),
               "samples/s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.mcts")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("duel", help="a league of two bots, with its pair interval")
    p.add_argument("game")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--variant", action="append", default=[], help="key=value")
    p.add_argument("--games", type=int, default=40, help="games (duplicate pairs: even)")
    p.add_argument("--seed", type=int, default=1000, help="the league's --seed (its deals)")
    p.add_argument("--move-time", type=float, default=None, help="seconds (default: 1)")
    p.add_argument("--workers", type=int, default=0, help="processes (0: this one)")
    p.add_argument("--out", type=Path, default=None, help="keep the league folder here")
    q = sub.add_parser("calibrate", help="iterations an mcts configuration runs in MS")
    q.add_argument("game")
    q.add_argument("options", nargs="?", default="")
    q.add_argument("--variant", action="append", default=[], help="key=value")
    q.add_argument("--ms", type=float, default=50.0)
    args = parser.parse_args(argv)
    if args.command == "calibrate":
        variant = dict(v.split("=", 1) for v in args.variant)
        its = calibrate(args.game, variant, args.options, args.ms)
        print(f"{args.game} {variant or ''} mcts:{args.options}: {its:.0f} iterations "
              f"in {args.ms:g} ms", flush=True)
        return
    variant = dict(v.split("=", 1) for v in args.variant)
    result = duel(args.game, variant, args.a, args.b, games=args.games, seed=args.seed,
                  workers=args.workers, out=args.out, move_time=args.move_time)
    print(result.line(args.game, variant, args.a, args.b), flush=True)


if __name__ == "__main__":
    main()
