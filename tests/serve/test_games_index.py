"""The stored games as the server reads them (issue 45, point 2): through the index of the
games (harness.league.index), never by reading every batch file; the small batch files merged
as the league runs, with every game read once; and an entrant who floods the game routes
answered 429 rather than stalling everyone."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from harness import api
from harness.league import store
from harness.league.folder import load_config
from harness.league.index import INDEX_FILE, GameIndex
from harness.serve.competition import Competition
from tests.serve.conftest import Site


@contextlib.contextmanager
def batch_reads(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Iterator[list[str]]:
    """Every Parquet file of ``folder`` opened meanwhile (by any code of ours), by name."""
    seen: list[str] = []
    read_table, parquet_file = pq.read_table, pq.ParquetFile

    def note(source: Any) -> None:
        text = str(source)
        if text.startswith(str(folder)) and text.endswith(".parquet"):
            seen.append(text.removeprefix(str(folder) + os.sep))

    def counted_read(source: Any, *args: Any, **kwargs: Any) -> Any:
        note(source)
        return read_table(source, *args, **kwargs)

    class Counted(parquet_file):  # type: ignore[misc, valid-type]
        def __init__(self, source: Any, *args: Any, **kwargs: Any) -> None:
            note(source)
            super().__init__(source, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(pq, "read_table", counted_read)
        patch.setattr(pq, "ParquetFile", Counted)
        yield seen


def _league(site: Site, batches: int = 3) -> tuple[str, str]:
    """Two entrants' bots and ``batches`` batch files of their games; their tokens."""
    alice, bob = site.add("alice"), site.add("bob")
    site.send(alice, "first.py")
    site.send(bob, "last.py")
    for _ in range(batches):
        site.play(2)
    assert len(store.batch_files(site.folder / "games")) >= batches
    return alice, bob


def test_a_made_up_game_id_reads_no_batch_file(site: Site,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    alice, _bob = _league(site)
    who = site.bearer(alice)
    mine = site.client.get("/api/me/games", headers=who).json()["games"][0]["game_id"]
    with batch_reads(monkeypatch, site.folder) as seen:
        for path in ("/api/games/g0000000", "/games/g0000000", "/api/games/g0000000/log",
                     "/games/g0000000/log"):
            r = site.client.get(path, headers=who)
            assert r.status_code == 404, (path, r.text)
    assert seen == [], "a made-up id read the store"
    with batch_reads(monkeypatch, site.folder) as seen:
        assert site.client.get("/me", headers=who).status_code == 200
        games = site.client.get("/api/me/games", headers=who).json()["games"]
        assert mine in [g["game_id"] for g in games]
        assert site.client.get(f"/api/games/{mine}/log", headers=who).status_code == 200
    assert seen == [], "an entrant's list of games, or a log, read the store"
    with batch_reads(monkeypatch, site.folder) as seen:
        game = site.client.get(f"/api/games/{mine}", headers=who).json()
    assert game["game_id"] == mine and game["moves"]
    assert sorted(p.split(os.sep)[0] for p in seen) == ["games", "moves"], seen  # its own batch


def test_the_newest_games_come_first(site: Site) -> None:
    """My games: newest first by when they ended (not by game id), each with its date and
    the entrant's own result, as the store holds them."""
    alice, _bob = _league(site)
    games = site.client.get("/api/me/games?limit=5000", headers=site.bearer(alice)).json()
    index = GameIndex.open(site.folder)
    ended = [g["finished"] for g in games["games"]]
    assert all(isinstance(t, float) for t in ended) and ended == sorted(ended, reverse=True)
    rows = {r["game_id"]: r for r in store.load_games([site.folder]).games.to_pylist()}
    for g in games["games"]:
        row = rows[g["game_id"]]
        assert abs(row["finished_at"].timestamp() - g["finished"]) < 0.01
        seat = next(i for i, b in enumerate(row["bots"]) if b.startswith("alice.v"))
        mine = row["result"][seat]
        assert g["result"] == ("win" if mine > 0 else "loss" if mine < 0 else "draw"), g
    page = site.client.get("/me", headers=site.bearer(alice)).text
    first = games["games"][0]
    assert page.index(first["game_id"]) < page.index(games["games"][-1]["game_id"])
    assert f'result-{first["result"]}' in page
    stored = store.load_games([site.folder]).games.num_rows
    assert len(ended) == stored  # every game has alice at the table
    index.close()


def test_an_existing_folder_is_indexed_and_a_damaged_index_made_again(site: Site) -> None:
    alice, _bob = _league(site, batches=2)
    want = site.client.get("/api/me/games", headers=site.bearer(alice)).json()["games"]
    stored = store.load_games([site.folder]).games.num_rows
    site.competition.close()
    for damage in ("missing", "garbage"):
        path = site.folder / INDEX_FILE
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")
        if damage == "garbage":
            path.write_bytes(b"this is not a database" * 100)
        competition = Competition(site.folder)
        try:
            got = competition.games_of("alice")
            assert [g["game_id"] for g in got] == [g["game_id"] for g in want]
            assert competition.index.count() == stored
        finally:
            competition.close()


def test_small_batches_are_merged_and_every_game_read_once(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.arena import standings

    alice, _bob = _league(site, batches=5)
    folder = site.folder
    before = api.ratings(folder)
    totals = standings.read_totals(folder).pairs  # and its cache of every batch file
    ids = sorted(store.load_games([folder]).games.column("game_id").to_pylist())
    files = store.batch_files(folder / "games")
    config = load_config(folder)
    with store.ResultsStore.open(folder, config, must_exist=True, indexed=True) as st:
        merged = st.compact(force=True)
        assert len(merged) == len(files)
    after_files = store.batch_files(folder / "games")
    assert len(after_files) == 1 and len(store.batch_files(folder / "moves")) == 1
    assert sorted(store.load_games([folder]).games.column("game_id").to_pylist()) == ids
    assert api.ratings(folder).rows == before.rows  # tourney ratings reads the same games
    with batch_reads(monkeypatch, folder) as seen:  # the leaderboard's cache holds
        assert standings.read_totals(folder).pairs == totals
    assert seen == []
    (folder / standings.CACHE_FILE).unlink()  # and the merged file totals as the batches did
    assert standings.read_totals(folder).pairs == totals
    for gid in ids:  # every game and its moves, through the index, from the merged file
        found = site.competition.index.read_game(gid)
        assert found is not None and found[0]["game_id"] == gid
        assert len(found[1]) == found[0]["decisions"]
    games = site.client.get("/api/me/games?limit=5000", headers=site.bearer(alice)).json()
    assert sorted(g["game_id"] for g in games["games"]) == ids
    # the league goes on writing beside the merged file
    site.play(2)
    assert store.load_games([folder]).games.num_rows == len(ids) + 2


def test_a_merge_stopped_half_way_loses_and_doubles_nothing(site: Site) -> None:
    _league(site, batches=4)
    folder = site.folder
    ids = sorted(store.load_games([folder]).games.column("game_id").to_pylist())
    files = store.batch_files(folder / "games")
    config = load_config(folder)
    # as kill -9 right after the merge committed: the old files are still there
    keep = folder / "kept"
    keep.mkdir()
    for path in files:
        for d in ("games", "moves"):
            os.link(folder / d / path.name, keep / f"{d}-{path.name}")
    with store.ResultsStore.open(folder, config, must_exist=True, indexed=True) as st:
        assert st.compact(force=True)
    for path in files:
        for d in ("games", "moves"):
            os.link(keep / f"{d}-{path.name}", folder / d / path.name)
    both = store.load_games([folder]).games.column("game_id").to_pylist()
    assert sorted(both) == ids  # a reader of the folder counts each game once
    assert api.ratings(folder)  # and rates them
    from harness.figures.report import find_game

    game = find_game(folder, ids[0])  # and replays them move by move, each move once
    assert len(game.moves) == game.row["decisions"]
    assert len(store.load_moves(folder, ids[0])) == game.row["decisions"]
    with store.ResultsStore.open(folder, config, must_exist=True, indexed=True) as st:
        assert len(st.finished) == len(ids)
    assert len(store.batch_files(folder / "games")) == 1  # the next open finished the merge
    assert not (folder / "quarantine").exists()
    assert sorted(store.load_games([folder]).games.column("game_id").to_pylist()) == ids


def test_a_flood_of_game_requests_is_answered_429(site: Site) -> None:
    alice, _bob = _league(site, batches=1)
    who = site.bearer(alice)
    answers = [site.client.get("/api/games/g0000000", headers=who) for _ in range(45)]
    limited = [r for r in answers if r.status_code == 429]
    assert limited and all(r.status_code in (404, 429) for r in answers)
    retry = int(limited[0].headers["Retry-After"])
    assert 1 <= retry <= 10
    error = limited[0].json()["error"]
    assert "\n" not in error and "wait" in error and "requests for games" in error
    page = site.client.get("/games/g0000000", headers=who)
    assert page.status_code == 429 and page.headers["Retry-After"]
    # another entrant is not held up by alice's flood, nor is the leaderboard
    bob_games = site.client.get("/api/me/games", headers=site.bearer(_bob))
    assert bob_games.status_code == 200
    assert site.client.get("/api/leaderboard").status_code == 200


def test_a_read_is_given_up_when_the_client_goes_away() -> None:
    from starlette.requests import Request

    from harness.serve.app import RateLimit
    from harness.serve.reads import ClientGone, Reads

    reads = Reads(RateLimit(40, 10.0), in_flight=1)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        release.wait(60)
        return "late"

    async def scenario() -> None:
        messages = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop()
            while not started.is_set():
                await asyncio.sleep(0.01)
            return {"type": "http.disconnect"}

        request = Request({"type": "http", "method": "GET", "path": "/", "headers": []},
                          receive)
        with pytest.raises(ClientGone):
            await reads.run(request, "alice", slow)
        # the slot is free at once, while the abandoned thread is still waiting
        assert not release.is_set()
        assert reads._busy == {}

    asyncio.run(scenario())
    release.set()


def test_a_large_leagues_leaderboard_is_totalled_in_a_helper(site: Site) -> None:
    _league(site, batches=2)
    here = site.client.get("/api/leaderboard").json()
    site.competition.board_process_files = 1  # as a league of many batch files is
    site.competition._board = None
    helped = site.client.get("/api/leaderboard").json()
    assert site.competition._board_pool is not None  # it was asked of the helper
    assert helped["entrants"] == here["entrants"]
    site.play(2)  # a new batch: the table follows
    site.competition._board = None
    later = site.client.get("/api/leaderboard").json()
    assert sum(e["games"] for e in later["entrants"]) == \
        sum(e["games"] for e in here["entrants"]) + 4  # two games, two sides each


def test_a_games_file_of_several_row_groups_is_totalled_as_one(site: Site) -> None:
    from harness.arena import standings

    _league(site, batches=2)
    folder = site.folder
    want = standings.read_totals(folder).pairs
    (folder / standings.CACHE_FILE).unlink()
    for path in store.batch_files(folder / "games"):  # as another writer may split them
        table = pq.read_table(path)
        pq.write_table(table, path, row_group_size=1, write_page_checksum=True)
    assert standings.read_totals(folder).pairs == want


@pytest.mark.parametrize("when", ["listed", "stamped"])
def test_the_leaderboard_is_read_while_the_league_merges_its_batch_files(
        site: Site, monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """A merge that removes batch files the leaderboard has just listed (or stamped) is read
    again, never answered 500 (the stored games' bench saw one under its flood)."""
    from harness.arena import standings

    _league(site, batches=4)
    folder = site.folder
    want = standings.read_totals(folder).pairs
    here = site.client.get("/api/leaderboard").json()["entrants"]
    config = load_config(folder)
    merged: list[str] = []
    armed: list[str] = []  # the leaderboard's next read is raced by a merge

    def merge() -> None:  # the league's store merges, as it does after a flush
        if armed == [when]:
            armed.clear()
            with store.ResultsStore.open(folder, config, must_exist=True, indexed=True) as st:
                merged.extend(st.compact(force=True))
            assert merged

    batch_files, read_file = store.batch_files, standings._read_file

    def listed(games: Path) -> list[Path]:
        files = batch_files(games)
        if when == "listed":
            merge()  # the files just listed are gone before they are looked at
        return files

    def stamped(path: Path) -> Any:
        if when == "stamped":
            merge()  # listed and stamped, then gone before they are read
        return read_file(path)

    monkeypatch.setattr(store, "batch_files", listed)
    monkeypatch.setattr(standings, "_read_file", stamped)
    (folder / standings.CACHE_FILE).unlink()  # every file read again
    armed.append(when)
    assert standings.read_totals(folder).pairs == want
    assert merged and not (folder / "games" / merged[0]).exists()
    # and through the server: the leaderboard answers, with the same table
    site.play(2)
    site.play(2)
    want = standings.read_totals(folder).pairs
    (folder / standings.CACHE_FILE).unlink()
    merged.clear()
    armed.append(when)
    site.competition._board = None
    board = site.client.get("/api/leaderboard")
    assert board.status_code == 200, board.text
    assert merged
    assert standings.read_totals(folder).pairs == want
    assert sum(e["games"] for e in board.json()["entrants"]) == \
        sum(e["games"] for e in here) + 8  # four games more, two sides each


def test_an_index_of_an_older_tourney_is_made_again_keeping_its_pruned_logs(
        site: Site) -> None:
    """An index of schema 1 (no dates, no results per seat) is made again from the store when
    it is opened; the notes of the logs removed are kept."""
    import sqlite3

    alice, _bob = _league(site, batches=2)
    first = site.client.get("/api/me/games", headers=site.bearer(alice)).json()["games"][0]
    site.competition.close()
    index = GameIndex.open(site.folder)
    index.mark_pruned([(first["game_id"], 0)], "the log budget")
    index.close()
    with contextlib.closing(sqlite3.connect(site.folder / INDEX_FILE)) as conn:
        conn.execute("UPDATE games SET finished = NULL")  # as schema 1 had none
        conn.execute("PRAGMA user_version = 1")
        conn.commit()
    competition = Competition(site.folder)
    try:
        games = competition.games_of("alice")
        assert games[0]["game_id"] == first["game_id"]
        assert all(isinstance(g["finished"], float) and g["result"] for g in games)
        assert competition.index.pruned(first["game_id"], 0) == "the log budget"
        assert competition.index.count() == store.load_games([site.folder]).games.num_rows
    finally:
        competition.close()
