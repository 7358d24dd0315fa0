from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from harness.records import GameRecord, GameSpec, Termination
from harness.run.base import PlayFn, void_record
from harness.run.local import InlineExecutor, ProcessExecutor
from tests.patience import patience

from .helpers import record, spec

SPECS = [spec(f"g{i:02d}") for i in range(12)]


def quick(s: GameSpec) -> GameRecord:
    return record(s.game_id)


def ids(records: list[GameRecord]) -> list[str]:
    return sorted(r.game_id for r in records)


def test_every_spec_yields_one_record_inline_and_in_workers() -> None:
    inline = list(InlineExecutor(quick).run(SPECS))
    with ProcessExecutor(2, quick) as ex:
        assert ex.workers == 2
        parallel = list(ex.run(SPECS))
    assert ids(inline) == ids(parallel) == ids([record(s.game_id) for s in SPECS])


def test_a_raising_referee_gives_a_void_record() -> None:
    def broken(s: GameSpec) -> GameRecord:
        raise ValueError("boom")

    (rec,) = InlineExecutor(broken).run(SPECS[:1])
    assert rec.termination is Termination.CRASH and rec.offender is None
    assert "ValueError: boom" in rec.reason


def dies_once(marker: Path, victim: str) -> PlayFn:
    def play(s: GameSpec) -> GameRecord:
        if s.game_id == victim and not marker.exists():
            marker.write_text("died")
            os.kill(os.getpid(), signal.SIGKILL)
        return quick(s)

    return play


def test_a_worker_killed_mid_game_is_replaced_and_the_game_rerun(tmp_path: Path) -> None:
    with ProcessExecutor(2, dies_once(tmp_path / "m", "g05")) as ex:
        records = list(ex.run(SPECS))
    assert ids(records) == ids([record(s.game_id) for s in SPECS])
    assert all(r.termination is Termination.NORMAL for r in records)
    assert (tmp_path / "m").exists()


def always_dies(s: GameSpec) -> GameRecord:
    if s.game_id == "g03":
        os.kill(os.getpid(), signal.SIGKILL)
    return quick(s)


def test_a_game_that_keeps_killing_workers_is_recorded_void() -> None:
    with ProcessExecutor(2, always_dies, retries=1) as ex:
        records = {r.game_id: r for r in ex.run(SPECS)}
    assert len(records) == len(SPECS)
    bad = records["g03"]
    assert bad.termination is Termination.CRASH and bad.offender is None
    assert "signal 9" in bad.reason and "2 times" in bad.reason


def hangs(s: GameSpec) -> GameRecord:
    if s.game_id == "g01":
        time.sleep(3600)
    return quick(s)


def test_a_hung_game_is_killed_by_the_watchdog() -> None:
    t0 = time.monotonic()
    with ProcessExecutor(2, hangs, deadline=1.0, poll_seconds=0.1) as ex:
        records = {r.game_id: r for r in ex.run(SPECS)}
    assert time.monotonic() - t0 < patience(30, cap=1800)  # the hung game: 3,600 s
    assert len(records) == len(SPECS)
    assert records["g01"].termination is Termination.TIMEOUT
    assert "watchdog" in records["g01"].reason


def test_stopping_early_stops_the_workers() -> None:
    ex = ProcessExecutor(2, hangs, poll_seconds=0.1)
    it = ex.run([SPECS[1], SPECS[2]])
    assert next(it).game_id == "g02"
    pids = ex.worker_pids()
    assert pids
    it.close()  # what a KeyboardInterrupt in the caller does
    assert ex.worker_pids() == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_void_records_keep_the_spec() -> None:
    rec = void_record(SPECS[0], Termination.TIMEOUT, "why")
    assert rec.seats == ["a", "b"] and rec.winners == [] and rec.returns == [0.0, 0.0]


def test_a_worker_that_dies_idle_is_replaced_without_charging_a_game() -> None:
    ex = ProcessExecutor(2, quick, retries=0)
    first = list(ex.run(SPECS[:2]))
    assert len(first) == 2 and ex.worker_pids() == []  # run() stops its workers at the end
    ex._spawn()
    (idle,) = ex.worker_pids()
    os.kill(idle, signal.SIGKILL)
    time.sleep(0.2)
    records = list(ex.run(SPECS[2:6]))
    assert ids(records) == [f"g0{i}" for i in range(2, 6)]
    assert all(r.termination is Termination.NORMAL for r in records)


def test_persistent_workers_play_run_after_run_and_stop_with_close() -> None:
    """A living league's waves: the same workers play each short list of games, a stop
    mid-run kills the ones still playing, close ends the rest."""
    ex = ProcessExecutor(2, quick, persistent=True)
    assert ids(list(ex.run(SPECS[:6]))) == ids([record(s.game_id) for s in SPECS[:6]])
    pids = sorted(ex.worker_pids())
    assert len(pids) == 2
    assert ids(list(ex.run(SPECS[6:]))) == ids([record(s.game_id) for s in SPECS[6:]])
    assert sorted(ex.worker_pids()) == pids  # not forked again
    ex.close()
    assert ex.worker_pids() == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    slow = ProcessExecutor(2, hangs, poll_seconds=0.1, persistent=True)
    it = slow.run([SPECS[1], SPECS[2]])
    assert next(it).game_id == "g02"
    it.close()  # the game still running is stopped with its worker
    assert len(slow.worker_pids()) <= 1
    slow.close()
    assert slow.worker_pids() == []
