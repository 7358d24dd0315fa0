"""The living league's machinery at scale: 1,000 bots and 1,000,000 stored games.

A synthetic living-league folder is built once and cached (``--folder``; by default a folder
in the temporary directory named after its size and seed, reused when present):

* ``living.create`` makes the folder (Battle Line, seeded key); every bot is a real registry
  version (:func:`harness.arena.entries.add` of a built-in spec, then ``active``) and is listed
  in ``league.json`` as an admitted version is;
* each bot has a hidden true strength (normal, sd 300 Elo). Duplicate pairs are chosen roughly
  as the matchmaker chooses them: a few across the field (placement), most between near-level
  bots (an opponent a few dozen places away in the true order). Every pair is recorded in the
  registry as an assignment (:meth:`Registry.assign`, in waves), and its two games get the ids,
  pair id and deal seed the arena gives them (:func:`harness.league.schedule.deal_set`'s);
* each game is won with the logistic probability of the true Elo difference; a few are
  forfeits (a timeout of the loser) and a few void (a crash with no one to blame);
* the games are written as the store writes them: ``games/batch-NNNNNN-xxxxxxxx.parquet`` of
  2,000 games in :data:`GAMES_SCHEMA` and its partner ``moves/`` file (:data:`MOVES_SCHEMA`,
  :data:`MOVES_PER_GAME` minimal moves a game, so the store's row-count check holds), zstd
  with page CRCs (the store's own writer).

Games finish in any order within a wave, so a pair's two games may sit in two batch files.

Then, each in a fresh process (so its peak memory is its own):

* **standings**: :func:`harness.arena.standings.read_totals` with no cache (every stored game
  read), with the cache of every batch but the newest (what a reader pays while the arena
  writes), and with the cache up to date; :func:`~harness.arena.standings.fit` (one exact
  refit) from zero and from the last fit's ratings; the leaderboard's
  :func:`~harness.arena.standings.ratings` and :func:`~harness.arena.standings.standings`;
  then the matchmaker after the fit: ``choose``, ``choose_many(rng, 8)`` (one wave),
  ``refit()`` and one ``record`` (the incremental update);
* ``tourney arena status FOLDER`` end to end (a new interpreter, best of 5) and its peak
  memory, beside the interpreter's own start-up with the CLI imported (``arena status
  --help``);
* **start-up** of ``tourney arena run`` on the folder: ``Arena(...)``, then what ``Arena.run``
  does before its first wave (``ResultsStore.open``, which reads every games file and keeps the
  set of stored game ids; ``_load_ratings``; ``_unfinished``; the first ``_sync``) and the
  choice of its first wave, with the memory it then holds. Measured twice: the first start after
  a run that made every assignment, with no caches (``_unfinished`` looks at every assignment,
  every moves file is checked page by page, every game is totalled) and the next start;
* **memory against games stored**: the same start on the folder and on its first half (the
  other batches hidden for the while), whose difference is what 100,000 more games cost.

Peak memory is ``VmHWM`` (the process's own high-water mark; ``ru_maxrss`` survives ``exec``,
so a child would report at least what the bench held when it forked).

Reads are timed with the folder in the page cache (the best of a few runs, as the machine may
be shared)::

    python -m bench.arena [--bots 1000] [--games 1000000] [--folder DIR] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

SD = 300.0  # true strengths: normal, this standard deviation (Elo)
GAME = "battleline"
BATCH = 2000  # games per batch file (the store's default)
WAVE = 2000  # pairs per registry.assign call while generating
WAVE_GAMES = 32  # games played at once (2 workers x 8 pairs x 2 games): they finish in any order
MOVES_PER_GAME = 2  # minimal moves a rated game (the real ones have about 90)
PLACEMENT = 0.05  # share of pairs across the field (a new bot's placement games)
FORFEIT = 0.002  # share of games lost on time
VOID = 0.0005  # share of games void (a crash with no one to blame: stored, never rated)
MARK = "bench.json"  # written last: the folder is complete
BUSY = ".bench-generating"  # written first: a folder holding it was left half made
SPECS = ("random", "greedy", "greedy:p=0.5", "mcts:iters=50")

IntArray = npt.NDArray[np.int64]


@dataclass
class Synthetic:
    """What the generator wrote, to check a reader against (per pair in sequence order)."""

    bots: list[str]
    strength: npt.NDArray[np.float64]
    lo: IntArray  # per pair: index of the bot whose name sorts first
    hi: IntArray
    lo_points: npt.NDArray[np.float64]  # per pair: points of ``lo`` in its rated games
    rated: IntArray  # per pair: rated games (0, 1 or 2)
    void: int  # void games in all

    def totals(self) -> dict[tuple[str, str], tuple[float, float, int]]:
        """(games, points of the first, deals) per pairing, as read_totals should find them."""
        out: dict[tuple[str, str], list[float]] = {}
        for lo, hi, pts, n in zip(self.lo.tolist(), self.hi.tolist(), self.lo_points.tolist(),
                                  self.rated.tolist(), strict=True):
            if n:
                acc = out.setdefault((self.bots[lo], self.bots[hi]), [0.0, 0.0, 0.0])
                acc[0] += n
                acc[1] += pts
                acc[2] += 1
        return {k: (v[0], v[1], int(v[2])) for k, v in out.items()}


def default_folder(bots: int, games: int, seed: int) -> Path:
    return Path(tempfile.gettempdir()) / f"tourney-bench-arena-{bots}b-{games}g-s{seed}"


def ensure(folder: Path, bots: int, games: int, seed: int = 1,
           say: Callable[[str], None] = print) -> bool:
    """Make ``folder`` the synthetic league of this size unless it is one already (True when
    it was generated now). A folder left half made by the generator is made again; any other
    non-empty folder is refused."""
    params = {"bots": bots, "games": games, "seed": seed, "batch": BATCH,
              "moves_per_game": MOVES_PER_GAME}
    mark = folder / MARK
    if mark.is_file():
        if json.loads(mark.read_text()) == params:
            _unhide(folder)
            return False
        raise SystemExit(f"{folder} holds a synthetic league of another size "
                         f"({mark.read_text().strip()}); choose another --folder")
    if folder.exists() and any(folder.iterdir()):
        if not (folder / BUSY).exists():
            raise SystemExit(f"{folder} is not empty and is not a synthetic league of this "
                             f"bench; choose another --folder")
        shutil.rmtree(folder)  # our own half-made folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / BUSY).write_text("")
    t0 = time.perf_counter()
    generate(folder, bots, games, seed)
    (folder / BUSY).unlink()
    mark.write_text(json.dumps(params) + "\n")
    say(f"  generated {folder} in {time.perf_counter() - t0:.1f} s")
    return True


def _hide(folder: Path, share: float) -> int:
    """Hide the last ``share`` of the batches (games and moves files alike, so the store sees
    a smaller folder, not a damaged one); how many games files were hidden."""
    from harness.league import store

    files = store.batch_files(folder / "games")
    hidden = files[len(files) - round(share * len(files)):]
    for path in hidden:
        for d in ("moves", "games"):
            os.replace(folder / d / path.name, folder / d / f".{path.name}")
    return len(hidden)


def _unhide(folder: Path) -> None:
    """Undo :func:`_hide` (also after a bench that was stopped half way)."""
    for d in ("games", "moves"):
        for name in os.listdir(folder / d):
            if name.startswith(".batch-") and name.endswith(".parquet"):
                os.replace(folder / d / name, folder / d / name[1:])


def generate(folder: Path, bots: int, games: int, seed: int = 1,
             batch: int = BATCH) -> Synthetic:
    """Write a living league of ``bots`` active bots and ``games`` stored games (rounded up to
    whole duplicate pairs) into ``folder`` (new or empty, or holding only the busy mark), in
    batch files of ``batch`` games."""
    from harness.arena.registry import Registry

    if bots < 2:
        raise ValueError("the synthetic league needs at least two bots")
    config = _new_league(folder, seed)
    rng = np.random.default_rng(seed)
    with Registry.open(folder) as registry:
        names = _admit(registry, folder, config, bots)
        strength, first, second = _choose_pairs(rng, bots, -(-games // 2))
        deals = _assign(registry, names, first, second)
    lo, hi = np.minimum(first, second), np.maximum(first, second)  # names sort as indices
    played = _Played.draw(rng, strength, lo, hi)
    pairs = len(lo)
    synthetic = Synthetic(
        bots=names, strength=strength, lo=lo, hi=hi,
        lo_points=np.where(played.rated, played.lo_wins.astype(np.float64), 0.0)
        .reshape(pairs, 2).sum(axis=1),
        rated=played.rated.reshape(pairs, 2).sum(axis=1).astype(np.int64),
        void=int(played.void.sum()))
    table, decisions = _games_table(rng, config, names, _Ids.of(names, lo, hi, deals, config),
                                    played)
    moves = _moves_table(rng, table, decisions, played.rated)
    _write_batches(folder, rng, table, moves, decisions, batch)
    return synthetic


def _new_league(folder: Path, seed: int) -> Any:
    """The living league's folder, made as ``tourney arena new`` makes it (the busy mark kept:
    living.create wants an empty folder)."""
    from harness.arena import living

    busy = folder / BUSY
    had_busy = busy.exists()
    if had_busy:
        busy.unlink()
    config = living.create(folder, GAME, seed=seed)
    if had_busy:
        busy.write_text("")
    return config


def _admit(registry: Any, folder: Path, config: Any, bots: int) -> list[str]:
    """``bots`` active entrants, named ``e0000`` on, listed in league.json as Arena._admit
    lists the admitted versions; their version names."""
    import dataclasses

    from harness.arena import entries
    from harness.league.folder import ResultsFolder
    from harness.records import BotRef

    width = max(4, len(str(bots - 1)))
    refs: list[BotRef] = []
    for k in range(bots):
        version = entries.add(registry, f"e{k:0{width}d}", SPECS[k % len(SPECS)])
        registry.set_status(version.bot, "active")
        refs.append(BotRef(version.bot, version.spec, version.sha256))
    ResultsFolder(folder).write_config(dataclasses.replace(config, bots=refs))
    return [r.name for r in refs]


def _choose_pairs(rng: np.random.Generator, bots: int,
                  pairs: int) -> tuple[npt.NDArray[np.float64], IntArray, IntArray]:
    """The true strengths and the pairs, in the order they were chosen: a bot (uniformly: the
    minimum share keeps games even), and an opponent near it in the true order, or anywhere
    (placement)."""
    strength = rng.normal(0.0, SD, bots)
    order = np.argsort(strength)
    rank = np.empty(bots, dtype=np.int64)
    rank[order] = np.arange(bots)
    first = rng.integers(0, bots, pairs)
    spread = max(1.0, bots / 20)
    step = np.rint(rng.normal(0.0, spread, pairs)).astype(np.int64)
    step[step == 0] = rng.choice(np.array([-1, 1]), int((step == 0).sum()))
    near = rank[first] + step
    near = np.where((near < 0) | (near >= bots), rank[first] - step, near)
    near = np.clip(near, 0, bots - 1)
    second = order[near]
    anywhere = rng.random(pairs) < PLACEMENT
    second[anywhere] = rng.integers(0, bots, int(anywhere.sum()))
    clash = second == first
    second[clash] = (first[clash] + 1 + rng.integers(0, bots - 1, int(clash.sum()))) % bots
    return strength, first, second


def _assign(registry: Any, names: list[str], first: IntArray, second: IntArray) -> IntArray:
    """The registry's assignments, wave by wave: each pair's deal index."""
    pairs = len(first)
    deals = np.empty(pairs, dtype=np.int64)
    for start in range(0, pairs, WAVE):
        chosen = [(names[a], names[b]) for a, b in
                  zip(first[start:start + WAVE].tolist(), second[start:start + WAVE].tolist(),
                      strict=True)]
        for k, assignment in enumerate(registry.assign(chosen)):
            deals[start + k] = assignment.deal
    return deals


@dataclass
class _Ids:
    """Game ids (two a pair), pair ids and deal seeds, as deal_set makes them."""

    games: list[str]
    pairs: list[str]
    seeds: IntArray

    @classmethod
    def of(cls, names: list[str], lo: IntArray, hi: IntArray, deals: IntArray,
           config: Any) -> _Ids:
        """Game 2d: the first name in seat 0; 2d+1 swapped."""
        from harness.league import schedule

        key = config.key_bytes
        out = cls([], [], np.empty(len(lo), dtype=np.int64))
        for k, (a, b, d) in enumerate(zip(lo.tolist(), hi.tolist(), deals.tolist(),
                                          strict=True)):
            group = (names[a], names[b])
            out.pairs.append(schedule.group_pair_id(0, group, d, key))
            out.seeds[k] = schedule.group_deal_seed(0, group, d, key)
            out.games.append(schedule.group_game_id(0, group, 2 * d, key))
            out.games.append(schedule.group_game_id(0, group, 2 * d + 1, key))
        return out


@dataclass
class _Played:
    """Each game's outcome (two a pair, in pair order): won by the first-named bot with the
    logistic of the true difference, some lost on time, a few void."""

    seat0: IntArray  # the bot in each seat
    seat1: IntArray
    lo_wins: npt.NDArray[np.bool_]
    win_seat: IntArray
    void: npt.NDArray[np.bool_]
    forfeit: npt.NDArray[np.bool_]

    @property
    def rated(self) -> npt.NDArray[np.bool_]:
        return ~self.void

    @classmethod
    def draw(cls, rng: np.random.Generator, strength: npt.NDArray[np.float64], lo: IntArray,
             hi: IntArray) -> _Played:
        pairs = len(lo)
        n = 2 * pairs
        p_lo = 1.0 / (1.0 + 10.0 ** (-(strength[lo] - strength[hi]) / 400.0))
        lo_wins = rng.random(n) < np.repeat(p_lo, 2)
        lo_seat = np.tile(np.array([0, 1], dtype=np.int64), pairs)
        seat0 = np.where(lo_seat == 0, np.repeat(lo, 2), np.repeat(hi, 2))
        seat1 = np.where(lo_seat == 0, np.repeat(hi, 2), np.repeat(lo, 2))
        win_seat = np.where(lo_wins, lo_seat, 1 - lo_seat)
        void = rng.random(n) < VOID
        forfeit = (rng.random(n) < FORFEIT) & ~void
        return cls(seat0, seat1, lo_wins, win_seat, void, forfeit)


def _games_table(rng: np.random.Generator, config: Any, names: list[str], ids: _Ids,
                 played: _Played) -> tuple[Any, npt.NDArray[np.int32]]:
    """The games table, column by column as games_table makes it, in the order the games
    finished; and each game's decisions, in that order."""
    import pyarrow as pa

    from harness.league.schema import GAMES_SCHEMA, variant_text

    n = len(ids.games)
    pairs = n // 2
    seat0, seat1, win_seat = played.seat0, played.seat1, played.win_seat
    void, forfeit, rated = played.void, played.forfeit, played.rated
    name_array = pa.array(names, pa.string())
    seat_bot = np.stack([seat0, seat1], axis=1).ravel()
    pairs_of2 = pa.array(np.arange(0, 2 * n + 1, 2, dtype=np.int32))
    winner_idx = np.where(win_seat == 0, seat0, seat1)
    loser_seat = 1 - win_seat
    winner_seats = pa.ListArray.from_arrays(
        pa.array(np.concatenate([[0], np.cumsum(rated)]).astype(np.int32)),
        pa.array(win_seat[rated].astype(np.int8)))
    returns = np.where(win_seat[:, None] == np.arange(2)[None, :], 1.0, -1.0)
    returns[void] = 0.0
    flags = np.stack([rng.integers(3, 6, n), rng.integers(0, 3, n)], axis=1).astype(np.float64)
    score = np.where(win_seat[:, None] == 0, flags, flags[:, ::-1])
    score[void] = 0.0
    reasons, reason_idx = _reasons(rng, win_seat, void, forfeit)
    termination_idx = np.where(void, 2, np.where(forfeit, 1, 0))
    offender = np.where(forfeit, loser_seat, 0).astype(np.int8)
    offender_bot_idx = np.where(loser_seat == 0, seat0, seat1)
    decisions = np.where(void, 0, MOVES_PER_GAME).astype(np.int32)
    duration = rng.gamma(4.0, 0.05, n)
    think = rng.gamma(2.0, 0.01, (n, 2))
    start_ms = 1_790_000_000_000
    finished = start_ms + np.cumsum(rng.integers(50, 400, n)).astype(np.int64)
    every = pa.array(np.zeros(n, dtype=np.int32))  # one value in every row
    columns: dict[str, Any] = {
        "league": pa.array([config.name]).take(every),
        "game_id": pa.array(ids.games, pa.string()),
        "pair_id": pa.array(ids.pairs, pa.string()).take(
            pa.array(np.repeat(np.arange(pairs), 2))),
        "game": pa.array([config.game]).take(every),
        "variant": pa.array([variant_text(config.variant)]).take(every),
        "rules_version": pa.array([config.rules_version]).take(every),
        "seed": pa.array(np.repeat(ids.seeds, 2)),
        "players": pa.array(np.full(n, 2, dtype=np.int8)),
        "bots": pa.ListArray.from_arrays(pairs_of2, name_array.take(pa.array(seat_bot))),
        "winner": name_array.take(pa.array(winner_idx, mask=void)),
        "winner_seats": winner_seats,
        "draw": pa.array(np.zeros(n, dtype=bool)),
        "result": pa.ListArray.from_arrays(pairs_of2, pa.array(returns.ravel())),
        "score": pa.ListArray.from_arrays(pairs_of2, pa.array(score.ravel())),
        "termination": pa.array(["normal", "timeout", "crash"]).take(
            pa.array(termination_idx)),
        "reason": pa.array(reasons).take(pa.array(reason_idx)),
        "offender": pa.array(offender, mask=~forfeit),
        "offender_bot": name_array.take(pa.array(offender_bot_idx, mask=~forfeit)),
        "rated": pa.array(rated),
        "decisions": pa.array(decisions),
        "duration": pa.array(duration),
        "think_time": pa.ListArray.from_arrays(pairs_of2, pa.array(think.ravel())),
        "finished_at": pa.array(finished, pa.timestamp("ms", tz="UTC")),
        "teams": pa.ListArray.from_arrays(
            pairs_of2, pa.array(np.tile(np.array([0, 1], dtype=np.int8), n))),
    }
    table = pa.Table.from_arrays([columns[f.name] for f in GAMES_SCHEMA], schema=GAMES_SCHEMA)
    # games finish in any order within a wave (WAVE_GAMES at a time): a pair's two games may
    # be stored in two batches
    finish = np.argsort(np.arange(n) // WAVE_GAMES + rng.random(n), kind="stable")
    table = table.take(pa.array(finish))
    table = table.set_column(GAMES_SCHEMA.get_field_index("finished_at"), "finished_at",
                             pa.array(finished, pa.timestamp("ms", tz="UTC")))
    return table, decisions[finish]


def _reasons(rng: np.random.Generator, win_seat: IntArray, void: npt.NDArray[np.bool_],
             forfeit: npt.NDArray[np.bool_]) -> tuple[list[str], IntArray]:
    """The reasons games end with, and each game's (an index into them)."""
    n = len(win_seat)
    reasons = [f"seat {s} breakthrough on flags {f}-{f + 1}-{f + 2}"
               for s in (0, 1) for f in range(1, 8)]
    reasons += [f"seat {s} envelopment with 5 flags (1, 3, 5, 7, 9)" for s in (0, 1)]
    reason_idx = np.where(win_seat == 0, rng.integers(0, 7, n), 7 + rng.integers(0, 7, n))
    reason_idx = np.where(rng.random(n) < 0.2, 14 + win_seat, reason_idx)  # envelopments
    reasons += ["move took 1.84 s, over its 1.0 s and its overage", "the worker process died"]
    reason_idx[forfeit] = len(reasons) - 2
    reason_idx[void] = len(reasons) - 1
    return reasons, reason_idx


def _moves_table(rng: np.random.Generator, table: Any, decisions: npt.NDArray[np.int32],
                 rated: npt.NDArray[np.bool_]) -> Any:
    """The moves: MOVES_PER_GAME a rated game, in the games' (stored) order."""
    import pyarrow as pa

    from harness.league.schema import MOVES_SCHEMA

    moves_of = np.repeat(np.arange(len(decisions)), decisions)
    ply = np.tile(np.arange(MOVES_PER_GAME, dtype=np.int32), int(rated.sum()))
    actions = pa.array(["play o8 8", "draw tactics", "play r3 2", "play b10 5", "play y1 9"])
    return pa.Table.from_arrays([
        table.column("game_id").take(pa.array(moves_of)),
        pa.array(ply),
        pa.array((ply % 2).astype(np.int8)),
        actions.take(pa.array(rng.integers(0, len(actions), ply.size))),
        pa.array(rng.gamma(2.0, 0.005, ply.size)),
    ], schema=MOVES_SCHEMA)


def _write_batches(folder: Path, rng: np.random.Generator, table: Any, moves: Any,
                   decisions: npt.NDArray[np.int32], batch: int) -> None:
    """The games and their moves in batch files of ``batch`` games, moves first, as the store
    writes them."""
    from harness.league import store

    n = table.num_rows
    move_ends = np.concatenate([[0], np.cumsum(decisions)])
    for b, start in enumerate(range(0, n, batch)):
        end = min(n, start + batch)
        name = f"batch-{b + 1:06d}-{rng.integers(0, 1 << 32):08x}.parquet"
        moves_part = moves.slice(move_ends[start], move_ends[end] - move_ends[start])
        with open(folder / "moves" / name, "wb") as fh:
            store._write_parquet(moves_part, fh)
        with open(folder / "games" / name, "wb") as fh:
            store._write_parquet(table.slice(start, end - start), fh)


# ----------------------------------------------------------------------------- measuring


def _best(run: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def _rss_now() -> int:
    """Resident memory of this process now (bytes)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss() -> int:
    """The most resident memory this process had (bytes): ``VmHWM``, the high-water mark of
    its own memory. (``ru_maxrss`` would not do: Linux keeps it across ``exec``, so a child
    reports at least what its parent held when it was forked.)"""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _without_caches(folder: Path) -> None:
    from harness.arena import standings

    for name in (standings.CACHE_FILE, standings.RATINGS_FILE):
        (folder / name).unlink(missing_ok=True)


def _without_index(folder: Path) -> None:
    """No index of the games: the next start builds it from every batch file."""
    from harness.league.index import INDEX_FILE

    for suffix in ("", "-wal", "-shm"):
        (folder / f"{INDEX_FILE}{suffix}").unlink(missing_ok=True)


def measure_standings(folder: Path, repeats: int = 3) -> dict[str, float]:
    """Seconds of the leaderboard's pieces and of the matchmaker's operations after the fit."""
    from harness.arena import standings
    from harness.arena.registry import Registry
    from harness.league import store

    out: dict[str, float] = {}
    cache = folder / standings.CACHE_FILE
    kept = folder / ".bench-cache-without-last"
    with Registry.open(folder) as registry:
        versions = registry.versions()
        bots = [v.bot for v in versions]
        active = [v.bot for v in versions if v.status == "active"]

        def cold() -> object:
            _without_caches(folder)
            return standings.read_totals(folder)

        out["read_totals_cold"] = _best(cold, repeats)
        # the cache of every batch but the last, then the last one read and merged (what a
        # reader does while the arena writes a batch every 2,000 games or 10 seconds)
        last = store.batch_files(folder / "games")[-1]
        hidden = last.with_name(f".{last.name}")
        os.replace(last, hidden)
        try:
            cache.unlink(missing_ok=True)
            standings.read_totals(folder)
            shutil.copyfile(cache, kept)
        finally:
            os.replace(hidden, last)

        def one_new() -> object:
            shutil.copyfile(kept, cache)
            return standings.read_totals(folder)

        out["read_totals_new_batch"] = _best(one_new, repeats)
        kept.unlink()
        out["read_totals_cached"] = _best(lambda: standings.read_totals(folder), repeats)
        totals = standings.read_totals(folder)
        out["games"] = float(sum(totals.games.values()) // 2)
        out["pairings"] = float(len(totals.pairs))
        out["void"] = float(totals.void)
        ratings_file = folder / standings.RATINGS_FILE

        def fit_cold() -> object:
            ratings_file.unlink(missing_ok=True)
            return standings.fit(totals, bots, active)

        out["fit_cold"] = _best(fit_cold, repeats)
        out["fit"] = _best(lambda: standings.fit(totals, bots, active), repeats)
        out["ratings"] = _best(lambda: standings.ratings(totals, bots), repeats)
        out["standings"] = _best(lambda: standings.standings(folder, registry), repeats)
        rows = standings.standings(folder, registry)
        out["render"] = _best(lambda: standings.render(rows), repeats)
    out["rss_peak"] = float(_peak_rss())
    mm = standings.fit(totals, bots, active)
    rng = random.Random(1)
    reps = 200
    out["choose"] = _best(lambda: [mm.choose(rng) for _ in range(reps)], repeats) / reps
    waves = 20
    out["choose_many8"] = _best(lambda: [mm.choose_many(rng, 8) for _ in range(waves)],
                                repeats) / waves
    out["refit"] = _best(mm.refit, repeats)
    out["refit_every"] = float(mm.refit_every or max(8, len(mm.bots) // 2))
    chosen = [mm.choose(rng) for _ in range(reps)]
    every = mm.refit_every
    mm.refit_every = 1 << 62  # the incremental step alone; the refit is timed above

    def record() -> None:
        for a, b in chosen:
            mm.record(a, b, 1.0)

    out["record"] = _best(record, repeats) / reps
    mm.refit_every = every
    return out


def measure_startup(folder: Path, fresh: bool) -> dict[str, float]:
    """Seconds of ``tourney arena run``'s start on ``folder``, up to its first wave, and the
    memory it then holds. ``fresh``: as the first start after a run that made every assignment
    (its ``_unfinished`` looks at all of them; the moves files are checked page by page again,
    as they are the first time a folder is opened after they were written)."""
    from harness.arena import living
    from harness.arena.registry import Registry
    from harness.league.store import IndexedIds, ResultsStore

    if fresh:
        (folder / "moves" / ".verified").unlink(missing_ok=True)
        _without_caches(folder)
        _without_index(folder)
        with Registry.open(folder) as registry:
            registry.set_complete_through(0)
    out: dict[str, float] = {}
    base = _rss_now()
    t0 = time.perf_counter()
    arena = living.Arena(folder, living.RunOptions(progress=False, seed=1, say=lambda s: None))
    out["arena_init"] = time.perf_counter() - t0
    with Registry.open(folder) as registry:
        out["assignments_looked_at"] = float(
            registry.last_seq() - registry.complete_through())
    before = _rss_now()
    t = time.perf_counter()
    arena._store = ResultsStore.open(folder, arena.config, must_exist=True, indexed=True)
    out["store_open"] = time.perf_counter() - t
    after = _rss_now()
    try:
        finished = arena._store.finished
        out["stored_ids"] = float(len(finished))
        # what the store holds in memory of the ids: those not written yet (the index on
        # disk answers for the stored ones)
        held = finished.waiting if isinstance(finished, IndexedIds) else finished
        out["ids_bytes"] = float(sys.getsizeof(held) + sum(sys.getsizeof(g) for g in held))
        out["store_retained"] = float(after - before)
        arena.config = arena._store.config
        t = time.perf_counter()
        arena._load_ratings()
        out["load_ratings"] = time.perf_counter() - t
        t = time.perf_counter()
        arena.inbox.know(arena.registry)
        arena._last_seq = arena.registry.last_seq()
        todo = arena._unfinished()
        out["unfinished"] = time.perf_counter() - t
        out["unfinished_pairs"] = float(len(todo))
        t = time.perf_counter()
        arena._sync()
        out["first_sync"] = time.perf_counter() - t
        out["startup"] = time.perf_counter() - t0
        assert arena.mm is not None
        t = time.perf_counter()
        arena.mm.choose_many(arena.rng, 8 * 2)  # a wave of 2 workers (not assigned)
        out["first_wave_choice"] = time.perf_counter() - t
    finally:
        arena._store.close()
        arena.registry.close()
    out["rss_now"] = float(_rss_now())
    out["rss_base"] = float(base)
    out["rss_peak"] = float(_peak_rss())
    return out


def _child(what: str, folder: Path, *extra: str) -> dict[str, float]:
    """Run one measurement in a new interpreter (its own peak memory); its figures."""
    cmd = [sys.executable, "-m", "bench.arena", "--child", what, "--folder",
           str(folder), *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bench child {what} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


_PEAK_AT_EXIT = ("import atexit, sys\n"
                 "def peak():\n"
                 "    for line in open('/proc/self/status'):\n"
                 "        if line.startswith('VmHWM:'):\n"
                 "            print('peak-rss', int(line.split()[1]) * 1024, file=sys.stderr)\n"
                 "atexit.register(peak)\n"
                 "from harness.cli.app import main\n"
                 "main()\n")


def _cli_seconds(args: Sequence[str], repeats: int = 3) -> tuple[float, str, int]:
    """Best wall-clock seconds of ``tourney ARGS`` in a new interpreter, its output and its
    peak resident memory (bytes)."""
    cmd = [sys.executable, "-c", _PEAK_AT_EXIT, *args]
    best, text, peak = float("inf"), "", 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - t0)
        if done.returncode != 0:
            raise RuntimeError(f"tourney {' '.join(args)} failed:\n{done.stderr}")
        text = done.stdout
        peak = max([peak, *(int(line.split()[1]) for line in done.stderr.splitlines()
                            if line.startswith("peak-rss "))])
    return best, text, peak


def _row(what: str, seconds: float, note: str = "") -> None:
    value = f"{seconds * 1e3:,.1f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:,.1f} µs"
    # ``  name: value unit  (note)``, as bench.figure prints, the names padded
    print(f"  {what:<44}: {value:<11} {note}".rstrip(), flush=True)


def _mb(n: float) -> str:
    return f"{n / 2**20:,.0f} MB"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.arena",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--bots", type=int, default=None, help="bots (default 1000; quick 100)")
    parser.add_argument("--games", type=int, default=None,
                        help="stored games (default 1000000; quick 50000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--folder", type=Path, default=None,
                        help="the synthetic league (made if missing, reused if present; "
                             "default: in the temporary directory, named by size and seed)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--child", choices=("standings", "startup", "restart"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--no-caches", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    bots = args.bots or (100 if args.quick else 1000)
    games = args.games or (50_000 if args.quick else 1_000_000)
    folder = args.folder or default_folder(bots, games, args.seed)
    if args.child:
        if args.child == "standings":
            result = measure_standings(folder)
        else:
            if args.no_caches:
                _without_caches(folder)
            result = measure_startup(folder, fresh=args.child == "startup")
        print(json.dumps(result))
        return

    print(f"  synthetic living league: {bots:,} bots, {games:,} games, seed {args.seed}: "
          f"{folder}", flush=True)
    if not ensure(folder, bots, games, args.seed, say=lambda s: print(s, flush=True)):
        print("  (reused)", flush=True)
    size = sum(p.stat().st_size for d in ("games", "moves") for p in (folder / d).iterdir())
    print(f"  {len(os.listdir(folder / 'games')):,} batch files, {_mb(size)} on disk", flush=True)

    s = _child("standings", folder)
    print(f"standings ({s['games']:,.0f} rated games, {s['pairings']:,.0f} pairings, "
          f"{s['void']:,.0f} void):")
    _row("read_totals, no cache (every game read)", s["read_totals_cold"])
    _row("read_totals, cache + one new batch", s["read_totals_new_batch"], "(2,000 games)")
    _row("read_totals, cache up to date", s["read_totals_cached"])
    _row("fit, first (from zero)", s["fit_cold"])
    _row("fit (from the last fit's ratings)", s["fit"])
    _row("ratings (the leaderboard's fit)", s["ratings"])
    _row("standings() (totals, ratings, registry)", s["standings"])
    _row("render (the table)", s["render"])
    help_s, _, _ = _cli_seconds(["arena", "status", "--help"], 5)
    status_s, text, status_peak = _cli_seconds(["arena", "status", str(folder)], 5)
    listed = sum(1 for line in text.splitlines()[2:] if line.strip())
    _row("tourney arena status FOLDER (end to end)", status_s, f"{listed:,} bots listed")
    _row("  of which interpreter and CLI imports", help_s, "(arena status --help)")
    print(f"  peak RSS: tourney arena status {_mb(status_peak)}; the process above (every "
          f"game read with no cache, three times) {_mb(s['rss_peak'])}")
    print(f"matchmaker at {bots:,} bots after the fit:")
    _row("choose (next pair)", s["choose"])
    _row("choose_many(rng, 8) (a wave)", s["choose_many8"])
    _row("refit (exact)", s["refit"],
         f"every {s['refit_every']:,.0f} results: {s['refit'] / s['refit_every'] * 1e3:.2f} ms "
         f"a result amortised")
    _row("record (incremental update)", s["record"])

    starts = (("startup", "arena start after a run that made every assignment, no caches"),
              ("restart", "arena start, the next one"))
    for what, title in starts:
        u = _child(what, folder)
        print(f"{title} ({u['assignments_looked_at']:,.0f} assignments looked at):")
        _row("Arena(folder, options)", u["arena_init"])
        _row("ResultsStore.open", u["store_open"],
             "no index: every games file read, the index built, moves pages checked"
             if what == "startup" else "the files the index knows are not read again")
        _row("_load_ratings (read_totals + fit)", u["load_ratings"])
        _row("_unfinished", u["unfinished"], f"{u['unfinished_pairs']:,.0f} pairs to replay")
        _row("first _sync", u["first_sync"])
        _row("start-up in all", u["startup"])
        _row("first wave's choice (16 pairs)", u["first_wave_choice"])
        per = 100_000 / max(1.0, u["stored_ids"])
        print(f"  RSS: {_mb(u['rss_base'])} after imports, {_mb(u['rss_now'])} after start-up, "
              f"peak {_mb(u['rss_peak'])}; of {u['stored_ids']:,.0f} stored game ids the "
              f"store holds {_mb(u['ids_bytes'])} in memory ({_mb(u['ids_bytes'] * per)} per "
              f"100k games)")
    # memory against the games stored: the same start (no caches: every game read) on the
    # folder and on its first half
    full = _child("restart", folder, "--no-caches")
    _hide(folder, 0.5)
    try:
        half = _child("restart", folder, "--no-caches")
    finally:
        _unhide(folder)
    fewer = full["stored_ids"] - half["stored_ids"]
    if fewer > 0:
        grow = 100_000 / fewer
        print(f"memory of an arena start with no caches: {full['stored_ids']:,.0f} games: RSS "
              f"{_mb(full['rss_now'])} after start-up, peak {_mb(full['rss_peak'])}; "
              f"{half['stored_ids']:,.0f} games: {_mb(half['rss_now'])}, peak "
              f"{_mb(half['rss_peak'])}; so 100k more stored games add "
              f"{_mb((full['rss_now'] - half['rss_now']) * grow)} after start-up, "
              f"{_mb((full['rss_peak'] - half['rss_peak']) * grow)} at the peak")


def run(quick: bool) -> None:
    """Entry point for a bench section (``make bench``)."""
    main(["--quick"] if quick else [])


if __name__ == "__main__":
    main()
