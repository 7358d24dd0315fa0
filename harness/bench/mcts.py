"""The ``mcts`` bot's speed, and the duels that measured its strength.

``run(quick)`` (the bench section) prints, per game on one core: search iterations/s of the
default bot from mid-game positions, and the ``sample_state`` and ``clone`` rates its search
leans on. ``python -m harness.bench.mcts duel GAME A B --seeds 1000:1100`` plays duplicate pairs
of two bots (each seed twice, seats swapped; in a team game each bot takes a whole team) and
prints the points with a binomial 95 % interval: the figures of the README's ``mcts`` table.
A bot is written ``greedy``, ``random`` or ``mcts[:options]``, e.g. ``mcts:iters=100,c=0.5``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import time
from collections.abc import Callable
from typing import Any

from agents.greedy import GreedyBot
from agents.mcts import MctsBot, hooks_for, parse_options
from agents.random import RandomBot
from games import registry
from games.protocol import State
from harness.bench import figure
from harness.bots.spec import BotSpecError, parse_spec
from harness.league.ladder import wilson

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


def play(game: str, variant: dict[str, str], seed: int, bots: list[Any],
         move_time: float = 1.0) -> list[float]:
    """One game between bot objects, seat by seat, with no referee: the final returns."""
    state = registry.get(game).new_game(seed, **variant)
    for seat, bot in enumerate(bots):
        bot.start({"game": game, "variant": variant, "seat": seat,
                   "num_players": state.num_players, "rng_seed": seed * 16 + seat,
                   "limits": {"move_time": move_time, "overage": 10.0}})
    while not state.is_terminal():
        seat = state.current_player
        action = bots[seat].act(state.observation(seat), state.legal_actions())
        state.apply(action)
    return list(state.returns())


def _pair(game: str, variant: dict[str, str], a: str, b: str, seed: int,
          move_time: float) -> float:
    """One duplicate pair (the seed twice, ``a`` on each team in turn): ``a``'s points."""
    make_a, make_b = make_bot(a), make_bot(b)
    n = int(registry.get(game).info.resolve_variant(variant).get("players", "2"))
    points = 0.0
    for a_team in (0, 1):
        bots = [make_a() if seat % 2 == a_team else make_b() for seat in range(n)]
        returns = play(game, variant, seed, bots, move_time)
        points += (returns[a_team] + 1.0) / 2.0
    return points


def duel(game: str, variant: dict[str, str], a: str, b: str, seeds: range,
         move_time: float = 1.0, workers: int = 0) -> tuple[float, int]:
    """Duplicate pairs: ``a``'s points (win 1, draw 1/2) and the number of games, the pairs
    spread over ``workers`` processes (0: this one)."""
    make_bot(a), make_bot(b)  # a bad spec fails here, before any worker starts
    jobs = [(game, variant, a, b, seed, move_time) for seed in seeds]
    if workers > 0:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            pairs = pool.starmap(_pair, jobs, chunksize=1)
    else:
        pairs = [_pair(*job) for job in jobs]
    return sum(pairs), 2 * len(pairs)


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


def run(quick: bool) -> None:
    """Print search iterations/s (and per 50 ms) and the samples/s it relies on, per game."""
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
    parser = argparse.ArgumentParser(prog="python -m harness.bench.mcts")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("duel", help="duplicate pairs of two bots with a 95 %% interval")
    p.add_argument("game")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--variant", action="append", default=[], help="key=value")
    p.add_argument("--seeds", default="1000:1020", help="first:last (last excluded)")
    p.add_argument("--move-time", type=float, default=1.0)
    p.add_argument("--workers", type=int, default=0, help="processes (0: this one)")
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
    first, last = (int(x) for x in args.seeds.split(":"))
    t0 = time.perf_counter()
    points, games = duel(args.game, variant, args.a, args.b, range(first, last), args.move_time,
                         args.workers)
    p_hat, low, high = wilson(points, games)
    print(f"{args.game} {variant or ''} {args.a} vs {args.b}: {points:g}/{games} = "
          f"{100 * p_hat:.1f} % (95 % {100 * low:.1f}-{100 * high:.1f}) "
          f"in {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
