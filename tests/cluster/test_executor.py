"""The Dask executor's contract on a real scheduler and workers, with a stand-in referee.

A stand-in ``play`` keeps these tests independent of the engines and lets them misbehave on
purpose; the league tests (test_league.py) play real Battle Line games, kill a worker and lose
the scheduler.
"""

from __future__ import annotations

import os
import sys
import time

import cloudpickle

from harness.executors_dask import DaskExecutor, LocalDaskProcesses
from harness.records import BotRef, GameRecord, GameSpec, Termination

# The stand-in players run on the workers, which cannot import this test package.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _specs(n: int, prefix: str = "g") -> list[GameSpec]:
    seats = (BotRef("a", "random"), BotRef("b", "random"))
    return [GameSpec(game_id=f"{prefix}{i:03d}", game="battleline", variant={}, seed=i,
                     seats=seats) for i in range(n)]


def _record(spec: GameSpec, termination: Termination = Termination.NORMAL) -> GameRecord:
    winner = spec.seed % 2
    return GameRecord(
        game_id=spec.game_id, game=spec.game, variant=dict(spec.variant), rules_version="t",
        seed=spec.seed, seats=[b.name for b in spec.seats],
        returns=[1.0 if s == winner else -1.0 for s in range(2)], scores=[0.0, 0.0],
        winners=[winner], termination=termination, reason=f"pid {os.getpid()}",
        decisions=spec.seed, duration=0.0, think_time=[0.0, 0.0])


def slow_play(spec: GameSpec) -> GameRecord:
    """A game that takes a moment, so a worker can die in the middle of one."""
    time.sleep(0.25)
    return _record(spec)


def raising_play(spec: GameSpec) -> GameRecord:
    if spec.seed == 1:
        raise RuntimeError("the referee broke")
    return _record(spec)


def test_every_game_comes_back_once(cluster: LocalDaskProcesses) -> None:
    specs = _specs(12)
    with DaskExecutor(cluster.address, slow_play) as executor:
        assert executor.workers == 2
        records = list(executor.run(specs))
    assert sorted(r.game_id for r in records) == [s.game_id for s in specs]
    assert {r.decisions for r in records} == set(range(12))
    assert len({r.reason for r in records}) == 2  # both workers played


def test_a_harness_failure_is_a_void_record_not_a_task_failure(
        cluster: LocalDaskProcesses) -> None:
    with DaskExecutor(cluster.address, raising_play) as executor:
        records = {r.game_id: r for r in executor.run(_specs(3))}
    assert len(records) == 3
    broken = records["g001"]
    assert broken.termination is Termination.CRASH
    assert broken.offender is None and broken.winners == []
    assert "the referee broke" in broken.reason
    assert records["g000"].termination is Termination.NORMAL


def test_stopping_early_cancels_the_rest(cluster: LocalDaskProcesses) -> None:
    with DaskExecutor(cluster.address, slow_play) as executor:
        run = executor.run(_specs(20, "s"))
        first = next(run)
        run.close()
        assert first.game_id.startswith("s")
        deadline = time.monotonic() + 10
        while executor.client.processing() != {w: () for w in executor.client.processing()}:
            assert time.monotonic() < deadline, "cancelled games still running"
            time.sleep(0.1)
