"""Cluster throughput: games/s on a local Dask scheduler with 2 workers, next to the local
multiprocess back end with 2 workers, random against random on Battle Line.

The scheduler and workers are started here as subprocesses on 127.0.0.1 and torn down after.
Both back ends play the same schedule (the in-process ``random`` built-in on both seats), so the
difference is the back end's overhead per game: Dask's scheduling (games batched per task) and
the records' trip over TCP against the local back end's pipes. The unbatched Dask rate shows
what batching buys. On a 2-core machine the scheduler and the client share the cores with the
two workers.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from bench import figure
from harness.records import BotRef, GameSpec

if TYPE_CHECKING:
    from harness.run.base import Executor

WORKERS = 2


def _schedule(games: int, seed: int) -> list[GameSpec]:
    from harness.league.schedule import round_robin

    bots = [BotRef("random-a", "random"), BotRef("random-b", "random")]
    return round_robin("battleline", {}, bots, games, seed, league="bench-cluster")


def _rate(executor: Executor, specs: list[GameSpec]) -> float:
    """Games per second of one pass of ``executor`` over ``specs``."""
    t0 = time.perf_counter()
    n = sum(1 for _ in executor.run(specs))
    seconds = time.perf_counter() - t0
    if n != len(specs):
        raise RuntimeError(f"the back end returned {n} records for {len(specs)} games")
    return n / seconds


def run(quick: bool) -> None:
    from harness.run.dask.cluster import LocalDaskProcesses
    from harness.run.dask.executor import DaskExecutor
    from harness.run.local import ProcessExecutor

    games = 60 if quick else 400
    warm = _schedule(WORKERS * 4, seed=99)
    specs = _schedule(games, seed=1)

    with ProcessExecutor(WORKERS) as local:
        _rate(local, warm)
    with ProcessExecutor(WORKERS) as local:
        local_rate = _rate(local, specs)
    figure("local back end, 2 workers", local_rate, "games/s",
           f"{games} games random v random")

    t0 = time.perf_counter()
    with LocalDaskProcesses(WORKERS) as procs:
        started = time.perf_counter() - t0
        with DaskExecutor(procs.address) as dask:
            _rate(dask, warm)  # workers import the engine once
            dask_rate = _rate(dask, specs)
        with DaskExecutor(procs.address, batch=1) as dask:
            single_rate = _rate(dask, specs)
    figure("dask cluster, 2 workers", dask_rate, "games/s",
           f"{games} games random v random; scheduler + workers on 127.0.0.1")
    figure("dask / local", 100.0 * dask_rate / local_rate, "%")
    figure("dask cluster, one game per task", single_rate, "games/s",
           "without batching: the scheduler's round trip per game")
    figure("dask cluster start-up", started, "s", "scheduler + 2 workers, until registered")
