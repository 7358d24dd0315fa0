"""The results of a league: Parquet datasets ``games/`` and ``moves/`` in its results folder
(:class:`harness.league.folder.ResultsFolder` owns the folder's layout and configuration).

Layout of the batch files::

    games/batch-000001-<token>.parquet   one row per game   (harness.league.schema)
    moves/batch-000001-<token>.parquet   one row per decision (harness.league.schema)
    quarantine/              damaged or orphaned batch files moved aside, never read
    .lock                    held (flock) while a league writes here

Finished games are buffered and written in *batches* (zstd-compressed, with a CRC per page, so
a flipped bit is caught when the folder is read). A batch writes its moves file first and
its games file last, each to a hidden temporary name that is fsynced and then renamed, so a
reader only ever sees complete files (``pyarrow.dataset`` skips names starting with ``.``), and
the games file is the batch's commit mark: a moves file without its games file is an unfinished
batch and is moved to ``quarantine/`` when the folder is next opened. A batch file that cannot
be read (truncated, corrupted) is moved to ``quarantine/`` together with its partner file, so
its games are simply played again on resume. Every page of both files is checked: a moves file
once, when the folder is first opened after it was written (``moves/.verified`` remembers the
files already checked, by name, size and modification time, so a resume stays quick on a league
of millions of games); a games file at every open.

Both datasets read directly with pyarrow, pandas or DuckDB::

    import pyarrow.dataset as ds
    games = ds.dataset("results/demo/games", format="parquet").to_table()
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import signal
import threading
import time
from collections.abc import Iterable, Iterator, MutableSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.league import BATCH_SIZE
from harness.league.config import LeagueConfig, StoreError, merge_configs
from harness.league.folder import ResultsFolder, write_json_atomic
from harness.league.folder import write_atomic as _write_atomic
from harness.league.index import fsync_path
from harness.league.schema import (
    GAMES_SCHEMA,
    MOVES_SCHEMA,
    Finished,
    games_table,
    moves_table,
    with_teams,
)
from harness.records import PackedRecord

if TYPE_CHECKING:
    from harness.league.index import GameIndex

# games per batch file at most (harness.league.BATCH_SIZE); a batch is also written every
# FLUSH_SECONDS
FLUSH_SECONDS = 10.0  # so a crash loses at most this much play, and a night makes few files

SPRT_FILE = "sprt.json"  # an SPRT's parameters, written before the first game (sequential.py)


# ----------------------------------------------------------------------------- atomic files


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold SIGINT back for the duration (main thread only), then deliver it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _write_parquet(table: pa.Table, fh: IO[bytes]) -> None:
    pq.write_table(table, fh, compression="zstd", write_page_checksum=True)


def _os_problem(exc: OSError, folder: Path) -> StoreError:
    if exc.errno == errno.ENOSPC:
        why = "the disk is full"
        fix = "free some space"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        why = "permission denied"
        fix = "choose a folder you can write to with --out"
    else:
        why = exc.strerror or str(exc)
        fix = "choose another folder with --out"
    return StoreError(f"cannot write results to {folder}: {why}; {fix}")


# ----------------------------------------------------------------------------- the store


@dataclass
class ScanReport:
    """What opening a folder found: stored game ids and the files it had to move aside."""

    finished: MutableSet[str] = field(default_factory=set)
    quarantined: list[str] = field(default_factory=list)  # one line per file: name and why


def batch_files(folder: Path) -> list[Path]:
    """The committed batch files of one dataset folder, in name order. :class:`StoreError` if
    the folder cannot be read (rather than finding no games in it)."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except PermissionError:
        raise _unreadable(folder) from None
    return sorted(folder / name for name in names
                  if name.endswith(".parquet") and not name.startswith((".", "_")))


def _unreadable(path: Path) -> StoreError:
    """A results file or folder this user may not read: a permission to fix, not damage."""
    what = "folder" if path.is_dir() else "file"
    mode = "u+rwx" if what == "folder" else "u+rw"
    return StoreError(f"cannot read the {what} {path}: permission denied; nothing was changed. "
                      f"Give your user access (chmod {mode} {path}) or run tourney as its owner")


def read_batch(path: Path, columns: list[str] | None = None) -> pa.Table:
    """Read one batch file completely, checking every page's CRC (raises on a damaged file)."""
    return pq.read_table(path, columns=columns, page_checksum_verification=True)


class IndexedIds(MutableSet[str]):
    """The stored game ids of an indexed store (:mod:`harness.league.index`): the index
    answers for the stored ones, a set holds only those not written yet, so the memory a
    writer holds does not grow with the games stored."""

    def __init__(self, index: GameIndex) -> None:
        self.index = index
        self.waiting: set[str] = set()

    def __contains__(self, game_id: object) -> bool:
        return game_id in self.waiting or (isinstance(game_id, str) and
                                           self.index.has(game_id))

    def __iter__(self) -> Iterator[str]:
        yield from self.waiting
        for (game_id,) in self.index._conn().execute("SELECT game_id FROM games"):
            yield game_id

    def __len__(self) -> int:
        return self.index.count() + len(self.waiting)

    def add(self, value: str) -> None:
        self.waiting.add(value)

    def among(self, game_ids: Iterable[str]) -> set[str]:
        """Which of ``game_ids`` are stored or waiting (asked of the index in chunks)."""
        ids = list(game_ids)
        found = {g for g in ids if g in self.waiting}
        conn = self.index._conn()
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            marks = ",".join("?" * len(part))
            found.update(g for (g,) in conn.execute(
                f"SELECT game_id FROM games WHERE game_id IN ({marks})", part))
        return found

    def discard(self, value: str) -> None:
        self.waiting.discard(value)

    @classmethod
    def _from_iterable(cls, it: Iterable[str]) -> set[str]:  # type: ignore[override]
        """``a & b`` and the like give a plain set (the index is not copied)."""
        return set(it)


class ResultsStore:
    """A results folder open for writing. Use :meth:`open`; close (or ``with``) when done."""

    def __init__(self, root: Path, config: LeagueConfig, batch_size: int = BATCH_SIZE,
                 flush_seconds: float = FLUSH_SECONDS, indexed: bool = False) -> None:
        self.root = root
        self.indexed = indexed
        self.index: GameIndex | None = None
        self.config = config
        self.batch_size = batch_size
        self.flush_seconds = flush_seconds
        self.folder = ResultsFolder(root)
        self.games_dir = self.folder.games
        self.moves_dir = self.folder.moves
        self.quarantine_dir = self.folder.quarantine
        self._pending: list[PackedRecord] = []
        self._last_flush = time.monotonic()
        self._lock: IO[str] | None = None
        self._seq = 0
        self.report = ScanReport()

    # -- opening

    @classmethod
    def open(cls, root: Path, config: LeagueConfig, *, must_exist: bool = False,
             batch_size: int = BATCH_SIZE, flush_seconds: float = FLUSH_SECONDS,
             indexed: bool = False) -> ResultsStore:
        """Open (or create) ``root`` for ``config``: checks it is the same league, merges the
        configuration, takes the folder lock, quarantines damaged files and lists finished ids.

        ``indexed`` (the living league): the store keeps the index of its games
        (:mod:`harness.league.index`) as it writes them and compacts small batch files; the
        files the index already vouches for are not read again, and the stored ids are asked of
        the index rather than kept in memory.
        """
        folder = ResultsFolder(root)
        if root.exists() and not root.is_dir():
            raise StoreError(f"{root} is a file, not a results folder; choose another --out")
        stored = folder.stored_config()
        if stored is None:
            name = folder.config_path.name
            if must_exist:
                raise StoreError(f"{root} holds no league to resume (no {name}); "
                                 f"drop --resume to start one")
            if root.is_dir() and any(p.name != SPRT_FILE for p in root.iterdir()):
                raise StoreError(f"{root} is not empty and holds no {name}; "
                                 f"choose an empty or new --out folder")
            merged = config
        else:
            merged = merge_configs(stored, config, root)
        store = cls(root, merged, batch_size=batch_size, flush_seconds=flush_seconds,
                    indexed=indexed)
        try:
            for d in (root, store.games_dir, store.moves_dir):
                d.mkdir(parents=True, exist_ok=True)
            store._take_lock()
            folder.write_config(merged)
        except OSError as exc:
            store.close()
            raise _os_problem(exc, root) from exc
        try:
            store.report = store._scan()
        except StoreError:
            store.close()
            raise
        return store

    def _take_lock(self) -> None:
        fh = open(self.folder.lock, "a+")  # noqa: SIM115  (held open until close())
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise StoreError(
                f"another tourney process is writing to {self.root}; wait for it to finish "
                f"or choose another --out"
            ) from None
        self._lock = fh

    def _quarantine(self, path: Path, why: str) -> None:
        self.quarantine_dir.mkdir(exist_ok=True)
        dest = self.quarantine_dir / f"{path.parent.name}-{path.name}"
        os.replace(path, dest)
        self.report.quarantined.append(f"{path.parent.name}/{path.name}: {why}")

    def _scan(self) -> ScanReport:
        self.report = ScanReport()
        for d in (self.games_dir, self.moves_dir):
            for leftover in d.glob(".*.tmp"):
                leftover.unlink()  # an interrupted write: never committed
        known: dict[str, tuple[int, int, int]] = {}
        if self.indexed:
            from harness.league.index import GameIndex

            self.index = GameIndex.open(self.root, catch_up=False)
            self.index.finish_compaction()  # a merge stopped half way (kill -9)
            known = self.index.live_files()
            self.report.finished = IndexedIds(self.index)
        games = {p.name: p for p in batch_files(self.games_dir)}
        moves = {p.name: p for p in batch_files(self.moves_dir)}
        for name, path in moves.items():
            if name not in games:
                self._quarantine(path, "moves of an unfinished batch (no games file)")
        verified = _Verified(self.moves_dir)
        for name, path in games.items():
            stamp = known.get(name)
            if stamp is not None and name in moves and _same_stamp(path, stamp):
                self._seq = max(self._seq, _batch_number(name))
                continue  # checked when it was indexed; a committed batch never changes
            partner = moves.get(name)
            ids, problem = _check_batch(path, partner, verified)
            if problem:
                self._quarantine(path, f"{problem}; its games will be replayed")
                if partner is not None:
                    self._quarantine(partner, f"{problem}; moved with its games file")
                continue
            if self.index is None:
                assert isinstance(self.report.finished, set)
                self.report.finished.update(ids)
            self._seq = max(self._seq, _batch_number(name))
        verified.save()
        if self.index is not None:
            self.index.catch_up()
        return self.report

    # -- writing

    @property
    def finished(self) -> MutableSet[str]:
        return self.report.finished

    def add(self, record: Finished) -> bool:
        """Buffer a finished game; returns False (and drops it) if its id is already stored."""
        game_id = record.game_id
        if game_id in self.report.finished:
            return False
        self.report.finished.add(game_id)
        self._pending.append(record if isinstance(record, PackedRecord)
                             else PackedRecord.of(record))
        if (len(self._pending) >= self.batch_size
                or time.monotonic() - self._last_flush >= self.flush_seconds):
            self.flush()
        return True

    @property
    def pending(self) -> int:
        return len(self._pending)

    def flush(self) -> int:
        """Write the buffered games as one batch; returns how many were written.

        Ctrl-C is held back until the batch is either fully written or fully undone, so an
        interrupted flush never writes a batch twice.
        """
        self._last_flush = time.monotonic()
        if not self._pending:
            return 0
        batch, self._pending = self._pending, []
        self._seq += 1
        name = f"batch-{self._seq:06d}-{secrets.token_hex(4)}.parquet"
        with _interrupts_deferred():
            try:
                games = games_table(batch)
                moves = moves_table(batch)
                _write_atomic(self.moves_dir / name, lambda fh: _write_parquet(moves, fh))
                _write_atomic(self.games_dir / name, lambda fh: _write_parquet(games, fh))
                fsync_path(self.games_dir)
                if self.index is not None:
                    self.index.add_batch(name, games)
                    finished = self.report.finished
                    if isinstance(finished, IndexedIds):
                        finished.waiting.difference_update(r.game_id for r in batch)
            except OSError as exc:
                if not (self.games_dir / name).exists():
                    with contextlib.suppress(OSError):
                        (self.moves_dir / name).unlink()
                    for r in batch:
                        self.report.finished.discard(r.game_id)
                    raise _os_problem(exc, self.root) from exc
            if self.index is not None:
                self.compact()
        return len(batch)

    def compact(self, *, force: bool = False) -> list[str]:
        """Merge small batch files into one (an indexed store only; see
        :meth:`harness.league.index.GameIndex.compact`); returns the files merged."""
        if self.index is None:
            return []
        from harness.league.index import new_batch_name

        merged = self.index.compact(new_batch_name(self._seq + 1), force=force)
        if merged:
            self._seq += 1
        return merged

    def close(self) -> None:
        """Release the folder lock (flush first if you want the buffer kept)."""
        if self.index is not None:
            self.index.close()
            self.index = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Verified:
    """The moves files whose every page was checked, by name, size and modification time
    (``moves/.verified``, one JSON object): a committed batch file never changes, so one full
    check is enough, and a changed file is checked again."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / ".verified"
        self.changed = False
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
            self.files: dict[str, list[int]] = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            self.files = {}

    @staticmethod
    def _stamp(path: Path) -> list[int]:
        info = path.stat()
        return [info.st_size, info.st_mtime_ns]

    def knows(self, path: Path) -> bool:
        try:
            return self.files.get(path.name) == self._stamp(path)
        except OSError:
            return False

    def add(self, path: Path) -> None:
        self.files[path.name] = self._stamp(path)
        self.changed = True

    def save(self) -> None:
        if not self.changed or not self.path.parent.is_dir():
            return
        with contextlib.suppress(OSError):  # only a cache: the next open checks again
            write_json_atomic(self.path, self.files)


def _check_batch(games: Path, moves: Path | None,
                 verified: _Verified | None = None) -> tuple[list[str], str]:
    """The game ids of a batch and "" if it is sound, else ([], the problem).

    The games file is read whole (every page's CRC checked); the moves file too the first
    time the folder is opened after it was written (``verified`` remembers it after that: then
    only its footer is read, and its row count checked against the games' decisions).
    """
    if moves is None:
        return [], f"games/{games.name} has no moves file"
    for path in (games, moves):
        if not os.access(path, os.R_OK):  # a permission to fix, not damage to quarantine
            raise _unreadable(path)
    try:
        table = read_batch(games)
        ids: list[str] = table.column("game_id").to_pylist()
        decisions = sum(table.column("decisions").to_pylist())
    except Exception as exc:  # any damage: arrow or OS
        return [], f"games/{games.name} is unreadable ({_one_line(exc)})"
    known = verified is not None and verified.knows(moves)
    try:
        rows = pq.read_metadata(moves).num_rows if known else read_batch(moves).num_rows
    except Exception as exc:
        return [], f"moves/{moves.name} is unreadable ({_one_line(exc)})"
    if rows != decisions:
        return [], f"moves/{moves.name} holds {rows} moves, its games {decisions}"
    if verified is not None and not known:
        verified.add(moves)
    return ids, ""


def _same_stamp(path: Path, stamp: tuple[int, int, int]) -> bool:
    try:
        info = path.stat()
    except OSError:
        return False
    return (info.st_size, info.st_mtime_ns) == stamp[:2]


def _one_line(exc: BaseException) -> str:
    """An exception as one short line (pyarrow's messages may span several)."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:100]}"


def _batch_number(name: str) -> int:
    try:
        return int(name.split("-")[1])
    except (IndexError, ValueError):
        return 0


# ----------------------------------------------------------------------------- reading


@dataclass
class Loaded:
    """Games read from one or more folders, with the files that could not be read."""

    games: pa.Table
    skipped: list[str] = field(default_factory=list)


def _read_folder_tables(folder: Path, skipped: list[str]) -> Iterator[pa.Table]:
    for path in batch_files(folder):
        if path.is_file() and not os.access(path, os.R_OK):
            raise _unreadable(path)
        if not path.is_file():
            skipped.append(f"{path}: not a file, skipped (a batch is one Parquet file; move it "
                           f"out of {folder.name}/)")
            continue
        try:
            yield read_batch(path)
        except Exception as exc:  # a damaged file is reported and skipped, never fatal
            skipped.append(f"{path}: unreadable ({type(exc).__name__}), skipped")


def _first_seen(ids: list[str], seen: set[str]) -> list[bool]:
    """A mask keeping the first row of every id (a duplicate would count a game twice)."""
    keep: list[bool] = []
    for gid in ids:
        keep.append(gid not in seen)
        seen.add(gid)
    return keep


def load_games(roots: Iterable[Path]) -> Loaded:
    """Every stored game of ``roots``, deduplicated by (league folder, game id), sorted by id.

    Folders of one league (the same key, or the same seed of a folder from before keys) hold
    the same games under the same ids (say, one ``--seed`` league played into two folders): a
    game is kept once, from the first folder that has it, and ``skipped`` says how many were
    dropped, so no game counts twice in a rating."""
    skipped: list[str] = []
    tables: list[pa.Table] = []
    leagues: dict[str, tuple[Path, set[str]]] = {}
    for root in roots:
        config = ResultsFolder(root).read_config()  # a clear error if it is not one
        identity = (f"{config.deal_scheme}:{config.key}" if config.key
                    else f"{config.deal_scheme}:seed {config.seed}")
        first, seen = leagues.setdefault(identity, (root, set()))
        before = len(seen)
        dropped = 0
        for table in _read_folder_tables(ResultsFolder(root).games, skipped):
            if table.schema != GAMES_SCHEMA:
                table = with_teams(table).select(GAMES_SCHEMA.names).cast(GAMES_SCHEMA)
            keep = _first_seen(table.column("game_id").to_pylist(), seen)
            tables.append(table if all(keep) else table.filter(pa.array(keep)))
            if first != root:
                dropped += keep.count(False)
        if first != root and dropped:
            skipped.append(f"{root} is the same league as {first} (the same key and game ids): "
                           f"its {dropped} games already there are counted once"
                           + (f", its {len(seen) - before} others added" if len(seen) > before
                              else ""))
    if not tables:
        return Loaded(GAMES_SCHEMA.empty_table(), skipped)
    table = pa.concat_tables(tables)
    table = table.sort_by([("game_id", "ascending"), ("league", "ascending")])
    return Loaded(table, skipped)


def load_moves(root: Path, game_id: str) -> list[dict[str, Any]]:
    """The moves of one game in ply order."""

    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for table in _read_folder_tables(ResultsFolder(root).moves, skipped):
        hit = table.filter(pc.equal(table.column("game_id"), game_id))
        rows.extend(hit.to_pylist())
    # one ply once: a merge of batch files leaves both for a moment (harness.league.index)
    return sorted({r["ply"]: r for r in rows}.values(), key=lambda r: r["ply"])


def load_all_moves(root: Path, columns: list[str]) -> tuple[pa.Table, list[str]]:
    """The ``columns`` of every stored move of ``root``, and the files that could not be read."""
    skipped: list[str] = []
    tables = [t.select(columns) for t in _read_folder_tables(ResultsFolder(root).moves, skipped)]
    if not tables:
        return MOVES_SCHEMA.empty_table().select(columns), skipped
    return pa.concat_tables(tables), skipped
