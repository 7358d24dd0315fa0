"""An index of a results folder's stored games (``.games-index.sqlite``, SQLite through the
standard library), so that one game, or one entrant's newest games, costs a lookup rather than
a read of every batch file.

What it holds:

* **files**: every batch file it has read, by name, with its size and modification time; a file
  merged into a bigger one (:meth:`GameIndex.compact`) stays listed as ``gone`` with the name of
  the file that holds its games now, so a reader that listed the folder a moment before never
  takes it for a new batch, and :mod:`harness.arena.standings` can carry its totals over;
* **games**: each stored game id once, in the order it was stored (``seq``), with where it is
  (its games file and row, the first row of its moves in the partner moves file and how many)
  and what a list of games shows (its bots, winner, termination, reason, score and when it
  finished);
* **seats**: each game under each entrant at its table (``NAME.vN`` is entrant NAME, version N),
  with that seat's result (1 win, 0 draw, -1 loss; none in a void game), so an entrant's newest
  games are one range of an index and a version's wins, draws and losses one sum;
* **pruned logs**: the bots' logs removed to keep within the log budget
  (:mod:`harness.serve.logs`), so a reader is told why a log is missing.

The Parquet store stays the record: the index is written after a batch is committed, is caught
up from the batch files whenever it is opened (a folder written before the index existed, or
by a process that did not keep it, works), and is made again from the store when it is missing
or cannot be read. Compaction (:meth:`GameIndex.compact`) merges many small batch files into one
while the writer holds the folder's lock: the merged files are committed under a new name, the
index moves every game to them in the same transaction that marks the old files gone, and only
then are the old files removed; a reader of the index never sees a game missing or twice, and a
reader of the folder (``tourney ratings``) keeps each game id once.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

INDEX_FILE = ".games-index.sqlite"
SCHEMA_VERSION = 2  # 2: when a game finished, and each seat's result
BUSY_MS = 60_000  # how long a connection waits for another's write
#: Compaction: a batch file with fewer games than SMALL_ROWS is small; once COMPACT_FILES small
#: files are stored, the oldest are merged into one of at most MERGED_ROWS games.
SMALL_ROWS = 1000
COMPACT_FILES = 16
MERGED_ROWS = 2000
GAMES_ROW_GROUP = MERGED_ROWS  # a merged games file is one row group, as a batch is
MOVES_ROW_GROUP = 20_000  # rows per row group of its moves file (a game's moves are read by
#                           the groups that hold them)
SUMMARY = ["game_id", "bots", "winner", "rated", "termination", "reason", "decisions", "score",
           "result", "finished_at"]
_VERSIONED = re.compile(r"^(?P<entrant>.+)\.v(?P<version>\d+)$")

_SCHEMA = """
CREATE TABLE files (
    name TEXT PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('live', 'gone')),
    size INTEGER NOT NULL,
    mtime INTEGER NOT NULL,
    games INTEGER NOT NULL,
    merged_into TEXT
);
CREATE TABLE games (
    seq INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL UNIQUE,
    file TEXT NOT NULL,
    row INTEGER NOT NULL,
    moves_row INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    bots TEXT NOT NULL,
    winner TEXT,
    rated INTEGER NOT NULL,
    termination TEXT NOT NULL,
    reason TEXT NOT NULL,
    score TEXT NOT NULL,
    finished REAL
);
CREATE TABLE seats (
    entrant TEXT NOT NULL,
    seq INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    version INTEGER NOT NULL,
    result REAL,
    PRIMARY KEY (entrant, seq, seat)
) WITHOUT ROWID;
CREATE INDEX seats_by_seq ON seats (seq);
CREATE TABLE pruned_logs (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    why TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
"""


def entrant_of(bot: str) -> tuple[str, int]:
    """(entrant, version) of a rated bot name: ``alice.v3`` is alice's version 3; any other
    name (a league's bot) is its own entrant, version 0."""
    found = _VERSIONED.match(bot)
    if found is None:
        return bot, 0
    return found.group("entrant"), int(found.group("version"))


@dataclass(frozen=True)
class Tally:
    """A bot's rated wins, draws and losses, and when its last game finished (unix seconds;
    None when no time is stored)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    last: float | None = None

    def __add__(self, other: Tally) -> Tally:
        lasts = [t for t in (self.last, other.last) if t is not None]
        return Tally(self.wins + other.wins, self.draws + other.draws,
                     self.losses + other.losses, max(lasts) if lasts else None)


@dataclass(frozen=True)
class Place:
    """Where one stored game is: its batch file's name, its row there, and its moves' rows."""

    game_id: str
    file: str
    row: int
    moves_row: int
    decisions: int


def _seconds(when: Any) -> float:
    """A stored ``finished_at`` (a datetime, or a number of ms) as unix seconds."""
    if isinstance(when, int | float):
        return float(when) / 1000.0
    return float(when.timestamp())


def _stamp(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns


def _batch_names(folder: Path) -> list[str]:
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n for n in names if n.endswith(".parquet") and not n.startswith((".", "_")))


class GameIndex:
    """The index of one results folder. :meth:`open` it; one connection per thread."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / INDEX_FILE
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    # -- opening

    @classmethod
    def open(cls, folder: Path, *, catch_up: bool = True) -> GameIndex:
        """The folder's index, made or brought up to date with its batch files (made again
        from the store when the file is damaged)."""
        index = cls(folder)
        try:
            index._prepare()
            if catch_up:
                index.catch_up()
        except sqlite3.DatabaseError:
            index.rebuild()
        return index

    def rebuild(self) -> None:
        """Drop the index file and make it again from the batch files."""
        self.close()
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")
        self._prepare()
        self.catch_up()

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _prepare(self) -> None:
        conn = self._conn()
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            conn.execute("SELECT count(*) FROM files").fetchone()  # readable at all
            return
        if version not in (0, 1):
            raise sqlite3.DatabaseError(f"index schema {version}, expected {SCHEMA_VERSION}")
        with self._write() as c:
            found = c.execute("PRAGMA user_version").fetchone()[0]
            if found == 1:  # an older index: made again from the store, keeping pruned logs
                for table in ("seats", "games", "files"):
                    c.execute(f"DROP TABLE {table}")
            if found in (0, 1):
                for statement in _SCHEMA.split(";"):
                    if statement.strip() and not (found == 1 and "pruned_logs" in statement):
                        c.execute(statement)
                c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._all = []
        self._local = threading.local()

    def __enter__(self) -> GameIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (taken at once: no other writer can slip in between)."""
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    # -- keeping it up to date

    def catch_up(self) -> int:
        """Index the committed batch files the index has not seen, and forget the games of
        files removed since (moved to quarantine); returns the games added."""
        games_dir = self.folder / "games"
        on_disk = _batch_names(games_dir)
        conn = self._conn()
        known = {name: state for name, state in conn.execute("SELECT name, state FROM files")}
        added = 0
        for name in on_disk:
            if name not in known:
                added += self._index_file(name)
        present = set(on_disk)
        for name, state in known.items():
            if state == "live" and name not in present:
                self._forget(name)
        return added

    def _index_file(self, name: str, table: pa.Table | None = None) -> int:
        path = self.folder / "games" / name
        try:
            stamp = _stamp(path)
            if table is None:
                table = pq.read_table(path, columns=SUMMARY, page_checksum_verification=True)
        except (OSError, pa.ArrowException):
            return 0  # gone meanwhile (merged, quarantined) or damaged: the store's to judge
        rows = table.select(SUMMARY).to_pylist()
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM files WHERE name = ?", (name,)).fetchone():
                return 0  # another process indexed it first
            conn.execute("INSERT INTO files VALUES (?, 'live', ?, ?, ?, NULL)",
                         (name, stamp[0], stamp[1], len(rows)))
            return self._insert(conn, name, rows)

    @staticmethod
    def _insert(conn: sqlite3.Connection, name: str, rows: Sequence[dict[str, Any]]) -> int:
        games = []
        seats = []
        moves_row = 0
        for row, r in enumerate(rows):
            decisions = int(r["decisions"] or 0)
            finished = r.get("finished_at")
            games.append((r["game_id"], name, row, moves_row, decisions, json.dumps(r["bots"]),
                          r["winner"], int(bool(r["rated"])), r["termination"] or "",
                          r["reason"] or "", json.dumps(r["score"]),
                          None if finished is None else _seconds(finished)))
            moves_row += decisions
            results = r.get("result") or []
            for seat, bot in enumerate(r["bots"] or []):
                entrant, version = entrant_of(bot)
                result = results[seat] if r["rated"] and seat < len(results) else None
                seats.append((entrant, seat, version, result, r["game_id"], name))
        before = conn.total_changes
        # a game stored twice keeps its first copy (INSERT OR IGNORE), and only its seats
        conn.executemany(
            "INSERT OR IGNORE INTO games (game_id, file, row, moves_row, decisions, bots, "
            "winner, rated, termination, reason, score, finished) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", games)
        added = conn.total_changes - before
        conn.executemany("INSERT OR IGNORE INTO seats SELECT ?, seq, ?, ?, ? FROM games "
                         "WHERE game_id = ? AND file = ?", seats)
        return added

    def _forget(self, name: str) -> None:
        with self._write() as conn:
            state = conn.execute("SELECT state FROM files WHERE name = ?", (name,)).fetchone()
            if state is None or state[0] != "live":
                return  # merged meanwhile: its games live on in the merged file
            conn.execute("DELETE FROM seats WHERE seq IN (SELECT seq FROM games WHERE file = ?)",
                         (name,))
            conn.execute("DELETE FROM games WHERE file = ?", (name,))
            conn.execute("DELETE FROM files WHERE name = ?", (name,))

    def add_batch(self, name: str, table: pa.Table) -> None:
        """A batch the writer has just committed (its games table, already in memory)."""
        try:
            self._index_file(name, table)
        except sqlite3.DatabaseError:
            self.rebuild()

    # -- reading

    def locate(self, game_id: str) -> Place | None:
        found = self._conn().execute(
            "SELECT game_id, file, row, moves_row, decisions FROM games WHERE game_id = ?",
            (game_id,)).fetchone()
        return None if found is None else Place(*found)

    def has(self, game_id: str) -> bool:
        return self._conn().execute("SELECT 1 FROM games WHERE game_id = ?",
                                    (game_id,)).fetchone() is not None

    def count(self) -> int:
        return int(self._conn().execute("SELECT count(*) FROM games").fetchone()[0])

    def summary(self, game_id: str) -> dict[str, Any] | None:
        """What a list of games shows of one game (no batch file read)."""
        rows = self._summaries("WHERE g.game_id = ?", (game_id,))
        return rows[0] if rows else None

    def games_of(self, entrant: str | None, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` games of an entrant's versions (of every game: None), newest
        first (the last stored, in the order they finished), as a list of games shows them."""
        if entrant is None:
            return self._summaries("WHERE g.seq IN (SELECT seq FROM games ORDER BY seq DESC "
                                   "LIMIT ?) ORDER BY g.finished DESC, g.seq DESC", (limit,))
        seqs = [s for (s,) in self._conn().execute(
            "SELECT DISTINCT seq FROM seats WHERE entrant = ? ORDER BY seq DESC LIMIT ?",
            (entrant, limit))]
        if not seqs:
            return []
        marks = ",".join("?" * len(seqs))
        return self._summaries(f"WHERE g.seq IN ({marks}) ORDER BY g.finished DESC, g.seq DESC",
                               seqs)

    def newest_ending(self, terminations: Sequence[str], limit: int) -> list[dict[str, Any]]:
        """The newest games that ended in one of ``terminations`` (forfeits, say)."""
        marks = ", ".join("?" * len(terminations))
        return self._summaries(f"WHERE g.termination IN ({marks}) ORDER BY g.seq DESC LIMIT ?",
                               [*terminations, limit])

    def _summaries(self, where: str, args: Sequence[Any]) -> list[dict[str, Any]]:
        out = []
        for (gid, bots, winner, rated, termination, reason, decisions, score, finished) in \
                self._conn().execute(
                    "SELECT g.game_id, g.bots, g.winner, g.rated, g.termination, g.reason, "
                    f"g.decisions, g.score, g.finished FROM games g {where}", args):
            out.append({"game_id": gid, "bots": json.loads(bots), "winner": winner,
                        "rated": bool(rated), "termination": termination, "reason": reason,
                        "decisions": decisions, "score": json.loads(score),
                        "finished": finished})
        return out

    def tallies(self, after: int = 0) -> tuple[int, dict[str, Tally]]:
        """Per bot (``NAME.vN``), over the games stored after sequence number ``after``: its
        rated games' wins, draws and losses and when its last game finished; and the last
        sequence number read (a caller keeps the totals and asks only for what is new)."""
        conn = self._conn()
        last_seq = int(conn.execute("SELECT coalesce(max(seq), 0) FROM games").fetchone()[0])
        out: dict[str, Tally] = {}
        for entrant, version, wins, draws, losses, last in conn.execute(
                "SELECT s.entrant, s.version, total(s.result > 0), total(s.result = 0), "
                "total(s.result < 0), max(g.finished) FROM games g JOIN seats s "
                "ON s.seq = g.seq WHERE g.seq > ? AND g.seq <= ? GROUP BY s.entrant, s.version",
                (after, last_seq)):
            bot = f"{entrant}.v{version}" if version else entrant
            out[bot] = Tally(int(wins), int(draws), int(losses), last)
        return last_seq, out

    def seats_of(self, game_ids: Iterable[str]) -> dict[str, list[str]]:
        """The bots at the table of each of these stored games (unknown ids left out)."""
        ids = list(game_ids)
        out: dict[str, list[str]] = {}
        conn = self._conn()
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            marks = ",".join("?" * len(part))
            for gid, bots in conn.execute(
                    f"SELECT game_id, bots FROM games WHERE game_id IN ({marks})", part):
                out[gid] = json.loads(bots)
        return out

    def seq_of(self, game_ids: Iterable[str]) -> dict[str, int]:
        ids = list(game_ids)
        out: dict[str, int] = {}
        conn = self._conn()
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            marks = ",".join("?" * len(part))
            out.update(conn.execute(
                f"SELECT game_id, seq FROM games WHERE game_id IN ({marks})", part).fetchall())
        return out

    def live_files(self) -> dict[str, tuple[int, int, int]]:
        """Every batch file the index reads from: name -> (size, mtime ns, games)."""
        return {name: (size, mtime, games) for name, size, mtime, games in self._conn().execute(
            "SELECT name, size, mtime, games FROM files WHERE state = 'live'")}

    def merged_into(self) -> dict[str, list[str]]:
        """Each merged file and the files whose games it took (for readers keeping totals)."""
        out: dict[str, list[str]] = {}
        for name, into in self._conn().execute(
                "SELECT name, merged_into FROM files WHERE state = 'gone'"):
            out.setdefault(into, []).append(name)
        return out

    # -- pruned logs

    def mark_pruned(self, logs: Iterable[tuple[str, int]], why: str) -> None:
        with self._write() as conn:
            conn.executemany("INSERT OR REPLACE INTO pruned_logs VALUES (?, ?, ?)",
                             [(g, s, why) for g, s in logs])

    def pruned(self, game_id: str, seat: int) -> str | None:
        found = self._conn().execute(
            "SELECT why FROM pruned_logs WHERE game_id = ? AND seat = ?",
            (game_id, seat)).fetchone()
        return None if found is None else str(found[0])

    # -- reading a game from its batch file

    def read_game(self, game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """A stored game's row and its moves in ply order (None if no such game): one row
        group of one games file and the rows of its moves, whatever the store holds."""
        for _attempt in range(3):
            place = self.locate(game_id)
            if place is None:
                return None
            try:
                return _read_place(self.folder, place)
            except FileNotFoundError:
                continue  # merged meanwhile: the index points at the new file now
        return None

    # -- compaction (the writer only: it holds the folder's lock)

    def finish_compaction(self) -> None:
        """Remove what a merge stopped by ``kill -9`` left: the old files of a committed merge,
        or the new file of one that never committed (its games are all in the old files)."""
        games_dir, moves_dir = self.folder / "games", self.folder / "moves"
        conn = self._conn()
        on_disk = set(_batch_names(games_dir))
        states = dict(conn.execute("SELECT name, state FROM files").fetchall())
        for name, state in states.items():
            if state == "gone":
                for d in (games_dir, moves_dir):
                    with contextlib.suppress(FileNotFoundError):
                        (d / name).unlink()
        for name in sorted(on_disk - set(states)):
            try:
                ids = pq.read_table(games_dir / name, columns=["game_id"]).column(
                    "game_id").to_pylist()
            except (OSError, pa.ArrowException):
                continue  # the store's to judge
            if len(ids) < 2:
                continue
            marks = ",".join("?" * len(ids))
            held = dict(conn.execute(f"SELECT game_id, file FROM games WHERE game_id IN "
                                     f"({marks})", ids).fetchall()) if len(ids) <= 30_000 \
                else {}
            if len(held) == len(ids) and name not in held.values():
                for d in (games_dir, moves_dir):
                    with contextlib.suppress(FileNotFoundError):
                        (d / name).unlink()

    def small_files(self) -> list[str]:
        return [name for (name,) in self._conn().execute(
            "SELECT name FROM files WHERE state = 'live' AND games < ? ORDER BY name",
            (SMALL_ROWS,))]

    def compact(self, new_name: str, *, force: bool = False) -> list[str]:
        """Merge the oldest small batch files into one (``new_name``) when there are
        :data:`COMPACT_FILES` of them (any two with ``force``); returns the files merged."""
        small = self.small_files()
        if len(small) < (2 if force else COMPACT_FILES):
            return []
        games_dir, moves_dir = self.folder / "games", self.folder / "moves"
        chosen: list[str] = []
        games_tables: list[pa.Table] = []
        moves_tables: list[pa.Table] = []
        total = 0
        for name in small:
            try:
                games = pq.read_table(games_dir / name, page_checksum_verification=True)
                moves = pq.read_table(moves_dir / name, page_checksum_verification=True)
            except (OSError, pa.ArrowException):
                break  # damaged or gone: left for the store's next open to judge
            if chosen and total + games.num_rows > MERGED_ROWS:
                break
            chosen.append(name)
            games_tables.append(games)
            moves_tables.append(moves)
            total += games.num_rows
        if len(chosen) < 2:
            return []
        from harness.league.schema import GAMES_SCHEMA, MOVES_SCHEMA, with_teams

        games = pa.concat_tables([t if t.schema == GAMES_SCHEMA else
                                  with_teams(t).select(GAMES_SCHEMA.names).cast(GAMES_SCHEMA)
                                  for t in games_tables])
        moves = pa.concat_tables([t.cast(MOVES_SCHEMA) if t.schema != MOVES_SCHEMA else t
                                  for t in moves_tables])
        tmp_games = games_dir / f".{new_name}.tmp"
        tmp_moves = moves_dir / f".{new_name}.tmp"
        try:
            _write_table(tmp_moves, moves, MOVES_ROW_GROUP)
            _write_table(tmp_games, games, GAMES_ROW_GROUP)
            with self._write() as conn:
                # while this transaction holds the index, no reader can take the new file for
                # a batch of its own: the files appear and the games move at one commit
                os.replace(tmp_moves, moves_dir / new_name)
                os.replace(tmp_games, games_dir / new_name)
                fsync_path(games_dir)
                size, mtime = _stamp(games_dir / new_name)
                conn.execute("INSERT OR REPLACE INTO files VALUES (?, 'live', ?, ?, ?, NULL)",
                             (new_name, size, mtime, games.num_rows))
                ids = games.column("game_id").to_pylist()
                decisions = [int(d or 0) for d in games.column("decisions").to_pylist()]
                moves_row = 0
                marks = ",".join("?" * len(chosen))
                for row, (gid, d) in enumerate(zip(ids, decisions, strict=True)):
                    conn.execute("UPDATE games SET file = ?, row = ?, moves_row = ? "
                                 f"WHERE game_id = ? AND file IN ({marks})",
                                 (new_name, row, moves_row, gid, *chosen))
                    moves_row += d
                conn.executemany("UPDATE files SET state = 'gone', merged_into = ? "
                                 "WHERE name = ?", [(new_name, n) for n in chosen])
        finally:
            for tmp in (tmp_games, tmp_moves):
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
        for name in chosen:  # the games file first: a moves file alone is an unfinished batch
            for where in (games_dir, moves_dir):
                with contextlib.suppress(FileNotFoundError):
                    (where / name).unlink()
        return chosen


def new_batch_name(seq: int) -> str:
    return f"batch-{seq:06d}-{secrets.token_hex(4)}.parquet"


def fsync_path(path: Path) -> None:
    """Flush a file's or a folder's (its entries') changes to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_table(path: Path, table: pa.Table, row_group: int) -> None:
    with open(path, "wb") as fh:
        pq.write_table(table, fh, compression="zstd", write_page_checksum=True,
                       row_group_size=row_group)
        fh.flush()
        os.fsync(fh.fileno())


def _rows(path: Path, first: int, count: int) -> pa.Table:
    """Rows ``first`` .. ``first + count`` of a Parquet file, reading only their row groups."""
    with pq.ParquetFile(path, page_checksum_verification=True) as handle:
        meta = handle.metadata
        groups: list[int] = []
        start = 0
        skip = 0
        for k in range(meta.num_row_groups):
            n = meta.row_group(k).num_rows
            if start + n > first and start < first + count:
                if not groups:
                    skip = first - start
                groups.append(k)
            start += n
        if not groups or count == 0:
            return handle.schema_arrow.empty_table()
        table = handle.read_row_groups(groups, use_threads=False)
    return table.slice(skip, count)


def _read_place(folder: Path, place: Place) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    games = _rows(folder / "games" / place.file, place.row, 1)
    from harness.league.schema import GAMES_SCHEMA, with_teams

    if games.schema != GAMES_SCHEMA:
        games = with_teams(games).select(GAMES_SCHEMA.names).cast(GAMES_SCHEMA)
    row: dict[str, Any] = games.to_pylist()[0]
    if row["game_id"] != place.game_id:
        raise FileNotFoundError(place.file)  # the file was replaced: look the game up again
    moves: list[dict[str, Any]] = []
    if place.decisions:
        table = _rows(folder / "moves" / place.file, place.moves_row, place.decisions)
        moves = [m for m in table.to_pylist() if m["game_id"] == place.game_id]
        moves.sort(key=lambda m: m["ply"])
    return row, moves
