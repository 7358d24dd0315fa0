"""`tourney league --cluster`: real Battle Line leagues on a real scheduler and two workers.

The bot files are given by *relative* path from the client's directory, which the workers (each
in a directory of its own) cannot see: the games only play because the files travel to the
workers by hash.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pytest
from distributed import Client
from typer.testing import CliRunner, Result

from harness.cli.app import app
from harness.league.service import prepare_league, run_league
from harness.records import GameRecord
from harness.run.dask.cluster import LocalDaskProcesses
from harness.run.dask.executor import DaskExecutor
from tests.isolation_states import everything_in_force

FIRST_BOT = '''"""Always the first legal action (deterministic)."""


def act(observation, legal_actions):
    return legal_actions[0]
'''

CRASH_BOT = '''"""Raises on its first move: a game result (a forfeit), not a worker failure."""


def act(observation, legal_actions):
    raise RuntimeError("boom")
'''

SLOW_BOT = '''"""The first legal action after a short think: games long enough to interrupt."""

import time


def act(observation, legal_actions):
    time.sleep(0.01)
    return legal_actions[0]
'''

LEAGUE = ["league", "battleline", "random", "first.py", "random2=random", "crash.py",
          "--games", "2", "--seed", "5", "--quiet"]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The client's directory, holding the bot files the league names by relative path."""
    (tmp_path / "first.py").write_text(FIRST_BOT)
    (tmp_path / "slow.py").write_text(SLOW_BOT)
    (tmp_path / "crash.py").write_text(CRASH_BOT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _stored(out: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The stored games (id, bots, winner seats, termination, reason) and moves, sorted."""
    games = ds.dataset(out / "games", format="parquet").to_table().to_pylist()
    moves = ds.dataset(out / "moves", format="parquet").to_table().to_pylist()
    return (
        sorted((g["game_id"], g["bots"], g["winner_seats"], g["termination"], g["reason"],
                g["result"], g["decisions"]) for g in games),
        sorted((m["game_id"], m["ply"], m["seat"], m["action"]) for m in moves),
    )


def test_a_cluster_league_stores_the_same_games_as_a_local_one(
        cluster: LocalDaskProcesses, workdir: Path) -> None:
    local = _invoke(*LEAGUE, "--out", "local", "--workers", "2")
    assert local.exit_code == 0, local.output
    workers_before = _worker_ids(cluster)
    remote = _invoke(*LEAGUE, "--out", "remote", "--cluster", cluster.address)
    assert remote.exit_code == 0, remote.output
    assert "12 of 12 scheduled games stored" in remote.stdout
    assert _worker_ids(cluster) == workers_before  # the crashing bot cost no worker

    local_games, local_moves = _stored(workdir / "local")
    remote_games, remote_moves = _stored(workdir / "remote")
    assert len(remote_games) == 12
    assert remote_games == local_games
    assert remote_moves == local_moves
    assert any("first" in g[1] and g[3] == "normal" for g in remote_games)  # the file bot played
    local_logs = sorted(p.name for p in (workdir / "local" / "logs").iterdir())
    assert local_logs  # the crashing bot's traceback, at least
    assert sorted(p.name for p in (workdir / "remote" / "logs").iterdir()) == local_logs
    crashed = [g for g in remote_games if "crash" in g[1]]
    assert len(crashed) == 6
    assert all(g[3] == "crash" and "boom" in g[4] for g in crashed)


def _worker_ids(procs: LocalDaskProcesses) -> set[str]:
    """The workers now registered, by id (a restarted worker comes back with a new one)."""
    with Client(procs.address, timeout="10s", set_as_default=False) as client:
        return {w["id"] for w in client.scheduler_info()["workers"].values()}


def _slow_league(out: Path) -> Any:
    return prepare_league("battleline", ["slow.py", "random"], out=out, games=8, seed=11)


def test_a_worker_killed_mid_league_loses_nothing(
        own_cluster: LocalDaskProcesses, workdir: Path) -> None:
    plan = _slow_league(workdir / "killed")
    executor = DaskExecutor(own_cluster.address)
    victims: list[str] = []

    def kill_once(record: GameRecord) -> None:
        if victims:
            return
        busy = executor.client.processing()
        name = {a: w["name"] for a, w in executor.client.scheduler_info()["workers"].items()}
        victim = next((a for a, keys in sorted(busy.items()) if keys), None)
        if victim is None:  # between games: try again at the next record
            return
        victims.append(victim)
        own_cluster.kill_worker(int(str(name[victim]).removeprefix("w")))

    summary = run_league(plan, executor, progress=False, on_record=kill_once)
    assert victims, "no worker was ever busy when a game came back"
    assert summary.stored == summary.played == 8
    games = ds.dataset(workdir / "killed" / "games", format="parquet").to_table().to_pylist()
    counts = collections.Counter(g["game_id"] for g in games)
    assert sorted(counts) == sorted(s.game_id for s in plan.specs)
    assert set(counts.values()) == {1}
    assert {g["termination"] for g in games} <= {"normal", "stalemate"}  # none void


def test_a_lost_scheduler_is_one_line_and_the_league_resumes(
        workdir: Path, tmp_path_factory: pytest.TempPathFactory,
        monkeypatch: pytest.MonkeyPatch) -> None:
    received: list[str] = []
    original = DaskExecutor.run

    with LocalDaskProcesses(1, directory=tmp_path_factory.mktemp("dask")) as first:
        def run_then_lose_the_scheduler(self: DaskExecutor, specs: Any) -> Iterator[GameRecord]:
            for record in original(self, specs):
                received.append(record.game_id)
                if len(received) == 2:
                    first.kill_scheduler()
                yield record

        with monkeypatch.context() as patch:
            patch.setattr(DaskExecutor, "run", run_then_lose_the_scheduler)
            lost = _invoke(*LEAGUE, "--out", "resumed", "--cluster", first.address)
    assert lost.exit_code == 2
    assert lost.stderr.startswith("tourney: error: lost the Dask scheduler at tcp://127.0.0.1")
    assert lost.stderr.count("\n") == 1, lost.stderr
    games, _ = _stored(workdir / "resumed")
    assert [g[0] for g in games] == sorted(received)  # what came back is stored, once

    with LocalDaskProcesses(1, directory=tmp_path_factory.mktemp("dask")) as second:
        resumed = _invoke(*LEAGUE, "--out", "resumed", "--cluster", second.address)
    assert resumed.exit_code == 0, resumed.output
    assert f"played {12 - len(received)} games" in resumed.stdout
    games, _ = _stored(workdir / "resumed")
    assert len(games) == len({g[0] for g in games}) == 12


def test_a_worker_that_cannot_confine_bots_refuses_a_league_that_requires_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--require-isolation is checked on every Dask worker before it plays: workers started
    where namespaces are refused (simulated) stop the league with one line; nothing is
    stored as played."""
    from harness.bots import sandbox
    from harness.league.service import make_executor
    from harness.run.dask import IsolationRefused

    monkeypatch.setattr(sandbox, "report", everything_in_force)  # the coordinator gives it all
    out = tmp_path / "lg"
    monkeypatch.setenv("TOURNEY_NO_NAMESPACES", "1")  # its workers do not
    with LocalDaskProcesses(1, directory=tmp_path / "dask") as procs:
        monkeypatch.delenv("TOURNEY_NO_NAMESPACES")
        plan = prepare_league("battleline", ["a=sandbox:random", "greedy"], out=out, games=2,
                              require_isolation=True)
        with make_executor(None, out, procs.address, require_isolation=True) as executor, \
                pytest.raises(IsolationRefused) as refused:
            run_league(plan, executor, progress=False)
    text = str(refused.value)
    assert text.startswith("--require-isolation: the Dask worker on ")
    assert "the allow-list file system" in text and "\n" not in text
    assert not list((out / "games").glob("*.parquet"))
