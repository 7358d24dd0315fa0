from __future__ import annotations

import errno
import os
from pathlib import Path

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from harness.league import schema, store
from harness.league.config import LeagueConfig, LeagueMismatch, StoreError
from harness.league.folder import load_config
from harness.records import BotRef, GameRecord, Limits, Termination

from .helpers import record


def config(**changes: object) -> LeagueConfig:
    base = LeagueConfig(
        name="t", game="battleline", variant={"rules": "standard"}, rules_version="1", seed=1,
        games_per_pair=4, bots=[BotRef("a", "random", "aa"), BotRef("b", "greedy", "bb")],
    )
    for key, value in changes.items():
        setattr(base, key, value)
    return base


def write(root: Path, *records: GameRecord, batch_size: int = 100) -> store.ScanReport:
    with store.ResultsStore.open(root, config(), batch_size=batch_size) as st:
        for r in records:
            st.add(r)
        st.flush()
        return st.report


def test_games_and_moves_read_back_with_plain_pyarrow(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"), record("g2", returns=(0.0, 0.0)),
          record("g3", seats=("a", "b", "a", "b"), returns=(-1, 1, -1, 1), moves=5,
                 teams=(0, 1, 0, 1)),
          record("g4", termination=Termination.TIMEOUT, offender=1))
    games = ds.dataset(root / "games", format="parquet").to_table().sort_by("game_id")
    assert games.schema == schema.GAMES_SCHEMA
    rows = games.to_pylist()
    assert [r["winner"] for r in rows] == ["a", None, "b", "a"]
    assert [r["draw"] for r in rows] == [False, True, False, False]
    assert rows[2]["bots"] == ["a", "b", "a", "b"] and rows[2]["winner_seats"] == [1, 3]
    assert rows[3]["offender_bot"] == "b" and rows[3]["termination"] == "timeout"
    assert rows[0]["variant"] == '{"rules":"standard"}'
    moves = ds.dataset(root / "moves", format="parquet").to_table()
    assert moves.num_rows == 3 + 3 + 5 + 3
    assert store.load_moves(root, "g3")[4] == {
        "game_id": "g3", "ply": 4, "seat": 0, "action": "act4", "think_time": 0.0001}
    assert schema.record_from_row(rows[0]).seats == ["a", "b"]


def test_reopening_lists_finished_ids_and_drops_repeats(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"), record("g2"), batch_size=1)
    assert len(store.batch_files(root / "games")) == 2
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == {"g1", "g2"}
        assert st.add(record("g1")) is False
        assert st.add(record("g3")) is True
        st.flush()
    assert store.load_games([root]).games.column("game_id").to_pylist() == ["g1", "g2", "g3"]


def test_a_damaged_batch_is_quarantined_and_its_games_replayable(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"), batch_size=1)
    write(root, record("g2"), batch_size=1)
    damaged = store.batch_files(root / "games")[1]
    damaged.write_bytes(damaged.read_bytes()[:50])  # truncated mid-file
    loaded = store.load_games([root])  # read-only: reported and skipped
    assert loaded.games.column("game_id").to_pylist() == ["g1"]
    assert "unreadable" in loaded.skipped[0]
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == {"g1"}
        assert len(st.report.quarantined) == 2
        assert "games will be replayed" in st.report.quarantined[0]
    assert len(list((root / "quarantine").iterdir())) == 2
    assert len(store.batch_files(root / "moves")) == 1
    ds.dataset(root / "games", format="parquet").to_table()  # readable again


def test_a_flipped_byte_is_caught_by_the_page_checksums(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"), batch_size=1)
    write(root, record("g2"), batch_size=1)
    damaged = store.batch_files(root / "games")[0]
    chunk = pq.read_metadata(damaged).row_group(0).column(0)
    start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
    data = bytearray(damaged.read_bytes())
    data[start + chunk.total_compressed_size - 1] ^= 0xFF  # the last byte of the page data
    damaged.write_bytes(bytes(data))
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == {"g2"}
        assert st.report.quarantined[0].startswith(f"games/{damaged.name}: games/{damaged.name}")
        assert "CRC" in st.report.quarantined[0]


def _flip_think_times(moves: Path) -> None:
    """16 bytes flipped inside the think_time column's pages, as the issue did."""
    group = pq.read_metadata(moves).row_group(0)
    chunk = next(group.column(i) for i in range(group.num_columns)
                 if group.column(i).path_in_schema == "think_time")
    start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
    data = bytearray(moves.read_bytes())
    for k in range(16):
        data[start + chunk.total_compressed_size // 2 + k] ^= 0xFF
    moves.write_bytes(bytes(data))


def test_a_damaged_moves_file_is_quarantined_with_its_games_on_the_next_open(
        tmp_path: Path) -> None:
    """Issue 29: a moves file with damaged pages was kept (its footer was all a resume read),
    so its games counted as stored while their moves could not be read. Every moves file is
    checked whole the first time the folder is opened after it was written."""
    root = tmp_path / "lg"
    write(root, record("g1"), batch_size=1)
    write(root, record("g2"), batch_size=1)
    damaged = store.batch_files(root / "moves")[0]
    _flip_think_times(damaged)
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == {"g2"}  # g1's games file went with its moves: g1 is replayed
        assert st.report.quarantined[-1].startswith(f"moves/{damaged.name}: moves/{damaged.name} "
                                                    "is unreadable")
        assert "\n" not in st.report.quarantined[-1]
    assert not damaged.exists() and (root / "quarantine" / f"moves-{damaged.name}").exists()


def test_a_checked_moves_file_is_not_read_again_until_it_changes(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"), batch_size=1)
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == {"g1"}
    moves = store.batch_files(root / "moves")[0]
    remembered = (root / "moves" / ".verified").read_text()
    assert moves.name in remembered
    _flip_think_times(moves)  # a changed file (another modification time) is checked again
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == set() and "is unreadable" in st.report.quarantined[-1]


def test_a_moves_file_that_does_not_match_its_games_is_caught(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1", moves=3))
    (moves,) = store.batch_files(root / "moves")
    pq.write_table(schema.moves_table([record("g1", moves=5)]), moves)
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == set()
        assert f"moves/{moves.name} holds 5 moves, its games 3" in st.report.quarantined[0]


def test_unfinished_batches_and_temp_files_are_cleared(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"))
    (root / "moves" / "batch-000009-dead.parquet").write_bytes(b"orphan")
    (root / "games" / ".batch-000010-x.parquet.tmp").write_bytes(b"half")
    with store.ResultsStore.open(root, config()) as st:
        assert st.finished == {"g1"}
        assert any("unfinished batch" in q for q in st.report.quarantined)
    assert not list((root / "games").glob(".*"))


@pytest.mark.parametrize(("change", "message"), [
    ({"game": "warchest"}, "a battleline league, not warchest"),
    ({"variant": {"rules": "tactics"}}, "variant rules=standard, not rules=tactics"),
    ({"rules_version": "2"}, "rules 1, but the engine is now at rules 2"),
    ({"seed": 5}, "--seed 1, not --seed 5"),
    ({"limits": Limits(move_time=3.0)}, "--move-time 1, not --move-time 3"),
    ({"bots": [BotRef("a", "random", "changed")]}, "bot 'a' changed"),
])
def test_another_league_is_refused(tmp_path: Path, change: dict[str, object],
                                   message: str) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"))
    with pytest.raises(LeagueMismatch, match=message):
        store.ResultsStore.open(root, config(**change))


def test_new_bots_and_more_games_merge(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    write(root, record("g1"))
    bots = [BotRef("a", "random", "aa"), BotRef("c", "c.py", "cc")]
    with store.ResultsStore.open(root, config(bots=bots, games_per_pair=8)) as st:
        assert [b.name for b in st.config.bots] == ["a", "b", "c"]
        assert st.config.games_per_pair == 8
    assert load_config(root).bot("c") == BotRef("c", "c.py", "cc")


def test_a_full_disk_leaves_no_partial_file(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "lg"
    st = store.ResultsStore.open(root, config())
    st.add(record("g1"))

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(StoreError, match="disk is full; free some space"):
        st.flush()
    monkeypatch.undo()
    st.close()
    assert not list((root / "games").iterdir()) and not list((root / "moves").iterdir())
    with store.ResultsStore.open(root, config()) as again:
        assert again.finished == set()  # the game will be played again


def test_unusable_folders_are_refused(tmp_path: Path) -> None:
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(StoreError, match="is a file"):
        store.ResultsStore.open(afile, config())
    with pytest.raises(StoreError, match="cannot write results"):
        store.ResultsStore.open(afile / "sub", config())
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not empty"):
        store.ResultsStore.open(other, config())
    with pytest.raises(StoreError, match=r"no league\.json"):
        load_config(other)


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    root = tmp_path / "lg"
    with (store.ResultsStore.open(root, config()),
          pytest.raises(StoreError, match="another tourney process")):
        store.ResultsStore.open(root, config())


def test_three_player_rows_name_a_single_winner_or_explain_a_shared_first(tmp_path: Path) -> None:
    root = tmp_path / "ffa"
    three = ("a", "b", "c")
    write(root, record("g1", seats=three, returns=(0.0, 1.0, -1.0), teams=(0, 1, 2)),
          record("g2", seats=three, returns=(0.5, -1.0, 0.5), teams=(0, 1, 2)),
          record("g3", seats=three, returns=(0.0, 0.0, 0.0), teams=(0, 1, 2)),
          record("g4", seats=three, returns=(1.0, -0.5, -0.5), teams=(0, 1, 2)))
    rows = ds.dataset(root / "games", format="parquet").to_table().sort_by("game_id").to_pylist()
    assert [r["winner"] for r in rows] == ["b", None, None, "a"]
    assert [r["draw"] for r in rows] == [False, True, True, False]
    assert [r["winner_seats"] for r in rows] == [[1], [0, 2], [], [0]]
    assert all(r["players"] == 3 and r["teams"] == [0, 1, 2] for r in rows)


@pytest.mark.parametrize(("field", "value", "says"), [
    ("key", "zz" + "0" * 30, '"key" must be 32 lowercase hex digits'),
    ("games_per_pair", "40", '"games_per_pair" must be a whole number of at least 1'),
    ("format", 99, '"format": 99 is not this tourney\'s results layout'),
    ("deal_scheme", "hmac-v9", '"deal_scheme" must be one of'),
    ("seed", "5", '"seed" must be a whole number or null'),
])
def test_a_bent_league_json_is_one_line_and_exit_2(tmp_path: Path, field: str, value: object,
                                                   says: str) -> None:
    """Issue 29: a non-hex key, "games_per_pair": "40" and the like ended in tracebacks, and
    "format": 99 was read silently."""
    import json

    from typer.testing import CliRunner

    from harness.cli.app import app

    runner = CliRunner()
    out = tmp_path / "lg"
    done = runner.invoke(app, ["league", "bl", "random", "r2=random", "--games", "2", "--seed",
                               "5", "--out", str(out), "--workers", "0", "-q"])
    assert done.exit_code == 0, done.output
    data = json.loads((out / "league.json").read_text())
    data[field] = value
    (out / "league.json").write_text(json.dumps(data))
    for args in (["ratings", str(out)], ["league", "--resume", "--out", str(out), "-q"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tourney: error: ") and says in lines[0]
        assert "Traceback" not in result.output


def test_a_league_json_that_is_a_folder_and_a_batch_that_is_a_folder_are_named(
        tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness.cli.app import app

    runner = CliRunner()
    odd = tmp_path / "odd"
    (odd / "league.json").mkdir(parents=True)
    result = runner.invoke(app, ["ratings", str(odd)])
    assert result.exit_code == 2
    assert f"{odd / 'league.json'} cannot be read (Is a directory)" in result.output
    root = tmp_path / "lg"
    write(root, record("g1"), batch_size=1)
    (root / "games" / "batch-000099-x.parquet").mkdir()
    loaded = store.load_games([root])
    assert loaded.games.num_rows == 1
    assert loaded.skipped == [f"{root / 'games' / 'batch-000099-x.parquet'}: not a file, "
                              "skipped (a batch is one Parquet file; move it out of games/)"]


def test_a_bot_file_name_that_is_not_utf8_is_one_line(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: a bot file whose name is not UTF-8 ended in a UnicodeEncodeError traceback
    (results are stored as UTF-8). Now one line names it and the fix; no folder is made."""
    from typer.testing import CliRunner

    from harness.cli.app import app

    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(b"b\xff.py")
    (tmp_path / name).write_text("def act(o, legal):\n    return legal[0]\n")
    for spec, says in ((name, "bot name 'b\\udcff' is not valid UTF-8"),
                       (f"nice={name}", "bot path '")):
        result = CliRunner().invoke(app, ["league", "bl", spec, "random", "--games", "2",
                                          "--out", str(tmp_path / "lg"), "--workers", "0", "-q"])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and "not valid UTF-8" in lines[0], lines
    assert not (tmp_path / "lg").exists()
