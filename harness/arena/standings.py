"""The living league's leaderboard, fast at any size: per-pairing totals read from the Parquet
store with Arrow's vectorised kernels (never one Python object per game), rated once by the one
Bradley–Terry fit (:func:`harness.stats.bradley_terry.fit`, the fit of ``tourney ratings``'
Elo, with its prior: ratings ``N(0, sd²)``, the spread estimated from the games), with each
rating's standard deviation relative to the field, and each version's status from the registry.

**Reading.** Each batch file is reduced on its own (in threads: Arrow decodes outside the GIL)
to a few arrays per game: a 64-bit hash of its id, the two bots' codes, the first bot's points
and a hash of its duplicate pair's id; these are then totalled per pairing with numpy.

**The cache** (``.standings-cache.npz`` in the folder, plain arrays, no pickles): the totals
of the batch files already read, each file known by name, size and modification time (a
committed batch never changes), so the next reader reads only the batches written since and
the leaderboard costs what the new games cost, not what the store holds. With the totals it
keeps what an exact merge needs: the hashes of every stored game id (a game stored twice would
count once) and of every duplicate pair seen twice, and the ids of the pairs seen once (whose
second game may come in a later batch). Whenever the cache cannot vouch for a merge (a batch
gone or changed, a game id or a pair's id that may have been seen already), or the store holds
anything unusual (nulls, ids of unequal length, a game id stored twice), every stored game is
totalled again the plain way, so the totals are always those of the rows.

``tourney arena status`` prints this table; ``tourney ratings`` on the same folder gives the
same Elo for every bot (the same games, the same fit) with its LOS and pair statistics beside
(slower: it reads every game).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.arena.registry import Registry, Version

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pyarrow as pa

    from harness.arena.matchmaking import Matchmaker
    from harness.stats import bradley_terry as bt
    from harness.stats.bradley_terry import Prior

    IntArray = npt.NDArray[np.int64]
    FloatArray = npt.NDArray[np.float64]
    HashArray = npt.NDArray[np.uint64]

Z95 = 1.959963984540054
VIEWS = ("latest", "all")
CACHE_FILE = ".standings-cache.npz"
READ_ATTEMPTS = 5  # listings of the batch files, while a writer merges them as they are read
RATINGS_FILE = ".standings-ratings.npz"  # the last fit's ratings, where the next one starts
_CACHE_VERSION = 1
_COLUMNS = ["game_id", "bots", "result", "rated", "pair_id"]
_PLAIN_COLUMNS = [*_COLUMNS, "teams", "termination", "offender"]


@dataclass
class _Arrays:
    """Totals as arrays: pairing ``k`` is ``names[lo[k]]`` v ``names[hi[k]]`` (the first name
    sorting first), with its games, the first bot's points and its deals."""

    names: list[str]
    lo: IntArray
    hi: IntArray
    games: FloatArray
    pts: FloatArray
    deals: IntArray


class Totals:
    """Rated results per pairing (names sorted): games, points of the first bot, deals.

    ``pairs`` maps ``(first, second)`` to ``[games, points of first, deals]``; read from a
    large store it is made when first asked for (the fit works on arrays)."""

    def __init__(self, pairs: dict[tuple[str, str], list[float]] | None = None,
                 games: dict[str, int] | None = None, void: int = 0,
                 arrays: _Arrays | None = None, folder: Path | None = None) -> None:
        self._pairs = pairs
        self.games: dict[str, int] = {} if games is None else games  # rated games per bot
        self.void = void
        self._arrays = arrays
        self._folder = folder  # where the last fit's ratings are kept (a warm start)

    @property
    def pairs(self) -> dict[tuple[str, str], list[float]]:
        if self._pairs is None:
            a = self._arrays
            assert a is not None
            names = a.names
            self._pairs = {(names[x], names[y]): [g, p, float(d)] for x, y, g, p, d in zip(
                a.lo.tolist(), a.hi.tolist(), a.games.tolist(), a.pts.tolist(),
                a.deals.tolist(), strict=True)}
        return self._pairs

    def __repr__(self) -> str:
        return f"Totals({len(self.pairs)} pairings, {len(self.games)} bots, void={self.void})"

    def add(self, a: str, b: str, games: float, points_a: float, deals: int) -> None:
        lo, hi, pts = (a, b, points_a) if a <= b else (b, a, games - points_a)
        acc = self.pairs.setdefault((lo, hi), [0.0, 0.0, 0.0])
        acc[0] += games
        acc[1] += pts
        acc[2] += deals
        self.games[a] = self.games.get(a, 0) + int(games)
        self.games[b] = self.games.get(b, 0) + int(games)
        self._arrays = None

    def arrays(self) -> _Arrays:
        """The pairs as arrays (kept from the reading when it made them)."""
        import numpy as np

        if self._arrays is None:
            pairs = self.pairs
            names = list(dict.fromkeys(n for pair in pairs for n in pair))
            index = {n: i for i, n in enumerate(names)}
            stats = np.array(list(pairs.values()), dtype=np.float64).reshape(-1, 3)
            self._arrays = _Arrays(
                names, np.array([index[a] for a, _ in pairs], dtype=np.int64),
                np.array([index[b] for _, b in pairs], dtype=np.int64),
                stats[:, 0].copy(), stats[:, 1].copy(), stats[:, 2].astype(np.int64))
        return self._arrays


def read_totals(folder: Path) -> Totals:
    """The rated results stored in ``folder``, totalled per pairing: exactly those of the
    stored rows (each game id once), read through the cache (see the module's docstring).

    A writer may merge batch files meanwhile (:meth:`harness.league.index.GameIndex.compact`):
    it renames the merged file in before it removes the files merged, so a batch file that
    was listed and is gone when it is read means the folder is listed and read again, and it
    then holds the merged file."""
    for _ in range(READ_ATTEMPTS - 1):
        with contextlib.suppress(FileNotFoundError):
            return _read_totals(folder)
    return _read_totals(folder)


def _read_totals(folder: Path) -> Totals:
    from harness.league import store

    files = store.batch_files(folder / "games")
    stamps = {p.name: _stamp(p) for p in files}
    cache = folder / CACHE_FILE
    base = _State.load(cache)
    if base is not None and not base.covers(stamps):
        base = _after_merges(base, stamps, folder)
    if base is not None and not base.covers(stamps):
        base = None
    new = [p for p in files if base is None or p.name not in base.files]
    try:
        part = _scan(new, stamps)
        state = part if base is None else base.merge(part)
        if state is None:  # the cache cannot vouch for the merge: every file read again
            new = files
            state = _scan(files, stamps)
    except _Unusual:
        state = None
    if state is None:
        totals = _totals_plain(folder, files)
    else:
        if new or base is None:
            state.save(cache)
        totals = state.totals()
    totals._folder = folder
    return totals


def _after_merges(base: _State, stamps: dict[str, tuple[int, int]], folder: Path) -> _State:
    """``base`` with the batch files the store merged (:mod:`harness.league.index`) replaced
    by the file that holds their games now, when every file merged into it was in ``base``:
    the same games, so the same totals, and the cache stays good across a compaction."""
    from harness.league.index import INDEX_FILE, GameIndex

    if not (folder / INDEX_FILE).is_file():
        return base
    try:
        with GameIndex(folder) as index:
            merges = index.merged_into()
    except Exception:  # an index that cannot be read vouches for nothing
        return base
    files = dict(base.files)
    changed = True
    while changed:  # a merged file may itself have been merged again
        changed = False
        for into, sources in merges.items():
            if into not in files and sources and all(s in files for s in sources):
                for name in sources:
                    del files[name]
                files[into] = stamps.get(into, (-1, -1))
                changed = True
    if files == base.files:
        return base
    return dataclasses.replace(base, files=files)


class _Unusual(Exception):
    """Something the fast path does not total: the plain path does."""


def _stamp(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_size, info.st_mtime_ns


# ----------------------------------------------------------------------------- hashing

_K1 = 0x9E3779B97F4A7C15
_K2 = 0xC2B2AE3D27D4EB4F


def _mix(x: HashArray) -> HashArray:
    """splitmix64's finaliser, element by element (uint64 arithmetic wraps)."""
    import numpy as np

    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    out: HashArray = x ^ (x >> np.uint64(31))
    return out


def _hash_strings(arr: pa.Array | pa.ChunkedArray) -> HashArray:
    """A 64-bit hash of each string of ``arr``, the same in every process (:class:`_Unusual`
    if one is null or their lengths in bytes differ: ids are all as long as each other)."""
    import numpy as np
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    if arr.null_count or arr.type != pa.string():
        raise _Unusual
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=n + 1, offset=arr.offset * 4)
    width = int(offsets[1] - offsets[0])
    if width == 0 or np.any(np.diff(offsets) != width):
        raise _Unusual
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offsets[0]:offsets[-1]]
    words = -(-width // 8)
    if width % 8:
        block = np.zeros((n, words * 8), dtype=np.uint8)
        block[:, :width] = data.reshape(n, width)
        data = block.ravel()
    packed = data.view("<u8").reshape(n, words)
    h = np.full(n, np.uint64(width), dtype=np.uint64)
    for k in range(words):
        h = _mix((h * np.uint64(_K1)) ^ packed[:, k])
    return h


def _hash_names(names: Sequence[str]) -> HashArray:
    import numpy as np

    return np.array([int.from_bytes(hashlib.blake2b(n.encode(), digest_size=8).digest(), "little")
                     for n in names], dtype=np.uint64)


def _class_hash(h_lo: HashArray, h_hi: HashArray, h_pair: HashArray) -> HashArray:
    """The hash of (pairing, pair id): what makes one deal of a pairing."""
    import numpy as np

    return _mix(_mix((h_lo * np.uint64(_K1)) ^ (h_hi * np.uint64(_K2))) ^ h_pair)


def _member(sorted_values: HashArray, values: HashArray) -> npt.NDArray[np.bool_]:
    """Which of ``values`` are in ``sorted_values``."""
    import numpy as np

    if not sorted_values.size:
        return np.zeros(values.size, dtype=bool)
    at = np.minimum(np.searchsorted(sorted_values, values), sorted_values.size - 1)
    found: npt.NDArray[np.bool_] = sorted_values[at] == values
    return found


# ----------------------------------------------------------------------------- reading


@dataclass
class _FilePart:
    """One batch file reduced: hashes of its game ids, its void games, the rows of games with
    another number of seats than two, and its rated two-seat games: both bots (dictionary
    arrays), the first bot's points, the pair's id and its hash."""

    path: Path
    ids: HashArray
    void: int
    rest: IntArray
    a: pa.Array
    b: pa.Array
    win: FloatArray
    pair: pa.Array
    pair_hash: HashArray


def _read_file(path: Path) -> _FilePart:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path, page_checksum_verification=True,
                                read_dictionary=["bots.list.element"])
    except KeyError:  # the bots' names stored under another nested name: read them plain
        handle = pq.ParquetFile(path, page_checksum_verification=True)
    with handle:
        try:
            table = handle.read(columns=_COLUMNS, use_threads=False)
        except pa.ArrowNotImplementedError:  # several row groups: the names read plain
            with pq.ParquetFile(path, page_checksum_verification=True) as plain:
                table = plain.read(columns=_COLUMNS, use_threads=False)
    ids = _hash_strings(table.column("game_id"))
    rated = table.column("rated").combine_chunks().fill_null(False).to_numpy(
        zero_copy_only=False)
    bots = table.column("bots").combine_chunks()
    result = table.column("result").combine_chunks()
    if bots.null_count or result.null_count or result.values.null_count:
        raise _Unusual
    seats = pc.list_value_length(bots).to_numpy()
    two = rated & (seats == 2)
    rows = np.flatnonzero(two)
    if np.any(pc.list_value_length(result).to_numpy()[rows] != 2):
        raise _Unusual
    starts = bots.offsets.to_numpy()[rows]
    values = bots.values
    if not pa.types.is_dictionary(values.type):
        values = values.dictionary_encode()
    if values.null_count:
        raise _Unusual
    scores = result.values.to_numpy()
    at = result.offsets.to_numpy()[rows]
    first, second = scores[at], scores[at + 1]
    pair = table.column("pair_id").combine_chunks().take(pa.array(rows))
    return _FilePart(
        path, ids, int(table.num_rows - rated.sum()), np.flatnonzero(rated & (seats != 2)),
        values.take(pa.array(starts)), values.take(pa.array(starts + 1)),
        np.where(first > second, 1.0, np.where(first == second, 0.5, 0.0)), pair,
        _hash_strings(pair))


def _rest_games(part: _FilePart) -> list[tuple[str, str, float]]:
    """The rated games of a file with another number of seats than two, as (bot, bot, points
    of the first): those with two sides of one bot each (team games of two bots)."""
    import pyarrow as pa

    from harness.league import store
    from harness.stats.outcome import Result

    out = []
    table = store.read_batch(part.path, _PLAIN_COLUMNS)
    for row in table.take(pa.array(part.rest)).to_pylist():
        two = Result.from_row(row).two_sided()
        if two is not None:
            out.append(two)
    return out


@dataclass
class _State:
    """What the stored games of some batch files total to, and what merging more needs."""

    files: dict[str, tuple[int, int]]  # name: (size, modification time in ns)
    names: list[str]
    lo: IntArray  # per pairing: codes into names, names[lo] < names[hi]
    hi: IntArray
    games: FloatArray
    pts: FloatArray
    deals: IntArray
    void: int
    ids: HashArray  # sorted: the hash of every stored game id
    closed: HashArray  # sorted: the hash of every (pairing, pair id) seen twice or more
    open_lo: IntArray  # (pairing, pair id) seen once: the codes and the id
    open_hi: IntArray
    open_pair: list[str]

    @classmethod
    def empty(cls, files: dict[str, tuple[int, int]]) -> _State:
        import numpy as np

        none = np.zeros(0, dtype=np.int64)
        return cls(files, [], none, none, np.zeros(0), np.zeros(0), none, 0,
                   np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64), none, none, [])

    def covers(self, stamps: dict[str, tuple[int, int]]) -> bool:
        """Every file this state totals is still there, unchanged."""
        return all(stamps.get(name) == stamp for name, stamp in self.files.items())

    def open_hash(self) -> HashArray:
        h = _hash_names(self.names)
        return _class_hash(h[self.open_lo], h[self.open_hi], _hash_strings_list(self.open_pair))

    def totals(self) -> Totals:
        import numpy as np

        arrays = _Arrays(self.names, self.lo, self.hi, self.games, self.pts, self.deals)
        names = self.names
        m = len(names)
        per_bot = (np.bincount(self.lo, self.games, m) + np.bincount(self.hi, self.games, m)
                   if m else np.zeros(0))
        played = np.zeros(m, dtype=bool)
        played[self.lo] = True
        played[self.hi] = True
        games = {names[i]: int(per_bot[i]) for i in np.flatnonzero(played).tolist()}
        return Totals(None, games, self.void, arrays)

    # -- merging

    def merge(self, part: _State) -> _State | None:
        """The totals of this state's files and ``part``'s; None when this cannot be told
        exactly (a game id or a pair's id that may have been seen already)."""
        import numpy as np

        if not part.files:
            return self
        if _member(self.ids, part.ids).any():
            return None  # perhaps a game stored twice: counted once only by the plain path
        index = {n: i for i, n in enumerate(self.names)}
        names = list(self.names)
        for n in part.names:
            if n not in index:
                index[n] = len(names)
                names.append(n)
        code = np.array([index[n] for n in part.names], dtype=np.int64)
        # a deal of part's seen once here and once there is one deal: part counted it
        seen_once = self.open_hash()
        theirs = part.open_hash()
        if _member(part.closed, seen_once).any() or _member(self.closed, theirs).any() or \
                _member(self.closed, part.closed).any():
            return None  # a pair's id seen a third time, or a clash of hashes
        order = np.argsort(seen_once)
        hits = np.flatnonzero(_member(seen_once[order], theirs))
        mine = {(self.names[a], self.names[b], p): k for k, (a, b, p) in enumerate(zip(
            self.open_lo.tolist(), self.open_hi.tolist(), self.open_pair, strict=True))}
        joined_mine: set[int] = set()
        joined_theirs: set[int] = set()
        for k in hits.tolist():
            key = (part.names[part.open_lo[k]], part.names[part.open_hi[k]], part.open_pair[k])
            if key not in mine:
                return None  # hashes alike, ids not
            joined_mine.add(mine[key])
            joined_theirs.add(k)
        joined = sorted(joined_theirs)
        lo = np.concatenate([self.lo, code[part.lo], code[part.open_lo[joined]]])
        hi = np.concatenate([self.hi, code[part.hi], code[part.open_hi[joined]]])
        games = np.concatenate([self.games, part.games, np.zeros(len(joined))])
        pts = np.concatenate([self.pts, part.pts, np.zeros(len(joined))])
        deals = np.concatenate([self.deals, part.deals,
                                np.full(len(joined), -1, dtype=np.int64)])
        lo, hi, games, pts, deals = _by_pairing(len(names), lo, hi, games, pts, deals)
        keep_mine = [k for k in range(len(self.open_pair)) if k not in joined_mine]
        keep_theirs = [k for k in range(len(part.open_pair)) if k not in joined_theirs]
        closed = _insert_sorted(self.closed, np.concatenate([part.closed, theirs[joined]]))
        ids = _insert_sorted(self.ids, part.ids)
        return _State(
            {**self.files, **part.files}, names, lo, hi, games, pts, deals,
            self.void + part.void, ids, closed,
            np.concatenate([self.open_lo[keep_mine], code[part.open_lo[keep_theirs]]]),
            np.concatenate([self.open_hi[keep_mine], code[part.open_hi[keep_theirs]]]),
            [self.open_pair[k] for k in keep_mine] + [part.open_pair[k] for k in keep_theirs])

    # -- the cache file

    def save(self, path: Path) -> None:
        """Write the cache (atomically; silently not at all where the folder is read-only)."""
        import numpy as np

        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        arrays: dict[str, Any] = {
            "version": np.array(_CACHE_VERSION),
            "file_names": np.array(list(self.files), dtype=str),
            "file_stamps": np.array(list(self.files.values()), dtype=np.int64).reshape(-1, 2),
            "names": np.array(self.names, dtype=str), "lo": self.lo, "hi": self.hi,
            "games": self.games, "pts": self.pts, "deals": self.deals,
            "void": np.array(self.void), "ids": self.ids, "closed": self.closed,
            "open_lo": self.open_lo, "open_hi": self.open_hi,
            "open_pair": np.array(self.open_pair, dtype=str),
        }
        try:
            with open(tmp, "wb") as fh:
                np.savez(fh, **arrays)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()

    @classmethod
    def load(cls, path: Path) -> _State | None:
        """The cache, or None if there is none or it is not one this code wrote."""
        import zipfile

        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as z:
                if int(z["version"]) != _CACHE_VERSION:
                    return None
                stamps = z["file_stamps"]
                state = cls(
                    dict(zip(z["file_names"].tolist(), map(tuple, stamps.tolist()),
                             strict=True)),
                    z["names"].tolist(), z["lo"].astype(np.int64), z["hi"].astype(np.int64),
                    z["games"].astype(np.float64), z["pts"].astype(np.float64),
                    z["deals"].astype(np.int64), int(z["void"]), z["ids"].astype(np.uint64),
                    z["closed"].astype(np.uint64), z["open_lo"].astype(np.int64),
                    z["open_hi"].astype(np.int64), z["open_pair"].tolist())
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
            return None
        m = len(state.names)
        sizes = {state.lo.size, state.hi.size, state.games.size, state.pts.size,
                 state.deals.size}
        if len(sizes) != 1 or len({state.open_lo.size, state.open_hi.size,
                                   len(state.open_pair)}) != 1:
            return None
        for codes in (state.lo, state.hi, state.open_lo, state.open_hi):
            if codes.size and (codes.min() < 0 or codes.max() >= m):
                return None
        return state


def _insert_sorted(values: HashArray, more: HashArray) -> HashArray:
    """``values`` (sorted) with ``more``, sorted."""
    import numpy as np

    more = np.sort(more)
    out: HashArray = np.insert(values, np.searchsorted(values, more), more)
    return out


def _hash_strings_list(values: list[str]) -> HashArray:
    import pyarrow as pa

    return _hash_strings(pa.array(values, pa.string()))


def _by_pairing(m: int, lo: IntArray, hi: IntArray, games: FloatArray, pts: FloatArray,
                deals: IntArray) -> tuple[IntArray, IntArray, FloatArray, FloatArray, IntArray]:
    """Rows of the same pairing summed (pairings in the order of their codes)."""
    import numpy as np

    width = max(m, 1)
    key = lo * width + hi
    if width * width <= max(1 << 20, 4 * key.size):  # a table of every pairing: no sort
        seen = np.bincount(key, minlength=width * width) > 0
        keys = np.flatnonzero(seen)
        table = np.cumsum(seen) - 1
        where = table[key]
    else:
        keys, where = np.unique(key, return_inverse=True)
    count = keys.size
    first: IntArray = (keys // width).astype(np.int64)
    second: IntArray = (keys % width).astype(np.int64)
    return (first, second, np.bincount(where, games, count).astype(np.float64),
            np.bincount(where, pts, count).astype(np.float64),
            np.bincount(where, deals, count).round().astype(np.int64))


def _scan(paths: list[Path], stamps: dict[str, tuple[int, int]]) -> _State:
    """The state of the batch files ``paths`` (:class:`_Unusual` when the plain path must
    total them)."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import pyarrow as pa

    state = _State.empty({p.name: stamps[p.name] for p in paths})
    if not paths:
        return state
    workers = max(1, min(len(paths), os.cpu_count() or 1, 8))
    with ThreadPoolExecutor(workers) as pool:
        parts = list(pool.map(_read_file, paths))
    ids = np.concatenate([p.ids for p in parts])
    ids.sort()
    if np.any(ids[1:] == ids[:-1]):
        raise _Unusual  # perhaps a game stored twice: the plain path counts it once
    # every bot's name once (a dictionary unified over the files), then the team games'
    kind = pa.dictionary(pa.int32(), pa.string())
    both = pa.chunked_array([p.a.cast(kind) for p in parts] + [p.b.cast(kind) for p in parts],
                            type=kind).unify_dictionaries()
    chunks = both.chunks
    names: list[str] = chunks[0].dictionary.to_pylist() if chunks else []
    if len(set(names)) != len(names):
        raise _Unusual
    codes = [c.indices.to_numpy(zero_copy_only=False).astype(np.int64) for c in chunks]
    a = np.concatenate(codes[:len(parts)])
    b = np.concatenate(codes[len(parts):])
    win = np.concatenate([p.win for p in parts])
    pair = pa.chunked_array([p.pair for p in parts], type=pa.string()).combine_chunks()
    pair_hash = np.concatenate([p.pair_hash for p in parts])
    rest = [g for p in parts if p.rest.size for g in _rest_games(p)]
    index = {n: i for i, n in enumerate(names)}
    for x, y, _ in rest:
        for n in (x, y):
            if n not in index:
                index[n] = len(names)
                names.append(n)
    m = len(names)
    rank = np.empty(m, dtype=np.int64)
    rank[sorted(range(m), key=names.__getitem__)] = np.arange(m)
    keep = a != b  # a bot against itself: no pairing
    a, b, win, pair_hash = a[keep], b[keep], win[keep], pair_hash[keep]
    pair = pair.filter(pa.array(keep))
    first = rank[a] < rank[b]
    lo, hi = np.where(first, a, b), np.where(first, b, a)
    pts = np.where(first, win, 1.0 - win)
    # a deal: one (pairing, pair id); equal hashes are checked to be equal ids
    h = _hash_names(names)
    cls_hash = _class_hash(h[lo], h[hi], pair_hash)
    order = np.argsort(cls_hash)
    ordered = cls_hash[order]
    start = np.ones(ordered.size, dtype=bool)
    start[1:] = ordered[1:] != ordered[:-1]
    if not start.all():
        lead = order[np.maximum.accumulate(np.where(start, np.arange(ordered.size), 0))]
        rows, leads = order[~start], lead[~start]
        if np.any(lo[rows] != lo[leads]) or np.any(hi[rows] != hi[leads]) or \
                not pair.take(pa.array(rows)).equals(pair.take(pa.array(leads))):
            raise _Unusual  # hashes alike, ids not
    firsts = np.flatnonzero(start)
    run = np.diff(np.append(firsts, ordered.size))
    once = order[firsts[run == 1]]
    state.closed = ordered[firsts[run > 1]]
    state.open_lo, state.open_hi = lo[once], hi[once]
    state.open_pair = pair.take(pa.array(once)).to_pylist()
    deal = np.zeros(lo.size, dtype=np.int64)
    deal[order[firsts]] = 1
    rest_lo = np.array([min(index[x], index[y], key=rank.__getitem__) for x, y, _ in rest],
                       dtype=np.int64)
    rest_hi = np.array([max(index[x], index[y], key=rank.__getitem__) for x, y, _ in rest],
                       dtype=np.int64)
    rest_pts = np.array([p if rank[index[x]] < rank[index[y]] else 1.0 - p
                         for x, y, p in rest], dtype=np.float64)
    state.names = names
    state.lo, state.hi, state.games, state.pts, state.deals = _by_pairing(
        m, np.concatenate([lo, rest_lo]), np.concatenate([hi, rest_hi]),
        np.ones(lo.size + len(rest)), np.concatenate([pts, rest_pts]),
        np.concatenate([deal, np.ones(len(rest), dtype=np.int64)]))
    state.void = sum(p.void for p in parts)
    state.ids = ids
    return state


def _totals_plain(folder: Path, files: Sequence[Path]) -> Totals:
    """Every stored game read and totalled as rows (each game id once): for what the fast path
    does not take."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from harness.league import store
    from harness.stats.outcome import Result

    tables = [store.read_batch(path, _PLAIN_COLUMNS) for path in files]
    totals = Totals({}, {})
    if not tables:
        return totals
    table = pa.concat_tables(tables, promote_options="default")
    if pc.count_distinct(table["game_id"]).as_py() != table.num_rows:  # keep each id once
        ids = table["game_id"].to_pylist()
        seen: set[str] = set()
        keep = [not (g in seen or seen.add(g)) for g in ids]  # type: ignore[func-returns-value]
        table = table.filter(pa.array(keep))
    totals.void = table.num_rows - int(pc.sum(table["rated"]).as_py() or 0)
    table = table.filter(table["rated"])
    seats = pc.list_value_length(table["bots"])
    two = table.filter(pc.equal(seats, 2))
    if two.num_rows:
        a = pc.list_element(two["bots"], 0)
        b = pc.list_element(two["bots"], 1)
        ra = pc.list_element(two["result"], 0)
        rb = pc.list_element(two["result"], 1)
        win = pc.if_else(pc.greater(ra, rb), 1.0, pc.if_else(pc.equal(ra, rb), 0.5, 0.0))
        first = pc.less_equal(a, b)
        grouped = pa.table({
            "lo": pc.if_else(first, a, b), "hi": pc.if_else(first, b, a),
            "pts": pc.if_else(first, win, pc.subtract(1.0, win)), "pair": two["pair_id"],
        }).group_by(["lo", "hi"]).aggregate([("pts", "sum"), ("pts", "count"),
                                             ("pair", "count_distinct")])
        for lo, hi, pts, games, deals in zip(*(grouped[c].to_pylist() for c in (
                "lo", "hi", "pts_sum", "pts_count", "pair_count_distinct")), strict=True):
            if lo != hi:
                totals.add(lo, hi, float(games), float(pts), int(deals))
    rest = table.filter(pc.not_equal(seats, 2))
    for row in rest.to_pylist():  # team games: sides of one bot each, in Python (few)
        two = Result.from_row(row).two_sided()
        if two is not None:
            totals.add(two[0], two[1], 1.0, two[2], 1)
    return totals


def _oriented(totals: Totals, names: Sequence[str]) -> tuple[IntArray, IntArray, FloatArray,
                                                             FloatArray, IntArray, IntArray]:
    """The pairings over ``names`` (which must hold every bot of a pairing): the lower and the
    higher index, games, points of the lower, and each pairing's two indices as stored."""
    import numpy as np

    arrays = totals.arrays()
    index = {name: k for k, name in enumerate(names)}
    to = np.array([index.get(name, -1) for name in arrays.names], dtype=np.int64)
    i, j = to[arrays.lo], to[arrays.hi]
    pts = np.where(i < j, arrays.pts, arrays.games - arrays.pts)
    return np.minimum(i, j), np.maximum(i, j), arrays.games, pts, i, j


def _names(totals: Totals, bots: Sequence[str]) -> list[str]:
    """``bots``, then every other bot of a pairing."""
    import numpy as np

    arrays = totals.arrays()
    used = np.zeros(len(arrays.names), dtype=bool)
    used[arrays.lo] = True
    used[arrays.hi] = True
    return list(dict.fromkeys([*bots, *(arrays.names[i] for i in np.flatnonzero(used))]))


def one_fit(totals: Totals, bots: Sequence[str], prior: Prior | None = None) -> bt.Fit:
    """The one Bradley–Terry fit (:func:`harness.stats.bradley_terry.fit`, as ``tourney
    ratings``' Elo) of ``totals`` over ``bots`` and every other bot of a pairing, warm-started
    from the last fit kept in the folder (which moves the answer by less than the fit's
    tolerance)."""
    import numpy as np

    from harness.stats import bradley_terry as bt

    names = _names(totals, bots)
    lo, hi, games, pts, _, _ = _oriented(totals, names)
    start, start_sd = _start(totals._folder, names)
    keep = games > 0
    data = bt.Comparisons.pairwise(names, lo[keep], hi[keep], games[keep], pts[keep])
    fitted = bt.fit(data, prior, start=start, start_sd=start_sd)
    if totals._folder is not None and np.any(keep):
        _keep_ratings(totals._folder, names, fitted.mu, fitted.sd)
    return fitted


def ratings(totals: Totals, bots: Sequence[str]) -> dict[str, tuple[float, float]]:
    """Each bot's rating and its standard deviation (Elo) relative to the field's mean, from
    :func:`one_fit`: the numbers ``tourney ratings`` gives for the same games. ``bots``: every
    bot to know; the others of a pairing are rated too."""
    fitted = one_fit(totals, bots)
    return {name: (float(m), float(s)) for name, m, s in zip(
        fitted.names, fitted.mu.tolist(), fitted.se.tolist(), strict=True)}


def _start(folder: Path | None, names: Sequence[str]) -> tuple[FloatArray, float | None]:
    """The ratings of the last fit in ``folder`` (0 for a bot it did not know), its spread."""
    import zipfile

    import numpy as np

    start = np.zeros(len(names))
    if folder is None:
        return start, None
    try:
        with np.load(folder / RATINGS_FILE, allow_pickle=False) as z:
            known = dict(zip(z["names"].tolist(), z["mu"].astype(np.float64).tolist(),
                             strict=True))
            sd = float(z["sd"]) if "sd" in z.files else None
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
        return start, None
    for k, name in enumerate(names):
        value = known.get(name, 0.0)
        start[k] = value if np.isfinite(value) else 0.0
    return start, sd if sd is not None and np.isfinite(sd) and sd > 0 else None


def _keep_ratings(folder: Path, names: Sequence[str], mu: FloatArray, sd: float) -> None:
    import numpy as np

    path = folder / RATINGS_FILE
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, names=np.array(list(names), dtype=str), mu=mu, sd=np.float64(sd))
        os.replace(tmp, path)
    except OSError:  # only a warm start: a read-only folder keeps none
        with contextlib.suppress(OSError):
            tmp.unlink()


def fit(totals: Totals, bots: Sequence[str], active: Sequence[str],
        **options: Any) -> Matchmaker:
    """A matchmaker holding ``totals`` (its beliefs from one exact fit, whatever their size),
    its active bots ``active``; ``bots`` are every bot to know (retired ones keep informing the
    others)."""
    import numpy as np

    from harness.arena.matchmaking import Matchmaker
    from harness.stats.bradley_terry import Prior

    names = _names(totals, bots)
    n = len(names)
    lo, hi, games, pts, i, j = _oriented(totals, names)
    deals = totals.arrays().deals
    results = (np.bincount(i, deals, n) + np.bincount(j, deals, n)).round().astype(np.int64)
    mm = Matchmaker(names, **options)
    mm.load(lo, hi, games, pts, results)
    sd = options.get("prior_sd")
    mm.apply(one_fit(totals, names, Prior(sd=sd)))
    keep = set(active)
    for name in names:
        if name not in keep:
            mm.remove_bot(name)
    return mm


@dataclass
class Row:
    rank: int
    entrant: str
    version: int
    bot: str
    status: str
    rating: float | None  # Elo (the field's mean near 0); None before a rated game
    sd: float | None
    games: int
    reason: str


def standings(folder: Path, registry: Registry, *, view: str = "latest",
              only: Sequence[str] = ()) -> list[Row]:
    """The leaderboard: ``view`` ``latest`` (each entrant's current version) or ``all`` (every
    version); ``only``: entrant or bot names (shell patterns) to keep."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}")
    versions = registry.versions()
    totals = read_totals(folder)
    rated = ratings(totals, [v.bot for v in versions])
    shown: list[Version] = list(registry.latest().values()) if view == "latest" else versions
    if only:
        shown = [v for v in shown if any(fnmatch.fnmatchcase(v.entrant, p) or
                                         fnmatch.fnmatchcase(v.bot, p) for p in only)]
    rows = []
    for v in shown:
        games = totals.games.get(v.bot, 0)
        rating, sd = rated[v.bot] if games else (None, None)
        rows.append(Row(0, v.entrant, v.version, v.bot, v.status, rating, sd, games, v.reason))
    rows.sort(key=lambda r: (r.rating is None, -(r.rating or 0.0), r.bot))
    for k, row in enumerate(rows, 1):
        row.rank = k
    return rows


def render(rows: Sequence[Row], fmt: str = "table") -> str:
    """The standings as a table, JSON or CSV."""
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=1)
    if fmt == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["rank", "entrant", "version", "bot", "status", "rating", "sd", "games",
                         "reason"])
        for r in rows:
            writer.writerow([r.rank, r.entrant, r.version, r.bot, r.status,
                             "" if r.rating is None else f"{r.rating:.1f}",
                             "" if r.sd is None else f"{r.sd:.1f}", r.games, r.reason])
        return buffer.getvalue().rstrip("\n")
    head = ["#", "entrant", "ver", "status", "Elo", "±95%", "games", "note"]
    cells = [[str(r.rank), r.entrant, f"v{r.version}", r.status,
              "-" if r.rating is None else f"{r.rating:+.0f}",
              "-" if r.sd is None else f"{Z95 * r.sd:.0f}", str(r.games),
              r.reason if r.status in ("failed", "suspended", "replaced") else ""]
             for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(head)]
    right = {0, 4, 5, 6}

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if i in right else v.ljust(w)
                         for i, (v, w) in enumerate(zip(values, widths, strict=True))).rstrip()

    out = [line(head), line(["-" * w for w in widths])]
    out.extend(line(c) for c in cells)
    if not cells:
        out.append("(no entrants yet: tourney arena add FOLDER NAME SPEC)")
    return "\n".join(out)
