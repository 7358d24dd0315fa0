"""League throughput: random v random on Battle Line, against the bare engine loop.

Figures (games per second, all on the same deals):

* bare engine: ``new_game`` + uniformly random ``legal_actions`` + ``apply``, nothing else;
* referee loop: :func:`harness.referee.play_game` in a loop (in-process built-in bots: the
  observation for every decision, answer checks, move records);
* league in-process (``--workers 0``), with 1 and with 2 worker processes: the whole league
  (schedule, executor, Parquet batches, progress bookkeeping) writing to a temporary folder.

Ratios: league in-process / bare engine, league in-process / referee loop (the league's own
overhead: records and Parquet), and 2 workers / 1 worker (the parallel speed-up, bounded by the
number of free cores: the machine may be shared).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from harness.bench import figure


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
    from harness.records import BotRef, GameSpec
    from harness.referee import play_game

    seats = (BotRef("r1", "random"), BotRef("r2", "random"))
    t0 = time.perf_counter()
    for seed in range(games):
        play_game(GameSpec(f"b{seed}", "battleline", {}, seed, seats))
    return games / (time.perf_counter() - t0)


def _league(games: int, workers: int, root: Path) -> float:
    from harness import executors
    from harness.cli_league import prepare_league, run_league

    out = root / f"w{workers}"
    plan = prepare_league("battleline", ["r1=random", "r2=random"], out=out, games=games,
                          seed=1)
    executor = executors.make_executor(workers, executors.default_play(None))
    summary = run_league(plan, executor, progress=False)
    if summary.stored != games:
        raise RuntimeError(f"the bench league stored {summary.stored} of {games} games")
    return games / summary.seconds


def run(quick: bool) -> None:
    """Print the league throughput figures (quick: fewer games)."""
    games = 200 if quick else 1000
    bare = _bare(games)
    figure("bare engine loop", bare, "games/s", f"{games} games, one core")
    referee = _referee(games)
    figure("referee loop (in-process bots)", referee, "games/s", f"{referee / bare:.0%} of bare")
    with tempfile.TemporaryDirectory(prefix="tourney-bench-") as tmp:
        inline = _league(games, 0, Path(tmp))
        figure("league in-process", inline, "games/s",
               f"{inline / bare:.0%} of bare engine, {inline / referee:.0%} of referee loop")
        one = _league(games, 1, Path(tmp))
        figure("league, 1 worker", one, "games/s")
        two = _league(games * 2, 2, Path(tmp))
        figure("league, 2 workers", two, "games/s", f"speed-up {two / one:.2f}x over 1 worker")
