"""League throughput: random v random on Battle Line, against the bare engine loop.

Figures (games per second on the same deals, each the best of a few runs, since the machine
may be shared):

* bare engine: ``new_game`` + uniformly random ``legal_actions`` + ``apply``, nothing else;
* referee loop: :func:`harness.match.referee.play_game` in a loop (in-process built-in bots: the
  observation for every decision, answer checks, move records);
* league in-process (``--workers 0``), with 1 and with 2 worker processes: the whole league
  (schedule, executor, Parquet batches, progress bookkeeping) writing to a temporary folder;
* the league's own cost per game (records to Parquet, bookkeeping), measured with a stand-in
  referee that returns a ready record, so it does not depend on the engine;
* CPU per game with 2 workers (workers + parent) and the speed-up that projects on two free
  cores, a figure that other processes on the machine disturb much less than wall clock.

Ratios: league in-process / bare engine, league in-process / referee loop, and 2 workers /
1 worker (the parallel speed-up, bounded by the free cores). The load average is printed before
and after, since other processes on the machine depress every wall-clock figure.
"""

from __future__ import annotations

import dataclasses
import os
import random
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import figure
from harness.records import BotRef, GameRecord, GameSpec

SEATS = (BotRef("r1", "random"), BotRef("r2", "random"))


def _best(measure: Callable[[], float], repeats: int) -> float:
    return max(measure() for _ in range(repeats))


def _bare(games: int) -> float:
    from games import registry

    game = registry.get("battleline")
    t0 = time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_game(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
    return games / (time.perf_counter() - t0)


def _referee(games: int) -> float:
    from harness.match.referee import play_game

    t0 = time.perf_counter()
    for seed in range(games):
        play_game(GameSpec(f"b{seed}", "battleline", {}, seed, SEATS))
    return games / (time.perf_counter() - t0)


@dataclasses.dataclass
class _Run:
    rate: float  # games per second, wall clock
    parent_cpu: float  # CPU seconds per game in this process
    worker_cpu: float  # CPU seconds per game in the worker processes


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # workers count once reaped
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _league_run(games: int, workers: int, root: Path,
                play: Callable[[GameSpec], GameRecord] | None = None) -> _Run:
    from harness.league.service import League
    from harness.run import base, local

    out = Path(tempfile.mkdtemp(prefix=f"w{workers}-", dir=root))
    league = League.prepare("battleline", ["r1=random", "r2=random"], out=out, games=games,
                            seed=1)
    executor = local.make_executor(workers, play or base.default_play(None))
    me0, kids0 = _cpu()
    summary = league.run(executor, progress=False)
    me1, kids1 = _cpu()
    if summary.stored != games:
        raise RuntimeError(f"the bench league stored {summary.stored} of {games} games")
    return _Run(games / summary.seconds, (me1 - me0) / games, (kids1 - kids0) / games)


def _league(games: int, workers: int, root: Path,
            play: Callable[[GameSpec], GameRecord] | None = None) -> float:
    return _league_run(games, workers, root, play).rate


def _stand_in() -> Callable[[GameSpec], GameRecord]:
    """A referee that returns a real game's record under the spec's id, instantly."""
    from harness.match.referee import play_game

    template = play_game(GameSpec("t", "battleline", {}, 3, SEATS))

    def play(spec: GameSpec) -> GameRecord:
        return dataclasses.replace(template, game_id=spec.game_id, seed=spec.seed,
                                   seats=[b.name for b in spec.seats])

    return play


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def run(quick: bool) -> None:
    """Print the league throughput figures (quick: fewer games, fewer repeats).

    The figures compared with each other are measured in interleaved rounds (bare, referee,
    league; then 1 worker, 2 workers), each the best of its rounds, so a burst of load from
    another process on the machine does not favour one side of a ratio.
    """
    games, repeats = (100, 1) if quick else (400, 3)
    note = f"{games} games, best of {repeats}"
    print(f"  ({_load()} at the start)", flush=True)
    with tempfile.TemporaryDirectory(prefix="tourney-bench-") as tmp:
        root = Path(tmp)
        bare = referee = inline = 0.0
        for _ in range(repeats):
            bare = max(bare, _bare(games))
            referee = max(referee, _referee(games))
            inline = max(inline, _league(games, 0, root))
        figure("bare engine loop", bare, "games/s", f"{note}, one core")
        figure("referee loop (in-process bots)", referee, "games/s",
               f"{referee / bare:.0%} of bare")
        figure("league in-process", inline, "games/s",
               f"{inline / bare:.0%} of bare engine, {inline / referee:.0%} of referee loop")
        stand_in = _stand_in()
        overhead = _best(lambda: _league(games * 5, 0, root, stand_in), repeats)
        figure("league's own cost per game", 1e6 / overhead, "µs",
               f"records + Parquet + bookkeeping; a referee game costs {1e6 / referee:,.0f} µs")
        ones: list[_Run] = []
        twos: list[_Run] = []
        for _ in range(repeats):
            ones.append(_league_run(games, 1, root))
            twos.append(_league_run(games * 2, 2, root))
        one = max(r.rate for r in ones)
        figure("league, 1 worker", one, "games/s")
        two = max(r.rate for r in twos)
        figure("league, 2 workers", two, "games/s", f"speed-up {two / one:.2f}x over 1 worker")
        # Load-independent view: CPU per game. One worker is bound by its own CPU per game; two
        # workers on two free cores by the CPU of both workers and the parent per game.
        w1 = min(r.worker_cpu for r in ones)
        w2 = min(r.worker_cpu for r in twos)
        p2 = min(r.parent_cpu for r in twos)
        figure("CPU per game, 2 workers", 1000 * (w2 + p2), "ms",
               f"workers {1000 * w2:.2f} + parent {1000 * p2:.2f}; 1 worker: {1000 * w1:.2f}")
        projected = min(2 / (w2 + p2), 2 / w2) * w1
        figure("projected speed-up on 2 free cores (not measured)", projected, "x",
               "2 workers v 1, a projection from CPU time, not wall clock")
    print(f"  ({_load()} at the end)", flush=True)
