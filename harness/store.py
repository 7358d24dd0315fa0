"""The results folder of a league: ``league.json`` plus Parquet datasets ``games/`` and ``moves/``.

Layout of ``results/NAME/``::

    league.json              the league's configuration (see LeagueConfig)
    games/batch-000001-<token>.parquet   one row per game   (GAMES_SCHEMA)
    moves/batch-000001-<token>.parquet   one row per decision (MOVES_SCHEMA)
    quarantine/              damaged or orphaned batch files moved aside, never read
    .lock                    held (flock) while a league writes here

Finished games are buffered and written in *batches* (zstd-compressed, with a CRC per page, so
a flipped bit is caught when the folder is read). A batch writes its moves file first and
its games file last, each to a hidden temporary name that is fsynced and then renamed, so a
reader only ever sees complete files (``pyarrow.dataset`` skips names starting with ``.``), and
the games file is the batch's commit mark: a moves file without its games file is an unfinished
batch and is moved to ``quarantine/`` when the folder is next opened. A batch file that cannot
be read (truncated, corrupted) is moved to ``quarantine/`` together with its partner file, so
its games are simply played again on resume.

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
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.executors import PACKED_FIELDS, PackedRecord
from harness.records import BotRef, GameRecord, Limits, Termination

FORMAT = 1  # version of the results-folder layout
BATCH_SIZE = 2000  # games per batch file at most; a batch is also written every FLUSH_SECONDS
FLUSH_SECONDS = 10.0  # so a crash loses at most this much play, and a night makes few files

GAMES_SCHEMA = pa.schema(
    [
        ("league", pa.string()),
        ("game_id", pa.string()),
        ("pair_id", pa.string()),
        ("game", pa.string()),
        ("variant", pa.string()),  # canonical JSON, keys sorted
        ("rules_version", pa.string()),
        ("seed", pa.int64()),
        ("players", pa.int8()),
        ("bots", pa.list_(pa.string())),  # per seat
        ("winner", pa.string()),  # the winning bot ("a+b" for a mixed team); null: draw or void
        ("winner_seats", pa.list_(pa.int8())),
        ("draw", pa.bool_()),
        ("result", pa.list_(pa.float64())),  # per seat: 1 win, 0 draw, -1 loss
        ("score", pa.list_(pa.float64())),  # per seat game points (Battle Line series points)
        ("termination", pa.string()),
        ("reason", pa.string()),
        ("offender", pa.int8()),  # the seat that forfeited, null if none
        ("offender_bot", pa.string()),
        ("rated", pa.bool_()),  # false for a void game: the harness failed, no bot to blame
        ("decisions", pa.int32()),
        ("duration", pa.float64()),  # seconds
        ("think_time", pa.list_(pa.float64())),  # per seat, seconds
        ("finished_at", pa.timestamp("ms", tz="UTC")),
    ]
)

MOVES_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("ply", pa.int32()),
        ("seat", pa.int8()),
        ("action", pa.string()),
        ("think_time", pa.float64()),
    ]
)


class StoreError(Exception):
    """A results folder cannot be used as asked; the message names the problem and the fix."""


class LeagueMismatch(StoreError):
    """The folder holds a different league (game, variant, rules version, seed, bot code)."""


def tourney_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tourney")
    except PackageNotFoundError:
        return "0+unknown"


@dataclass
class LeagueConfig:
    """What a results folder holds: written to ``league.json``."""

    name: str
    game: str
    variant: dict[str, str]
    rules_version: str
    seed: int | None  # --seed, or None: the key is random
    games_per_pair: int
    bots: list[BotRef]
    limits: Limits = field(default_factory=Limits)
    kind: str = "round-robin"  # or "gauntlet", or "mixed" once both have written here
    challenger: str = ""  # the gauntlet's challenger
    players: int = 2
    schedule: dict[str, Any] = field(default_factory=dict)  # the last run: kind, bots, games
    tourney_version: str = field(default_factory=tourney_version)
    # the secret key every deal seed and game id derives from (hex), and the derivation;
    # leagues stored before keys existed have none and keep the legacy scheme
    key: str = ""
    deal_scheme: str = "sha256-v0"
    isolation: dict[str, Any] = field(default_factory=dict)  # what confined bots, last run

    @property
    def key_bytes(self) -> bytes | None:
        """The key for :mod:`harness.schedule` (None: the legacy, unkeyed scheme)."""
        return bytes.fromhex(self.key) if self.deal_scheme != "sha256-v0" else None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["format"] = FORMAT
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LeagueConfig:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["bots"] = [BotRef(**b) for b in data.get("bots", [])]
        known["limits"] = Limits(**data.get("limits", {}))
        known["variant"] = {str(k): str(v) for k, v in data.get("variant", {}).items()}
        return cls(**known)

    def bot(self, name: str) -> BotRef | None:
        return next((b for b in self.bots if b.name == name), None)


def variant_text(variant: dict[str, str]) -> str:
    """The canonical text of a variant, as stored in the ``variant`` column."""
    return json.dumps(variant, sort_keys=True, separators=(",", ":"))


def describe_variant(variant: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(variant.items())) or "(default rules)"


def merge_configs(stored: LeagueConfig, new: LeagueConfig, folder: Path) -> LeagueConfig:
    """The configuration after ``new`` joins ``stored``; refuses anything that would mix leagues.

    Adding bots and raising ``games_per_pair`` only add games. A different game, variant, rules
    version, seed, time limit or a changed bot file would mix incomparable results.
    """
    where = f"{folder} holds"
    fix = "use another --out folder"
    if stored.game != new.game:
        raise LeagueMismatch(f"{where} a {stored.game} league, not {new.game}; {fix}")
    if stored.variant != new.variant:
        raise LeagueMismatch(
            f"{where} games with variant {describe_variant(stored.variant)}, not "
            f"{describe_variant(new.variant)}; {fix}"
        )
    if stored.rules_version != new.rules_version:
        raise LeagueMismatch(
            f"{where} games played under {stored.game} rules {stored.rules_version}, but the "
            f"engine is now at rules {new.rules_version}; {fix} for the new rules"
        )
    if stored.seed != new.seed or (stored.key, stored.deal_scheme) != (new.key,
                                                                         new.deal_scheme):
        had = "a secret random key" if stored.seed is None else f"--seed {stored.seed}"
        asked = "a new random key" if new.seed is None else f"--seed {new.seed}"
        again = "leave out --seed" if stored.seed is None else f"pass --seed {stored.seed}"
        raise LeagueMismatch(
            f"{where} a league with {had}, not {asked}; {again} to continue it or {fix}"
        )
    if stored.limits != new.limits:
        was, now = stored.limits, new.limits
        raise LeagueMismatch(
            f"{where} games played with --move-time {was.move_time} --overage {was.overage}, "
            f"not --move-time {now.move_time} --overage {now.overage}; pass the same limits "
            f"to continue it or {fix}"
        )
    bots = list(stored.bots)
    for bot in new.bots:
        old = stored.bot(bot.name)
        if old is None:
            bots.append(bot)
        elif old.sha256 != bot.sha256:
            raise LeagueMismatch(
                f"bot {bot.name!r} changed since {folder} was started (its code hash differs); "
                f"give the new version another name (NAME=SPEC) or {fix}"
            )
        elif old.spec != bot.spec:
            bots[bots.index(old)] = bot
    kind = stored.kind if stored.kind == new.kind else "mixed"
    return LeagueConfig(
        name=stored.name,
        game=stored.game,
        variant=stored.variant,
        rules_version=stored.rules_version,
        seed=stored.seed,
        games_per_pair=max(stored.games_per_pair, new.games_per_pair),
        bots=bots,
        limits=stored.limits,
        kind=kind,
        challenger=new.challenger or stored.challenger,
        players=stored.players,
        schedule=new.schedule,
        tourney_version=new.tourney_version,
        key=stored.key,
        deal_scheme=stored.deal_scheme,
        isolation=new.isolation or stored.isolation,
    )


# ----------------------------------------------------------------------------- records -> rows


def is_void(record: GameRecord | PackedRecord) -> bool:
    """A forfeit with no seat to blame: the harness failed (worker died, game hung)."""
    if isinstance(record, PackedRecord):
        return record.void
    return record.offender is None and record.termination.is_forfeit


Finished = GameRecord | PackedRecord  # what the store takes: a record, or a worker's packing


def _packed(records: Sequence[Finished]) -> list[PackedRecord]:
    return [r if isinstance(r, PackedRecord) else PackedRecord.of(r) for r in records]


_FIELD = {name: i for i, name in enumerate(PACKED_FIELDS)}


def _column(rows: list[tuple[Any, ...]], name: str) -> list[Any]:
    return [row[_FIELD[name]] for row in rows]


def games_table(records: Sequence[Finished]) -> pa.Table:
    """The games rows of ``records`` (one per game), in GAMES_SCHEMA."""
    rows = [p.row for p in _packed(records)]
    seats, winners = _column(rows, "seats"), _column(rows, "winners")
    offender, termination = _column(rows, "offender"), _column(rows, "termination")
    forfeits = {t.value: t.is_forfeit for t in Termination}
    void = [o is None and forfeits[t] for o, t in zip(offender, termination,
                                                                    strict=True)]
    texts: dict[tuple[tuple[str, str], ...], str] = {}
    variants = []
    for variant in _column(rows, "variant"):
        key = tuple(variant.items())
        if key not in texts:
            texts[key] = variant_text(variant)
        variants.append(texts[key])
    cols: dict[str, list[Any]] = {
        "league": _column(rows, "league"),
        "game_id": _column(rows, "game_id"),
        "pair_id": _column(rows, "pair_id"),
        "game": _column(rows, "game"),
        "variant": variants,
        "rules_version": _column(rows, "rules_version"),
        "seed": _column(rows, "seed"),
        "players": [len(s) for s in seats],
        "bots": seats,
        "winner": [_winner_of(s, w) for s, w in zip(seats, winners, strict=True)],
        "winner_seats": winners,
        "draw": [not w and not v for w, v in zip(winners, void, strict=True)],
        "result": _column(rows, "returns"),
        "score": _column(rows, "scores"),
        "termination": termination,
        "reason": _column(rows, "reason"),
        "offender": offender,
        "offender_bot": [s[o] if o is not None else None for s, o in zip(seats, offender,
                                                                         strict=True)],
        "rated": [not v for v in void],
        "decisions": _column(rows, "decisions"),
        "duration": _column(rows, "duration"),
        "think_time": _column(rows, "think_time"),
        "finished_at": [int(t * 1000) for t in _column(rows, "finished_at")],
    }
    return pa.Table.from_pydict(cols, schema=GAMES_SCHEMA)


def _winner_of(seats: list[str], winners: list[int]) -> str | None:
    names: list[str] = []
    for seat in winners:
        if seats[seat] not in names:
            names.append(seats[seat])
    return "+".join(names) if names else None


def moves_table(records: Sequence[Finished]) -> pa.Table:
    """The moves rows of ``records`` (one per decision), in MOVES_SCHEMA.

    Built from the records' packed move buffers (:data:`harness.executors.MoveBuffers`) joined
    end to end, so no move passes through a Python object.
    """
    games: list[str] = []
    which: list[int] = []  # per move: the index of its game in ``games``
    plies: list[bytes] = []
    seats: list[bytes] = []
    lengths: list[bytes] = []
    texts: list[bytes] = []
    times: list[bytes] = []
    for i, p in enumerate(_packed(records)):
        ply, seat, length, text, think = p.moves
        games.append(p.row[0])
        which += [i] * len(seat)
        plies.append(ply)
        seats.append(seat)
        lengths.append(length)
        texts.append(text)
        times.append(think)
    n = len(which)
    ids = pa.array(games, pa.string()).take(pa.array(which, pa.int32()))
    ends = pc.cumulative_sum(_fixed(pa.int32(), n, lengths))
    offsets = b"\0\0\0\0" + (ends.buffers()[1].to_pybytes()[:4 * n] if n else b"")
    actions = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(b"".join(texts)))
    actions.validate(full=True)
    return pa.Table.from_arrays(
        [ids, _fixed(pa.int32(), n, plies), _fixed(pa.int8(), n, seats), actions,
         _fixed(pa.float64(), n, times)],
        schema=MOVES_SCHEMA,
    )


def _fixed(kind: pa.DataType, n: int, parts: list[bytes]) -> pa.Array:
    """An Arrow array of ``n`` fixed-width values from little-endian buffers joined."""
    data = b"".join(parts)
    if len(data) != n * kind.bit_width // 8:
        raise StoreError(f"packed moves hold {len(data)} bytes of {kind}, expected {n} values")
    return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(data)])


def record_from_row(row: dict[str, Any]) -> GameRecord:
    """Rebuild a GameRecord (without moves) from a games row; the inverse of games_table."""
    finished = row["finished_at"]
    return GameRecord(
        game_id=row["game_id"],
        game=row["game"],
        variant=json.loads(row["variant"]),
        rules_version=row["rules_version"],
        seed=row["seed"],
        seats=list(row["bots"]),
        returns=list(row["result"]),
        scores=list(row["score"]),
        winners=list(row["winner_seats"]),
        termination=Termination(row["termination"]),
        reason=row["reason"],
        decisions=row["decisions"],
        duration=row["duration"],
        think_time=list(row["think_time"]),
        pair_id=row["pair_id"],
        league=row["league"],
        offender=row["offender"],
        finished_at=finished.timestamp() if finished is not None else 0.0,
    )


# ----------------------------------------------------------------------------- atomic files


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(final: Path, write: Any) -> None:
    """Write ``final`` via a hidden temporary file: write, fsync, rename. Nothing partial stays."""
    tmp = final.with_name(f".{final.name}.tmp")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


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


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Readable by its owner only: ``league.json`` holds the league's secret key."""
    text = (json.dumps(data, indent=2, sort_keys=False) + "\n").encode()

    def write(fh: Any) -> None:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(text)

    _write_atomic(path, write)


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

    finished: set[str] = field(default_factory=set)
    quarantined: list[str] = field(default_factory=list)  # one line per file: name and why


def batch_files(folder: Path) -> list[Path]:
    """The committed batch files of one dataset folder, in name order."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.parquet") if not p.name.startswith((".", "_")))


def read_batch(path: Path, columns: list[str] | None = None) -> pa.Table:
    """Read one batch file completely, checking every page's CRC (raises on a damaged file)."""
    return pq.read_table(path, columns=columns, page_checksum_verification=True)


class ResultsStore:
    """A results folder open for writing. Use :meth:`open`; close (or ``with``) when done."""

    def __init__(self, root: Path, config: LeagueConfig, batch_size: int = BATCH_SIZE,
                 flush_seconds: float = FLUSH_SECONDS) -> None:
        self.root = root
        self.config = config
        self.batch_size = batch_size
        self.flush_seconds = flush_seconds
        self.games_dir = root / "games"
        self.moves_dir = root / "moves"
        self.quarantine_dir = root / "quarantine"
        self._pending: list[PackedRecord] = []
        self._last_flush = time.monotonic()
        self._lock: IO[str] | None = None
        self._seq = 0
        self.report = ScanReport()

    # -- opening

    @classmethod
    def open(cls, root: Path, config: LeagueConfig, *, must_exist: bool = False,
             batch_size: int = BATCH_SIZE, flush_seconds: float = FLUSH_SECONDS) -> ResultsStore:
        """Open (or create) ``root`` for ``config``: checks it is the same league, merges the
        configuration, takes the folder lock, quarantines damaged files and lists finished ids.
        """
        manifest = root / "league.json"
        if root.exists() and not root.is_dir():
            raise StoreError(f"{root} is a file, not a results folder; choose another --out")
        stored = load_config(root) if manifest.exists() else None
        if stored is None:
            if must_exist:
                raise StoreError(f"{root} holds no league to resume (no league.json); "
                                 f"drop --resume to start one")
            if root.is_dir() and any(root.iterdir()):
                raise StoreError(f"{root} is not empty and holds no league.json; "
                                 f"choose an empty or new --out folder")
            merged = config
        else:
            merged = merge_configs(stored, config, root)
        store = cls(root, merged, batch_size=batch_size, flush_seconds=flush_seconds)
        try:
            for d in (root, store.games_dir, store.moves_dir):
                d.mkdir(parents=True, exist_ok=True)
            store._take_lock()
            write_json_atomic(manifest, merged.to_json())
        except OSError as exc:
            store.close()
            raise _os_problem(exc, root) from exc
        store.report = store._scan()
        return store

    def _take_lock(self) -> None:
        fh = open(self.root / ".lock", "a+")  # noqa: SIM115  (held open until close())
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
        games = {p.name: p for p in batch_files(self.games_dir)}
        moves = {p.name: p for p in batch_files(self.moves_dir)}
        for name, path in moves.items():
            if name not in games:
                self._quarantine(path, "moves of an unfinished batch (no games file)")
        for name, path in games.items():
            partner = moves.get(name)
            ids, problem = _check_batch(path, partner)
            if problem:
                self._quarantine(path, f"{problem}; its games will be replayed")
                if partner is not None:
                    self._quarantine(partner, f"{problem}; moved with its games file")
                continue
            self.report.finished.update(ids)
            self._seq = max(self._seq, _batch_number(name))
        return self.report

    # -- writing

    @property
    def finished(self) -> set[str]:
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
                _fsync_dir(self.games_dir)
            except OSError as exc:
                if not (self.games_dir / name).exists():
                    with contextlib.suppress(OSError):
                        (self.moves_dir / name).unlink()
                    for r in batch:
                        self.report.finished.discard(r.game_id)
                    raise _os_problem(exc, self.root) from exc
        return len(batch)

    def close(self) -> None:
        """Release the folder lock (flush first if you want the buffer kept)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_batch(games: Path, moves: Path | None) -> tuple[list[str], str]:
    """The game ids of a batch and "" if it is sound, else ([], the problem).

    The games file is read whole (every page's CRC checked); of the moves file, which may be
    large, the footer is read and its row count checked against the games' decisions, so a
    resume stays quick on a league of millions of games.
    """
    if moves is None:
        return [], f"games/{games.name} has no moves file"
    try:
        table = read_batch(games)
        ids: list[str] = table.column("game_id").to_pylist()
        decisions = sum(table.column("decisions").to_pylist())
    except Exception as exc:  # any damage: arrow or OS
        return [], f"games/{games.name} is unreadable ({type(exc).__name__}: {str(exc)[:100]})"
    try:
        rows = pq.read_metadata(moves).num_rows
    except Exception as exc:
        return [], f"moves/{moves.name} is unreadable ({type(exc).__name__}: {str(exc)[:100]})"
    if rows != decisions:
        return [], f"moves/{moves.name} holds {rows} moves, its games {decisions}"
    return ids, ""


def _batch_number(name: str) -> int:
    try:
        return int(name.split("-")[1])
    except (IndexError, ValueError):
        return 0


# ----------------------------------------------------------------------------- reading


def load_config(root: Path) -> LeagueConfig:
    path = root / "league.json"
    if not path.exists():
        raise StoreError(f"{root} is not a results folder (no league.json); "
                         f"pass the folder given to `tourney league --out`")
    try:
        return LeagueConfig.from_json(json.loads(path.read_text()))
    except (ValueError, TypeError, KeyError) as exc:
        raise StoreError(f"{path} is damaged ({exc}); restore it or start a new folder") from exc


@dataclass
class Loaded:
    """Games read from one or more folders, with the files that could not be read."""

    games: pa.Table
    skipped: list[str] = field(default_factory=list)


def _read_folder_tables(folder: Path, skipped: list[str]) -> Iterator[pa.Table]:
    for path in batch_files(folder):
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
    """Every stored game of ``roots``, deduplicated by (league folder, game id), sorted by id."""
    skipped: list[str] = []
    tables: list[pa.Table] = []
    for root in roots:
        load_config(root)  # a clear error if it is not a results folder
        seen: set[str] = set()
        for table in _read_folder_tables(root / "games", skipped):
            if table.schema != GAMES_SCHEMA:
                table = table.cast(GAMES_SCHEMA)
            keep = _first_seen(table.column("game_id").to_pylist(), seen)
            tables.append(table if all(keep) else table.filter(pa.array(keep)))
    if not tables:
        return Loaded(GAMES_SCHEMA.empty_table(), skipped)
    table = pa.concat_tables(tables)
    table = table.sort_by([("game_id", "ascending"), ("league", "ascending")])
    return Loaded(table, skipped)


def load_moves(root: Path, game_id: str) -> list[dict[str, Any]]:
    """The moves of one game in ply order."""
    import pyarrow.compute as pc

    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    for table in _read_folder_tables(root / "moves", skipped):
        hit = table.filter(pc.equal(table.column("game_id"), game_id))
        rows.extend(hit.to_pylist())
    rows.sort(key=lambda r: r["ply"])
    return rows
