"""Bot directories on a Dask cluster: one zip archive per content hash, unpacked and checked on
each worker, and the league stores the same games as a local one."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import cloudpickle  # type: ignore[import-untyped]  # ships no type information
import pyarrow.dataset as ds
import pytest
from distributed import Client, Worker
from typer.testing import CliRunner

from harness.bots.spec import directory_sha256
from harness.cli.app import app
from harness.records import BotRef, GameSpec
from harness.run.dask import ClusterError
from harness.run.dask.cluster import LocalDaskProcesses
from harness.run.dask.shipping import (
    BotDirectoryPlugin,
    ShippedBot,
    collect_bot_files,
    localize_spec,
    write_cached_directory,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "dirbot"

# The helper below runs on the workers, which cannot import this test package: send it by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def test_a_directory_travels_as_one_archive_by_content_hash(tmp_path: Path) -> None:
    twin = Path(shutil.copytree(FIXTURE, tmp_path / "twin"))  # same files elsewhere: one copy
    seats = (BotRef("a", f"{FIXTURE}/"), BotRef("b", f"sandbox:{twin}/:Contrary"))
    plugins, shipped = collect_bot_files([GameSpec("g", "battleline", {}, 1, seats)])
    digest = directory_sha256(FIXTURE)
    (plugin,) = plugins.values()
    assert isinstance(plugin, BotDirectoryPlugin) and plugin.sha256 == digest
    assert shipped[f"{FIXTURE}/"] == ShippedBot(digest, "dirbot", ":TableBot", "",
                                                    directory=True)
    assert shipped[f"sandbox:{twin}/:Contrary"] == ShippedBot(digest, "dirbot", ":Contrary",
                                                              "sandbox:", directory=True)
    cache = tmp_path / "cache"
    unpacked = write_cached_directory(cache, digest, "dirbot", plugin.data)
    assert unpacked == cache / digest / "dirbot" and directory_sha256(unpacked) == digest
    local = localize_spec(GameSpec("g", "battleline", {}, 1, seats),
                          tuple(shipped[s.spec] for s in seats), cache)
    assert [s.spec for s in local.seats] == [f"{unpacked}/:TableBot",
                                             f"sandbox:{unpacked}/:Contrary"]
    with pytest.raises(ClusterError, match="does not match its hash"):
        write_cached_directory(tmp_path / "other", "0" * 64, "dirbot", plugin.data)
    assert not any((tmp_path / "other" / ("0" * 64)).iterdir())  # nothing half-written stays


def _games(out: Path) -> list[tuple[object, ...]]:
    rows = ds.dataset(out / "games", format="parquet").to_table().to_pylist()
    return sorted((g["game_id"], g["bots"], g["winner_seats"], g["termination"], g["decisions"])
                  for g in rows)


def test_a_bot_directory_plays_a_dask_league_like_a_local_one(
        cluster: LocalDaskProcesses, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers play the copy that travelled to their caches, not the client's files."""
    shutil.copytree(FIXTURE, tmp_path / "mybot")
    monkeypatch.chdir(tmp_path)
    league = ["league", "battleline", "mine=mybot/", "random", "--games", "2", "--seed", "5",
              "--quiet"]
    runner = CliRunner()
    local = runner.invoke(app, [*league, "--out", "local", "--workers", "1"])
    assert local.exit_code == 0, local.output
    remote = runner.invoke(app, [*league, "--out", "remote", "--cluster", cluster.address])
    assert remote.exit_code == 0, remote.output
    games = _games(tmp_path / "remote")
    assert len(games) == 2 and games == _games(tmp_path / "local")
    assert all(g[3] != "crash" for g in games), games
    logs = "".join(p.read_text() for p in (tmp_path / "remote" / "logs").iterdir())
    assert "table fixture-table loaded: pick first" in logs
    digest = directory_sha256(tmp_path / "mybot")
    with Client(cluster.address, timeout="10s", set_as_default=False) as client:
        cached = client.run(_cached_hash, digest)
    assert len(cached) == 2 and set(cached.values()) == {digest}


def _cached_hash(digest: str, dask_worker: Worker) -> str:
    """The content hash of a worker's cached copy of the bot directory."""
    from harness.bots.spec import directory_sha256
    from harness.run.dask.shipping import cache_root

    return directory_sha256(cache_root(dask_worker.local_directory) / digest / "mybot")
