"""Bot files travel by content hash, once per worker, with no shared file system."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import cloudpickle  # type: ignore[import-untyped]  # ships no type information
import pytest
from distributed import Client, Worker
from typer.testing import CliRunner

from harness.cli.app import app
from harness.records import BotRef, GameSpec
from harness.run.dask import ClusterError, require_dask
from harness.run.dask.cluster import LocalDaskProcesses
from harness.run.dask.executor import check_address, connect, ship_bots
from harness.run.dask.shipping import (
    BotFilePlugin,
    ShippedBot,
    cache_root,
    collect_bot_files,
    localize_spec,
    plugin_name,
    split_file_spec,
    write_cached_file,
)

# The helpers below run on the workers, which cannot import this test package: send them by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

BOT_SOURCE = "def act(observation, legal_actions):\n    return legal_actions[0]\n"


def _spec(*seats: BotRef, game_id: str = "g0") -> GameSpec:
    return GameSpec(game_id=game_id, game="battleline", variant={}, seed=7, seats=seats)


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "first.py"
    path.write_text(BOT_SOURCE)
    return path


def test_split_file_spec_tells_files_from_names(bot_file: Path) -> None:
    assert split_file_spec(str(bot_file)) == (bot_file, "", "")
    assert split_file_spec(f"{bot_file}:Careful") == (bot_file, "", ":Careful")
    assert split_file_spec(f"inproc:{bot_file}") == (bot_file, "inproc:", "")
    assert split_file_spec("random") is None
    assert split_file_spec("sandbox:greedy") is None
    assert split_file_spec("cmd:./engine --fast") is None
    assert split_file_spec(str(bot_file.with_name("missing.py"))) is None


def test_collect_reads_each_file_once_and_keys_it_by_hash(bot_file: Path, tmp_path: Path) -> None:
    twin = tmp_path / "sub"
    twin.mkdir()
    (twin / "copy.py").write_text(BOT_SOURCE)  # same bytes elsewhere: same hash, one plugin
    specs = [
        _spec(BotRef("a", str(bot_file)), BotRef("r", "random")),
        _spec(BotRef("a", f"{bot_file}:act"), BotRef("b", str(twin / "copy.py")), game_id="g1"),
    ]
    plugins, shipped = collect_bot_files(specs)
    digest = hashlib.sha256(BOT_SOURCE.encode()).hexdigest()
    assert list(plugins) == [digest]
    assert plugins[digest].name == plugin_name(digest)
    assert shipped[str(bot_file)] == ShippedBot(digest, "first.py", "")
    assert shipped[f"{bot_file}:act"] == ShippedBot(digest, "first.py", ":act")
    assert shipped[str(twin / "copy.py")] == ShippedBot(digest, "first.py", "")  # the one copy
    assert "random" not in shipped


def test_cache_write_checks_the_hash(tmp_path: Path) -> None:
    data = BOT_SOURCE.encode()
    digest = hashlib.sha256(data).hexdigest()
    path = write_cached_file(tmp_path, digest, "bot.py", data)
    assert path == tmp_path / digest / "bot.py"
    assert path.read_bytes() == data
    with pytest.raises(ClusterError, match="does not match its hash"):
        write_cached_file(tmp_path, "0" * 64, "bot.py", data)


def test_localize_points_shipped_seats_at_the_cache(tmp_path: Path) -> None:
    data = BOT_SOURCE.encode()
    digest = hashlib.sha256(data).hexdigest()
    spec = _spec(BotRef("a", "sandbox:/elsewhere/first.py:act"), BotRef("r", "random"))
    shipped = (ShippedBot(digest, "first.py", ":act", "sandbox:"), None)
    with pytest.raises(ClusterError, match="missing from this worker's cache"):
        localize_spec(spec, shipped, tmp_path)
    write_cached_file(tmp_path, digest, "first.py", data)
    local = localize_spec(spec, shipped, tmp_path)
    assert local.seats[0].spec == f"sandbox:{tmp_path / digest / 'first.py'}:act"
    assert local.seats[0].name == "a"
    assert local.seats[1] == spec.seats[1]
    assert (local.game_id, local.seed) == (spec.game_id, spec.seed)


def _cached_bytes(sha256: str, filename: str, dask_worker: Worker) -> bytes:
    path = cache_root(dask_worker.local_directory) / sha256 / filename
    return path.read_bytes()


def test_files_reach_every_worker_once(cluster: LocalDaskProcesses, tmp_path: Path) -> None:
    bot = tmp_path / "shipped_bot.py"
    bot.write_text(BOT_SOURCE + "# shipped\n")
    plugins, _ = collect_bot_files([_spec(BotRef("s", str(bot)), BotRef("r", "random"))])
    (plugin,) = plugins.values()
    with Client(cluster.address, timeout="10s", set_as_default=False) as client:
        ship_bots(client, plugins)
        copies = client.run(_cached_bytes, plugin.sha256, "shipped_bot.py")
        assert len(copies) == 2
        assert set(copies.values()) == {bot.read_bytes()}
        # Registering again sends nothing: the scheduler keeps the first registration.
        ship_bots(client, {plugin.sha256: BotFilePlugin("other.py", bot.read_bytes())})
        names = client.run(_plugin_names)
        assert all(plugin.name in worker_plugins for worker_plugins in names.values())
        assert client.run(_cached_exists, plugin.sha256, "other.py") == {
            w: False for w in copies}


def _plugin_names(dask_worker: Worker) -> list[str]:
    return sorted(dask_worker.plugins)


def _cached_exists(sha256: str, filename: str, dask_worker: Worker) -> bool:
    return (cache_root(dask_worker.local_directory) / sha256 / filename).exists()


def test_unreachable_scheduler_is_one_clear_error() -> None:
    with pytest.raises(ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0"):
        connect("127.0.0.1:9", timeout=1.0)


@pytest.mark.parametrize("address", ["8786", "tcp://", "http://10.0.0.5:8786", "host:99999"])
def test_a_malformed_address_is_one_clear_error(address: str) -> None:
    with pytest.raises(ClusterError, match=r"is not a Dask scheduler address; give tcp://HOST"):
        check_address(address)
    assert check_address("10.0.0.5:8786") == "tcp://10.0.0.5:8786"


def test_the_cli_says_what_is_wrong_with_cluster_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["league", "battleline", "random", "other=random",
                                      "--out", str(tmp_path / "x"), "--cluster", "nowhere"])
    assert result.exit_code == 2
    assert result.stderr.startswith("tourney: error: --cluster 'nowhere' is not a Dask")
    assert result.stderr.count("\n") == 1


def test_no_workers_is_one_clear_error_and_workers_joining_later_get_the_files(
        tmp_path: Path) -> None:
    bot = tmp_path / "late_bot.py"
    bot.write_text(BOT_SOURCE + "# late\n")
    plugins, _ = collect_bot_files([_spec(BotRef("l", str(bot)), BotRef("r", "random"))])
    (plugin,) = plugins.values()
    with LocalDaskProcesses(0, directory=tmp_path / "dask") as procs:
        with pytest.raises(ClusterError, match=r"has no workers after 1 s: start some with "
                                               r"`dask worker tcp://127\.0\.0\.1:\d+`"):
            connect(procs.address, worker_wait=1.0)
        with Client(procs.address, timeout="10s", set_as_default=False) as client:
            ship_bots(client, plugins)  # no worker yet: the scheduler keeps the plugin
            procs.add_worker()
            procs.wait_for_workers(1)
            copies = client.run(_cached_bytes, plugin.sha256, "late_bot.py")
    assert list(copies.values()) == [bot.read_bytes()]


def test_missing_dask_is_one_clear_error(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(ClusterError, match=r"pip install '\.\[dask\]' in the tourney clone"):
        require_dask()
    monkeypatch.setitem(sys.modules, "harness.run.dask.executor", None)  # cannot import either
    result = CliRunner().invoke(app, ["league", "battleline", "random", "other=random",
                                      "--out", str(tmp_path / "x"), "--cluster", "h:1"])
    assert result.exit_code == 2
    assert result.stderr == ("tourney: error: --cluster needs Dask, which is not installed: "
                             "pip install '.[dask]' in the tourney clone\n")
