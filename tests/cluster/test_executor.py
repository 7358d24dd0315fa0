"""The Dask executor's contract on a real scheduler and workers, with a stand-in referee.

A stand-in ``play`` keeps these tests independent of the engines and lets them misbehave on
purpose; the league tests (test_league.py) play real Battle Line games, kill a worker and lose
the scheduler.
"""

from __future__ import annotations

import copy
import os
import pickle
import sys
import time
from pathlib import Path

import cloudpickle  # type: ignore[import-untyped]  # ships no type information

from harness.records import (
    BotRef,
    GameRecord,
    GameSpec,
    MoveRecord,
    Termination,
    pack_record,
    unpack_record,
)
from harness.run.dask.cluster import LocalDaskProcesses
from harness.run.dask.executor import DaskExecutor, batch_size, make_batches
from harness.run.dask.shipping import Task
from tests.patience import patience

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
        deadline = time.monotonic() + patience(60)
        while executor.client.processing() != {w: () for w in executor.client.processing()}:
            assert time.monotonic() < deadline, "cancelled games still running"
            time.sleep(0.1)


def dying_play(spec: GameSpec) -> GameRecord:
    """Game 5 takes its worker process down with it (a crash of the harness, not of a bot)."""
    if spec.seed == 5:
        os._exit(3)
    return _record(spec)


def test_batches_group_fast_games_and_leave_sandboxed_ones_alone(tmp_path: Path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text("def act(observation, legal_actions):\n    return legal_actions[0]\n")
    fast = _specs(5)
    slow = GameSpec(game_id="x", game="battleline", variant={}, seed=9,
                    seats=(BotRef("m", str(bot)), BotRef("r", "random")))
    tasks = [Task(spec, (None, None)) for spec in [*fast[:3], slow, *fast[3:]]]
    batches = make_batches(tasks, 2)
    assert [[t.spec.game_id for t in b] for b in batches] == [
        ["g000", "g001"], ["x"], ["g002", "g003"], ["g004"]]
    assert batch_size(1000, 2) == 20
    assert batch_size(64, 2) == 4
    assert batch_size(5, 2) == 1


def test_a_game_that_kills_workers_is_void_and_its_batch_mates_are_not(
        tmp_path: Path) -> None:
    """Dask gives up on a task after its workers died (allowed-failures, 0 here to be quick);
    the batch's games are retried alone, and only the killer is recorded void.

    With a worker saturation of 1 a worker holds only the task it runs, so no innocent task
    is on a worker when it dies (with the default of 3 allowed failures, that takes bad luck).
    """
    config = {"scheduler.allowed-failures": "0", "scheduler.worker-saturation": "1.0"}
    with LocalDaskProcesses(2, directory=tmp_path, config=config) as procs, \
            DaskExecutor(procs.address, dying_play, batch=4) as executor:
        records = {r.game_id: r for r in executor.run(_specs(8))}
    assert sorted(records) == [s.game_id for s in _specs(8)]
    killer = records["g005"]
    assert killer.termination is Termination.CRASH and killer.offender is None
    assert "KilledWorker" in killer.reason
    innocent = {k: r.termination for k, r in records.items() if k != "g005"}
    assert set(innocent.values()) == {Termination.NORMAL}, innocent


def hanging_play(spec: GameSpec) -> GameRecord:
    """Game 2 never ends (a referee stuck in a loop, say)."""
    if spec.seed == 2:
        time.sleep(3600)
    return _record(spec)


def test_a_hung_game_is_void_and_its_worker_restarted(cluster: LocalDaskProcesses) -> None:
    with DaskExecutor(cluster.address, hanging_play, batch=1, deadline=1.0,
                      watchdog_seconds=0.2) as executor:
        before = set(executor.client.scheduler_info()["workers"])
        records = {r.game_id: r for r in executor.run(_specs(6, "h"))}
        deadline = time.monotonic() + patience(300)
        while len(after := set(executor.client.scheduler_info()["workers"]) - before) < 1 \
                or executor.workers < 2:
            assert time.monotonic() < deadline, "the stuck worker did not come back"
            time.sleep(0.1)
    assert sorted(records) == [s.game_id for s in _specs(6, "h")]
    hung = records["h002"]
    assert hung.termination is Termination.TIMEOUT and hung.offender is None
    assert "watchdog" in hung.reason
    assert {r.termination for k, r in records.items() if k != "h002"} == {Termination.NORMAL}
    assert len(after) == 1  # one fresh worker (a new address) in place of the stuck one


def test_records_travel_packed_and_come_back_whole() -> None:
    record = _record(_specs(1)[0])
    record.moves = [MoveRecord(0, 0, "play 1 r3", 0.5), MoveRecord(1, 1, "draw troop", 0.25)]
    original = copy.deepcopy(record)
    assert unpack_record(pickle.loads(pickle.dumps(pack_record(record)))) == original
