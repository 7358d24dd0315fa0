"""The competition server with a month of games (issue 45): ``tourney serve`` on a folder of
1,000,000 stored games, its league playing, entrants reading their pages, replays and logs,
and one entrant flooding it with made-up game ids.

What it does, in order:

* the synthetic living league of :mod:`harness.bench.arena` (100 bots, 1,000,000 games in the
  store's own format: 2,000-game batch files of games and moves; ``--quick`` 50,000), made once
  and kept in the temporary directory, with the index of its games built once beside it;
* a copy of it for this run (the batch files hard-linked: a committed batch is never changed,
  only merged into new files and removed), made a competition: an organiser and one account
  for each of the league's first entrants (the synthetic bots are theirs), as ``tourney serve``
  would have them had they signed up;
* ``tourney serve`` on it (loopback, its league playing the 100 bots: real games are stored,
  and the small batches merged, while it is measured);
* **base**: the leaderboard pollers alone, for the phase's seconds: its throughput;
* **reads**: entrants reading, each account at a pace within the server's per-account limit
  (two accounts a kind): one entrant's page (``GET /me``), the replay of one of their games
  (``GET /games/ID``), a game's log (``GET /api/games/ID/log``) and a made-up id
  (``GET /api/games/ID``, answered 404); each kind's latency percentiles beside the target
  (p99 at most 100 ms), with the league playing;
* **the mix**: the same reads beside the leaderboard pollers (the load of issue 31 with
  entrants' pages and replays in it): the leaderboard's throughput and every kind's latency,
  for the record (a poller asks again the moment it is answered, so the server is kept busy
  and every request waits its turn behind theirs);
* **flood**: the pollers, and 40 requests for made-up ids kept under way at once by one entrant
  (each sent again as soon as it is answered); the leaderboard's throughput beside the base's
  (the target: within 20 %), and how the flood was answered (404, or 429 once over the limit);
* the server stopped with SIGINT, the copy removed.

Latencies are measured by the client, which shares the machine's two cores with the server,
the league's workers and the games::

    python -m harness.bench.serve_games [--games 1000000] [--seconds 20] [--pollers 50]
                                        [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import shutil
import ssl
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from harness.bench.serve import (
    REQUEST_TIMEOUT,
    Calls,
    LoadError,
    Server,
    _bearer,
    _client,
    _latencies,
    _line,
    _tail,
    start_server,
    stop_server,
    stored_games,
)
from harness.serve.reads import READ_SECONDS

BOTS = 100
GAMES = 1_000_000
QUICK_GAMES = 50_000
SECONDS = 20.0  # each phase
QUICK_SECONDS = 5.0
POLLERS = 50
QUICK_POLLERS = 10
READERS = 2  # accounts per kind of read
READ_EVERY = 0.3  # one account's pace: about 33 requests in 10 s, within the server's 40
FLOOD = 40  # made-up ids under way at once
TARGET_MS = 100.0  # p99 of each kind of read
TARGET_SHARE = 0.8  # the leaderboard's throughput under the flood, of the base's
KINDS = ("entrant page", "replay", "log", "made-up id")
START_TIMEOUT = 600.0  # the server's start on a large folder (the index is caught up)


@dataclass
class Phase:
    seconds: float = math.nan
    board: Calls = field(default_factory=Calls)

    def rate(self) -> float:
        return self.board.answered / self.seconds if self.seconds > 0 else math.nan


@dataclass
class ScaleResult:
    games: int
    files: int = 0
    started: float = math.nan
    base: Phase = field(default_factory=Phase)
    reads: Phase = field(default_factory=Phase)
    mix: Phase = field(default_factory=Phase)
    flood: Phase = field(default_factory=Phase)
    kinds: dict[str, Calls] = field(default_factory=lambda: {k: Calls() for k in KINDS})
    mixed: dict[str, Calls] = field(default_factory=lambda: {k: Calls() for k in KINDS})
    flooded: Calls = field(default_factory=Calls)
    stored: tuple[int, int] = (0, 0)
    files_after: int = 0
    load: tuple[float, float] = (math.nan, math.nan)  # the machine's 1-minute load, start, end
    exit_code: int | None = None
    killed: bool = False
    log_tail: str = ""


# ----------------------------------------------------------------------------- the folder


def _cached(games: int, say: bool = True) -> Path:
    """The synthetic league of this size (made once), with its index built."""
    from harness.bench import arena
    from harness.league.index import INDEX_FILE, GameIndex

    folder = arena.default_folder(BOTS, games, 1)
    arena.ensure(folder, BOTS, games, 1, say=lambda s: print(s, flush=True) if say else None)
    if not (folder / INDEX_FILE).is_file():
        t0 = time.perf_counter()
        GameIndex.open(folder).close()
        if say:
            print(f"  indexed {folder} in {time.perf_counter() - t0:.1f} s", flush=True)
    return folder


def _copy(source: Path, dest: Path) -> None:
    """A copy to run on: batch files hard-linked (never changed in place), the rest copied."""
    for root, _dirs, names in os.walk(source):
        rel = Path(root).relative_to(source)
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for name in names:
            src, dst = Path(root) / name, dest / rel / name
            if name.endswith(".parquet"):
                os.link(src, dst)
            else:
                shutil.copy2(src, dst)


def _accounts(folder: Path, entrants: Sequence[str]) -> tuple[str, dict[str, str]]:
    """The competition's database: an organiser and these entrants; their tokens."""
    from harness.serve.db import CompetitionDB

    with CompetitionDB.open(folder, create=True) as db:
        organiser = db.set_organiser_token()
        return organiser, {name: db.add_entrant(name) for name in entrants}


# ----------------------------------------------------------------------------- the clients


async def _poll(client: httpx.AsyncClient, end: float, calls: Calls) -> None:
    while time.monotonic() < end:
        t0 = time.perf_counter()
        try:
            response = await client.get("/api/leaderboard")
        except httpx.HTTPError as exc:
            calls.failed[type(exc).__name__] += 1
            await asyncio.sleep(0.1)
            continue
        calls.seconds.append(time.perf_counter() - t0)
        calls.status[response.status_code] += 1


async def _read(client: httpx.AsyncClient, paths: Sequence[str], end: float, every: float,
                calls: Calls, first: float) -> None:
    """Ask for ``paths`` in turn, one every ``every`` seconds from ``first``, until ``end``."""
    n = 0
    while True:
        at = first + n * every
        if at >= end:
            return
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        t0 = time.perf_counter()
        try:
            response = await client.get(paths[n % len(paths)])
        except httpx.HTTPError as exc:
            calls.failed[type(exc).__name__] += 1
        else:
            calls.seconds.append(time.perf_counter() - t0)
            calls.status[response.status_code] += 1
        n += 1


async def _flood(client: httpx.AsyncClient, end: float, calls: Calls, rng: random.Random
                 ) -> None:
    while time.monotonic() < end:
        path = f"/api/games/g{rng.getrandbits(28):07x}"
        t0 = time.perf_counter()
        try:
            response = await client.get(path)
        except httpx.HTTPError as exc:
            calls.failed[type(exc).__name__] += 1
            await asyncio.sleep(0.05)
            continue
        calls.seconds.append(time.perf_counter() - t0)
        calls.status[response.status_code] += 1


async def drive(server: Server, tokens: dict[str, str], result: ScaleResult, seconds: float,
                pollers: int) -> None:
    tls = ssl.create_default_context()
    names = list(tokens)
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(_client(server.url, REQUEST_TIMEOUT, tls))
                   for _ in range(pollers)]

        def entrant(name: str) -> httpx.AsyncClient:
            return _client(server.url, REQUEST_TIMEOUT, tls, _bearer(tokens[name]))

        readers = {kind: [await stack.enter_async_context(entrant(names[k * READERS + j]))
                          for j in range(READERS)] for k, kind in enumerate(KINDS)}
        flooder = await stack.enter_async_context(httpx.AsyncClient(
            base_url=server.url, timeout=REQUEST_TIMEOUT, verify=tls,
            headers=_bearer(tokens[names[-1]]),
            limits=httpx.Limits(max_connections=FLOOD, max_keepalive_connections=FLOOD)))

        async def games_of(client: httpx.AsyncClient) -> list[str]:
            got = await client.get("/api/me/games?limit=200")
            if got.status_code != 200:
                raise LoadError(f"an entrant's games: {got.status_code} {got.text[:200]}")
            return [g["game_id"] for g in got.json()["games"]]

        paths: dict[str, list[list[str]]] = {}
        paths["entrant page"] = [["/me"] for _ in readers["entrant page"]]
        paths["replay"] = [[f"/games/{g}" for g in await games_of(c)][:50]
                           for c in readers["replay"]]
        paths["log"] = [[f"/api/games/{g}/log" for g in await games_of(c)][:50]
                        for c in readers["log"]]
        rng = random.Random(1)
        paths["made-up id"] = [[f"/api/games/g{rng.getrandbits(28):07x}" for _ in range(50)]
                               for _ in readers["made-up id"]]
        if not all(paths["replay"]) or not all(paths["log"]):
            raise LoadError("the entrants have no games to replay")
        await asyncio.sleep(READ_SECONDS + 1)  # the set-up's requests out of every window

        async def phase(into: Phase, extra: Sequence[asyncio.Future[None]] | None = None,
                        end: float = 0.0, polled: bool = True) -> None:
            t0 = time.monotonic()
            tasks = [asyncio.ensure_future(_poll(c, end, into.board)) for c in clients
                     if polled]
            await asyncio.gather(*tasks, *(extra or []))
            into.seconds = time.monotonic() - t0

        def reading(into: dict[str, Calls], end: float) -> list[asyncio.Future[None]]:
            start = time.monotonic()
            return [asyncio.ensure_future(_read(client, paths[kind][j], end, READ_EVERY,
                                                into[kind],
                                                start + (k * READERS + j) * READ_EVERY / 8))
                    for k, kind in enumerate(KINDS) for j, client in enumerate(readers[kind])]

        end = time.monotonic() + seconds
        await phase(result.base, end=end)
        end = time.monotonic() + seconds
        await phase(result.reads, reading(result.kinds, end), end=end, polled=False)
        end = time.monotonic() + seconds
        await phase(result.mix, reading(result.mixed, end), end=end)
        end = time.monotonic() + seconds
        floods = [asyncio.ensure_future(_flood(flooder, end, result.flooded,
                                               random.Random(k))) for k in range(FLOOD)]
        await phase(result.flood, floods, end=end)


def measure(games: int = GAMES, seconds: float = SECONDS, pollers: int = POLLERS, *,
            root: Path | None = None) -> ScaleResult:
    from harness.league import store

    source = _cached(games)
    result = ScaleResult(games)
    tmp = Path(tempfile.mkdtemp(prefix="tourney-bench-serve-games-", dir=root))
    folder, log = tmp / "contest", tmp / "serve.log"
    server: Server | None = None
    try:
        _copy(source, folder)
        from harness.arena.registry import Registry

        with Registry.open(folder) as registry:
            entrants = sorted({v.entrant for v in registry.versions()})
        needed = len(KINDS) * READERS + 1
        organiser, tokens = _accounts(folder, entrants[:needed])
        result.files = len(store.batch_files(folder / "games"))
        result.stored = (stored_games(folder), 0)
        result.load = (os.getloadavg()[0], math.nan)
        t0 = time.perf_counter()
        server = start_server(folder, log, START_TIMEOUT, organiser=organiser)
        result.started = time.perf_counter() - t0
        asyncio.run(drive(server, tokens, result, seconds, pollers))
    except LoadError as exc:
        raise LoadError(f"{exc}\nthe server's output ends:\n{_tail(log)}") from None
    finally:
        result.load = (result.load[0], os.getloadavg()[0])
        if server is not None:
            result.exit_code, result.killed, _ = stop_server(server.process)
            result.log_tail = _tail(log)
        with contextlib.suppress(Exception):
            result.stored = (result.stored[0], stored_games(folder))
            result.files_after = len(store.batch_files(folder / "games"))
        shutil.rmtree(tmp, ignore_errors=True)
    return result


# ----------------------------------------------------------------------------- the figures


def _counts(counter: Counter[int] | Counter[str]) -> str:
    return ", ".join(f"{key} {n:,}" for key, n in sorted(counter.items(), key=str)) or "none"


def report(r: ScaleResult, pollers: int) -> None:
    from harness.bench import figure

    _line("store", f"{r.stored[0]:,} games in {r.files:,} batch files; the league stored "
                   f"{r.stored[1] - r.stored[0]:,} more during the run, and {r.files_after:,} "
                   f"batch files were left after its merges")
    figure("server start on it", r.started, "s", "until /health answers")
    _line("the machine", f"{os.cpu_count()} cores; load average {r.load[0]:.1f} at the start, "
                         f"{r.load[1]:.1f} at the end (what else ran shares the cores: the "
                         f"latencies include it)")
    for name, phase in (("alone", r.base), ("with the entrants' reads", r.mix),
                        ("under the flood", r.flood)):
        figure(f"leaderboard requests/s, {pollers} pollers {name}", phase.rate(), "req/s",
               f"{phase.board.answered:,} answered in {phase.seconds:.1f} s; "
               f"{_counts(phase.board.status)} by status; "
               f"{sum(phase.board.failed.values()):,} with no answer; p50 "
               f"{phase.board.percentile(50) * 1e3:,.0f} ms, p99 "
               f"{phase.board.percentile(99) * 1e3:,.0f} ms")
    _line("the mix", "entrants' reads beside the pollers: " + "; ".join(
        f"{kind} p50 {r.mixed[kind].percentile(50) * 1e3:,.0f} ms, p99 "
        f"{r.mixed[kind].percentile(99) * 1e3:,.0f} ms ({_counts(r.mixed[kind].status)})"
        for kind in KINDS))
    _line("the reads", f"{READERS} accounts a kind, one request every {READ_EVERY:g} s each, "
                       f"with the league playing (no pollers)")
    for kind in KINDS:
        calls = r.kinds[kind]
        p99 = calls.percentile(99) * 1e3
        verdict = "met" if p99 <= TARGET_MS else "MISSED"
        _latencies(kind, calls)
        _line(f"{kind}: p99 {p99:,.1f} ms against the target of {TARGET_MS:g} ms", verdict +
              f" ({calls.answered:,} answered: {_counts(calls.status)} by status; "
              f"{sum(calls.failed.values()):,} with no answer)")
    share = r.flood.rate() / r.base.rate() if r.base.rate() > 0 else math.nan
    verdict = "met" if share >= TARGET_SHARE else "MISSED"
    figure("leaderboard throughput under the flood, of the base's", share * 100, "%",
           f"target at least {TARGET_SHARE * 100:g} %: {verdict}")
    _line("the flood", f"{FLOOD} made-up ids under way at once from one entrant: "
                       f"{r.flooded.answered:,} answered ({_counts(r.flooded.status)} by "
                       f"status), p99 {r.flooded.percentile(99) * 1e3:,.1f} ms")
    _line("server stop after SIGINT", f"exit code {r.exit_code}"
                                      f"{', killed' if r.killed else ''}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.bench.serve_games",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=None,
                        help=f"stored games (default {GAMES:,}; quick {QUICK_GAMES:,})")
    parser.add_argument("--seconds", type=float, default=None,
                        help=f"each phase (default {SECONDS:g}; quick {QUICK_SECONDS:g})")
    parser.add_argument("--pollers", type=int, default=None,
                        help=f"leaderboard pollers (default {POLLERS}; quick {QUICK_POLLERS})")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    games = args.games or (QUICK_GAMES if args.quick else GAMES)
    seconds = args.seconds or (QUICK_SECONDS if args.quick else SECONDS)
    pollers = args.pollers or (QUICK_POLLERS if args.quick else POLLERS)
    print(f"  the stored games at scale: {games:,} games, {pollers} leaderboard pollers, "
          f"{seconds:g} s a phase", flush=True)
    try:
        result = measure(games, seconds, pollers)
    except LoadError as exc:
        raise SystemExit(f"bench serve: {exc}") from None
    report(result, pollers)


if __name__ == "__main__":
    main()
