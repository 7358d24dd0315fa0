"""The competition server under load (issue 31): ``tourney serve`` on loopback, a league
playing, 50 clients polling the leaderboard and 10 entrants uploading bots, for a minute.

What it does, in order:

* a fresh competition in a temporary folder: ``tourney serve DIR --game battleline --host
  127.0.0.1 --port 0`` as a child process; its address and organiser token are read from what
  it prints, and it is ready when ``/health`` answers;
* as the organiser (the JSON API, ``Authorization: Bearer``): the daily and total upload quotas
  raised to their highest (so no uploader is stopped by them), two seed entrants and one
  entrant per uploader added;
* the first seed uploads a bot that plays its first legal action, and once it is active the
  second uploads one that plays its last: **upload to first game** is the time from the second
  upload's POST until ``GET /api/leaderboard`` shows games for it (its entry check, the league
  admitting it, a game, the store's next batch and the leaderboard's one-second cache);
* the load, with ``httpx.AsyncClient`` in one asyncio loop: the pollers (each its own client
  and connection) ask for ``/api/leaderboard`` back to back, and each uploader sends its own
  entrant's small bots (a different comment each time, so each is new code) every
  :data:`UPLOAD_EVERY` seconds, a pace within the server's 6 uploads a minute per entrant; an
  upload refused with 429 is counted as rate-limited, not as an error. Every loop ends by
  itself at the deadline (and after a bounded number of requests); a request in flight then
  has at most the request timeout to finish;
* the figures: latency percentiles (p50, p90, p99, max) of the leaderboard and of uploads,
  requests and requests/s, answers by status, requests with no answer (by exception), answers
  that were not a valid leaderboard, and the games the league stored meanwhile (the
  leaderboard's games summed over entrants, halved, as a player sees them; and the rows added
  to the games files, which also count the games of versions an upload replaced);
* how late the client's own event loop ran (a sleeper's wake-up delay, every 0.1 s): the part
  of the latencies that is the client's queueing, not the server's;
* the server stopped with SIGINT (killed if it has not exited within 30 s), the folder removed.

Latencies are measured by the client, which shares the machine's cores with the server, the
league's worker processes and the entry checks; so they include the client's own queueing.
``tests/serve/test_load.py`` runs the same code briefly with fewer clients::

    python -m bench.serve [--seconds 60] [--pollers 50] [--uploaders 10]
                                  [--upload-every 11] [--quick]

**The stored games at scale** (issue 45; :func:`main_games`, which ``make bench
ONLY=serve`` runs after the load above): ``tourney serve`` on a folder of 1,000,000 stored games,
its league playing, entrants reading their pages, replays and logs, and one entrant flooding
it with made-up game ids.

What it does, in order:

* the synthetic living league of :mod:`bench.arena` (100 bots, 1,000,000 games in the
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

    python -m bench.serve --games-only [--games 1000000] [--seconds 20]
                                       [--pollers 50] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from harness.serve.reads import READ_SECONDS

HOST = "127.0.0.1"  # loopback only
GAME = "battleline"
SECONDS = 60.0
POLLERS = 50
UPLOADERS = 10
UPLOAD_EVERY = 11.0  # one uploader's pace: 6 uploads a minute (the server's limit) and room
REQUEST_TIMEOUT = 60.0  # the longest one request may take
START_TIMEOUT = 120.0  # until the server answers /health
FIRST_GAME_TIMEOUT = 300.0  # until a seed bot is active, and until it has played
STOP_SECONDS = 30.0  # after SIGINT, then the server is killed
SEEDS = ("seed-first", "seed-last")
MOST_PER_SECOND = 1000  # a loop's hard bound: requests per second of the run
LAG_EVERY = 0.1  # the client's event loop is looked at this often
BAD_KEPT = 5  # examples of invalid leaderboard answers kept


class LoadError(RuntimeError):
    """The server did not start, refused the set-up, or a seed bot never played."""


@dataclass
class Calls:
    """One kind of request's outcomes."""

    seconds: list[float] = field(default_factory=list)  # latency of every answered request
    status: Counter[int] = field(default_factory=Counter)  # answers by HTTP status
    failed: Counter[str] = field(default_factory=Counter)  # no answer: by exception

    @property
    def answered(self) -> int:
        return len(self.seconds)

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.status.items() if status >= 500)

    def percentile(self, q: float) -> float:
        """The nearest-rank percentile ``q`` (0-100) of the latencies, in seconds."""
        if not self.seconds:
            return math.nan
        ordered = sorted(self.seconds)
        return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


@dataclass
class Result:
    """What one run measured."""

    seconds: float  # the load's planned duration
    pollers: int
    uploaders: int
    upload_every: float
    started: float = math.nan  # s from starting the server until /health answered
    checked: float = math.nan  # s from the second seed's upload until it was active
    first_game: float = math.nan  # s from the second seed's upload until it had games
    elapsed: float = math.nan  # s the load really took (the last request's end)
    overran: bool = False  # the loops had not ended by the deadline plus the request timeout
    board: Calls = field(default_factory=Calls)
    uploads: Calls = field(default_factory=Calls)
    lag: Calls = field(default_factory=Calls)  # the client's own event loop: wake-up delays
    accepted: Counter[str] = field(default_factory=Counter)  # 202s by entrant
    invalid: int = 0  # 200 answers that were not a leaderboard with the seeds on it
    invalid_examples: list[str] = field(default_factory=list)
    board_games: tuple[float, float] = (math.nan, math.nan)  # leaderboard games / 2, start, end
    stored_games: tuple[int, int] = (0, 0)  # rows of the games files, start and end
    versions: Counter[str] = field(default_factory=Counter)  # uploaders' versions by status
    exit_code: int | None = None  # the server's, after SIGINT
    killed: bool = False  # it had to be killed
    stop_seconds: float = math.nan
    log_tail: str = ""  # the end of the server's output


# ----------------------------------------------------------------------------- the server


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    url: str
    organiser: str
    log: Path


def start_server(folder: Path, log: Path, timeout: float = START_TIMEOUT,
                 organiser: str | None = None) -> Server:
    """``tourney serve folder --game battleline`` on a free loopback port, ready to answer
    (``organiser``: the token of a competition made before, which the server does not print).
    """
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "harness.cli.app", "serve", str(folder), "--game", GAME,
             "--host", HOST, "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    end = time.monotonic() + timeout
    while time.monotonic() < end and process.poll() is None:
        text = log.read_text(errors="replace")
        found = re.search(r"serving on (http://127\.0\.0\.1:\d+)", text)
        token = re.search(r"organiser token \(shown once; keep it\): (tny_\S+)", text)
        known = organiser or (token.group(1) if token else None)
        if found and known:
            try:
                if httpx.get(found.group(1) + "/health", timeout=5.0).status_code == 200:
                    return Server(process, found.group(1), known, log)
            except httpx.HTTPError:
                pass
        time.sleep(0.1)
    stop_server(process, 5.0)
    raise LoadError(f"tourney serve did not start within {timeout:.0f} s:\n{_tail(log)}")


def stop_server(process: subprocess.Popen[bytes], timeout: float = STOP_SECONDS
                ) -> tuple[int | None, bool, float]:
    """SIGINT, as Ctrl-C stops it; killed if it has not exited within ``timeout``. Returns
    (its exit code, whether it was killed, the seconds it took)."""
    t0 = time.perf_counter()
    killed = False
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            killed = True
            process.kill()
            process.wait()
    return process.returncode, killed, time.perf_counter() - t0


def _tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def server_errors(log: Path, limit: int = 80) -> list[str]:
    """The server's error lines (``error: GET /path failed: ...``, :mod:`harness.serve.errors`)
    with the traceback logged the first time a cause is seen: at most ``limit`` lines."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return []
    out: list[str] = []
    traceback = 0  # lines still taken after an error line that has its traceback
    for k, line in enumerate(lines):
        if line.startswith("error: "):
            out.append(line)
            traceback = 60 if line.endswith("shown once:") else 0
        elif traceback:
            out.append(line)
            traceback -= 1
            chained = k + 2 < len(lines) and not lines[k + 1].strip() and \
                lines[k + 2].startswith(("During handling", "The above exception"))
            if line.strip() and not line.startswith((" ", "Traceback", "During handling",
                                                     "The above exception")) and not chained:
                traceback = 0  # the last exception's own line ends the traceback
    if len(out) > limit:
        out = [*out[:limit], f"... and {len(out) - limit:,} more lines"]
    return out


def stored_games(folder: Path) -> int:
    """Rows in the league's committed games files (from their footers)."""
    import pyarrow.parquet as pq

    from harness.league import store

    total = 0
    for path in store.batch_files(folder / "games"):
        with contextlib.suppress(OSError):  # a file read while being replaced: counted next time
            total += pq.ParquetFile(path).metadata.num_rows
    return total


def version_statuses(folder: Path, entrants: Sequence[str]) -> Counter[str]:
    """How many versions of these entrants are in each status (read with the server stopped)."""
    from harness.arena.registry import Registry

    with Registry.open(folder) as registry:
        return Counter(v.status for v in registry.versions() if v.entrant in set(entrants))


# ----------------------------------------------------------------------------- the clients


def bot_code(first: bool, note: str) -> bytes:
    """A small bot: its first or last legal action; ``note`` makes the code new."""
    pick = 0 if first else -1
    return (f"# {note}\n"
            f"def act(observation, legal_actions):\n"
            f"    return legal_actions[{pick}]\n").encode()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _json(response: httpx.Response, status: int, what: str) -> dict[str, Any]:
    if response.status_code != status:
        raise LoadError(f"{what}: the server answered {response.status_code}: "
                        f"{response.text[:300]}")
    body = response.json()
    if not isinstance(body, dict):
        raise LoadError(f"{what}: the answer is not a JSON object: {response.text[:300]}")
    return body


def board_problem(body: Any, required: Sequence[str]) -> str:
    """Why a leaderboard answer is not a valid one with ``required`` on it ('' when it is)."""
    if not isinstance(body, dict) or not isinstance(body.get("entrants"), list):
        return "not an object with a list of entrants"
    names = set()
    for row in body["entrants"]:
        if not isinstance(row, dict) or not isinstance(row.get("entrant"), str) or \
                not isinstance(row.get("games"), int) or not isinstance(row.get("rank"), int):
            return f"a malformed row: {str(row)[:200]}"
        names.add(row["entrant"])
    missing = [n for n in required if n not in names]
    return f"missing entrants {missing}" if missing else ""


async def _board(client: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    """The leaderboard's rows by entrant."""
    body = _json(await client.get("/api/leaderboard"), 200, "the leaderboard")
    return {row["entrant"]: row for row in body["entrants"]}


async def _wait_for(client: httpx.AsyncClient, entrant: str, since: float, timeout: float,
                    games: bool) -> tuple[float, float]:
    """Seconds from ``since`` until ``entrant``'s bot was active, and (``games``) until it had
    played: (active, played), NaN for what was not waited for."""
    end = time.monotonic() + timeout
    active = math.nan
    while time.monotonic() < end:
        row = (await _board(client)).get(entrant)
        now = time.perf_counter() - since
        if row is not None and row["status"] == "failed":
            raise LoadError(f"{entrant}'s bot failed its entry check; is this machine able to "
                            f"run bots (tourney doctor)?")
        if row is not None and row["status"] == "active" and math.isnan(active):
            active = now
        if not math.isnan(active) and (not games or (row is not None and row["games"] > 0)):
            return active, now if games else math.nan
        await asyncio.sleep(0.1)
    raise LoadError(f"{entrant}'s bot was not {'playing' if games else 'active'} within "
                    f"{timeout:.0f} s")


def _client(url: str, timeout: float, tls: ssl.SSLContext,
            headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    """One simulated client: its own connection. Every client shares one TLS context (never
    used on http://): httpx would otherwise load the CA bundle for each, about 0.1 s of the
    event loop apiece, which stalled every other client while 60 were made."""
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    return httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits, verify=tls,
                             headers=headers)


async def _poller(client: httpx.AsyncClient, end: float, most: int, calls: Calls,
                  result: Result) -> None:
    """Ask for the leaderboard back to back until ``end`` (or ``most`` requests)."""
    for _ in range(most):
        if time.monotonic() >= end:
            return
        t0 = time.perf_counter()
        try:
            response = await client.get("/api/leaderboard")
        except httpx.HTTPError as exc:
            calls.failed[type(exc).__name__] += 1
            await asyncio.sleep(0.1)  # no spinning on a server that is gone
            continue
        calls.seconds.append(time.perf_counter() - t0)
        calls.status[response.status_code] += 1
        if response.status_code == 200:
            try:
                problem = board_problem(response.json(), SEEDS)
            except ValueError:
                problem = f"not JSON: {response.text[:200]!r}"
            if problem:
                result.invalid += 1
                if len(result.invalid_examples) < BAD_KEPT:
                    result.invalid_examples.append(problem)


async def _uploader(client: httpx.AsyncClient, entrant: str, first: float, every: float,
                    end: float, calls: Calls, result: Result) -> None:
    """Send a new bot of ``entrant``'s (``client`` carries its token) at ``first``,
    ``first + every``, ... until ``end``."""
    most = math.ceil(max(0.0, end - first) / every) + 1
    for n in range(most):
        at = first + n * every
        if at >= end:
            return
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        name = f"{entrant}-{n}.py"
        code = bot_code(n % 2 == 0, f"load test: {entrant}, upload {n}, {time.time_ns()}")
        t0 = time.perf_counter()
        try:
            response = await client.post("/api/submissions", files={"bot": (name, code)})
        except httpx.HTTPError as exc:
            calls.failed[type(exc).__name__] += 1
            continue
        calls.seconds.append(time.perf_counter() - t0)
        calls.status[response.status_code] += 1
        if response.status_code == 202:
            result.accepted[entrant] += 1


async def _lag(end: float, calls: Calls, every: float = LAG_EVERY) -> None:
    """How late the client's event loop wakes a sleeper: the share of the latencies that is
    the client's own queueing rather than the server's."""
    for _ in range(math.ceil(max(0.0, end - time.monotonic()) / every) + 1):
        if time.monotonic() >= end:
            return
        t0 = time.perf_counter()
        await asyncio.sleep(every)
        calls.seconds.append(max(0.0, time.perf_counter() - t0 - every))


async def drive(server: Server, folder: Path, result: Result, *, request_timeout: float,
                first_game_timeout: float) -> None:
    """Set the competition up, measure upload to first game, then run the load."""
    tls = ssl.create_default_context()
    async with httpx.AsyncClient(base_url=server.url, timeout=request_timeout, verify=tls,
                                 headers=_bearer(server.organiser)) as admin:
        _json(await admin.post("/api/admin/settings",
                               json={"submissions_per_day": 10_000, "total_mb": 10_000}),
              200, "raising the limits")
        uploaders = [f"load-{k:02d}" for k in range(result.uploaders)]
        tokens = {}
        for name in (*SEEDS, *uploaders):
            made = _json(await admin.post("/api/admin/entrants", json={"name": name}), 201,
                         f"adding {name}")
            tokens[name] = str(made["token"])

        async def seed(k: int) -> None:
            code = bot_code(k == 0, f"seed {k}")
            _json(await admin.post("/api/submissions", files={"bot": (f"seed{k}.py", code)},
                                   headers=_bearer(tokens[SEEDS[k]])), 202, f"seed upload {k}")

        await seed(0)
        await _wait_for(admin, SEEDS[0], time.perf_counter(), first_game_timeout, games=False)
        t0 = time.perf_counter()
        await seed(1)
        result.checked, result.first_game = await _wait_for(
            admin, SEEDS[1], t0, first_game_timeout, games=True)

        async with contextlib.AsyncExitStack() as stack:
            # every client made before the clock starts
            pollers = [await stack.enter_async_context(
                _client(server.url, request_timeout, tls)) for _ in range(result.pollers)]
            senders = [await stack.enter_async_context(
                _client(server.url, request_timeout, tls, _bearer(tokens[name])))
                for name in uploaders]
            before = await _board(admin)
            result.stored_games = (stored_games(folder), 0)
            start = time.monotonic()
            end = start + result.seconds
            most = max(1, math.ceil(result.seconds * MOST_PER_SECOND))
            tasks = [_poller(client, end, most, result.board, result) for client in pollers]
            tasks += [_uploader(client, name,
                                start + k * result.upload_every / max(1, len(uploaders)),
                                result.upload_every, end, result.uploads, result)
                      for k, (client, name) in enumerate(zip(senders, uploaders, strict=True))]
            tasks.append(_lag(end, result.lag))
            try:
                await asyncio.wait_for(asyncio.gather(*tasks),
                                       result.seconds + request_timeout + 30)
            except TimeoutError:
                result.overran = True
            result.elapsed = time.monotonic() - start
        after = await _board(admin)
        result.stored_games = (result.stored_games[0], stored_games(folder))
        result.board_games = (sum(r["games"] for r in before.values()) / 2,
                              sum(r["games"] for r in after.values()) / 2)


def measure(seconds: float = SECONDS, pollers: int = POLLERS, uploaders: int = UPLOADERS, *,
            upload_every: float = UPLOAD_EVERY, root: Path | None = None,
            start_timeout: float = START_TIMEOUT, request_timeout: float = REQUEST_TIMEOUT,
            first_game_timeout: float = FIRST_GAME_TIMEOUT) -> Result:
    """One load test on a fresh competition in a temporary folder (under ``root``), removed
    after."""
    if seconds <= 0 or pollers < 0 or uploaders < 0 or upload_every <= 0:
        raise ValueError("seconds and upload_every must be positive, pollers and uploaders "
                         "at least 0")
    result = Result(seconds, pollers, uploaders, upload_every)
    tmp = Path(tempfile.mkdtemp(prefix="tourney-bench-serve-", dir=root))
    folder, log = tmp / "contest", tmp / "serve.log"
    server: Server | None = None
    try:
        t0 = time.perf_counter()
        server = start_server(folder, log, start_timeout)
        result.started = time.perf_counter() - t0
        asyncio.run(drive(server, folder, result, request_timeout=request_timeout,
                          first_game_timeout=first_game_timeout))
    except LoadError as exc:
        raise LoadError(f"{exc}\nthe server's output ends:\n{_tail(log)}") from None
    finally:
        if server is not None:
            result.exit_code, result.killed, result.stop_seconds = stop_server(server.process)
            result.log_tail = _tail(log)
            with contextlib.suppress(Exception):
                result.versions = version_statuses(
                    folder, [f"load-{k:02d}" for k in range(uploaders)])
        shutil.rmtree(tmp, ignore_errors=True)
    return result


# ----------------------------------------------------------------------------- the figures


def _counts(counter: Counter[Any]) -> str:
    return ", ".join(f"{key} {n:,}" for key, n in sorted(counter.items())) or "none"


def _line(name: str, text: str) -> None:
    """A figure that is a count or words, in the format :func:`bench.figure` prints."""
    print(f"  {name}: {text}", flush=True)


def _latencies(what: str, calls: Calls) -> None:
    from bench import figure

    if not calls.seconds:
        _line(f"{what} latency", "no answers")
        return
    for q in (50, 90, 99):
        figure(f"{what} latency p{q}", calls.percentile(q) * 1e3, "ms")
    figure(f"{what} latency max", max(calls.seconds) * 1e3, "ms")


def report(r: Result) -> None:
    """Print a run's figures in the bench's format."""
    from bench import figure

    figure("server start", r.started, "s", "until /health answers")
    figure("upload to active", r.checked, "s", "the second seed: its entry check passed")
    figure("upload to first game", r.first_game, "s",
           "the second seed's POST until the leaderboard shows its games")
    _line("load", f"{r.pollers} leaderboard pollers + {r.uploaders} uploaders (one upload "
                  f"every {r.upload_every:g} s each) for {r.seconds:g} s; took {r.elapsed:.1f} s"
                  f"{'; OVERRAN its bound' if r.overran else ''}")
    span = r.elapsed if r.elapsed > 0 else r.seconds
    _line("leaderboard requests", f"{r.board.answered:,} answered ({_counts(r.board.status)} "
                                  f"by status)")
    figure("leaderboard requests/s", r.board.answered / span, "req/s")
    _latencies("leaderboard", r.board)
    _line("leaderboard errors", f"{r.board.server_errors:,} 5xx; "
                                f"{sum(r.board.failed.values()):,} with no answer "
                                f"({_counts(r.board.failed)})")
    _line("leaderboard invalid answers",
          f"{r.invalid:,}" + (f" ({'; '.join(r.invalid_examples)})" if r.invalid else
                              " (every 200 a leaderboard with the seeds on it)"))
    accepted, limited = r.uploads.status.get(202, 0), r.uploads.status.get(429, 0)
    other = r.uploads.answered - accepted - limited
    _line("uploads", f"{r.uploads.answered:,} answered: {accepted:,} accepted (202), "
                     f"{limited:,} rate-limited (429), {other:,} other "
                     f"({_counts(r.uploads.status)} by status)")
    figure("uploads/s", r.uploads.answered / span, "req/s")
    _latencies("upload", r.uploads)
    _line("upload errors", f"{r.uploads.server_errors:,} 5xx; "
                           f"{sum(r.uploads.failed.values()):,} with no answer "
                           f"({_counts(r.uploads.failed)})")
    if r.lag.seconds:
        _line("client event-loop lag", f"p50 {r.lag.percentile(50) * 1e3:,.1f} ms, p99 "
                                       f"{r.lag.percentile(99) * 1e3:,.1f} ms, max "
                                       f"{max(r.lag.seconds) * 1e3:,.1f} ms (the client's own "
                                       f"share of the latencies above)")
    _line("uploaders' versions at the end", _counts(r.versions))
    games = r.board_games[1] - r.board_games[0]
    figure("games stored during the load (leaderboard)", games, "games",
           f"sum of games / 2: {r.board_games[0]:,.0f} -> {r.board_games[1]:,.0f}; "
           f"{games / span:.1f} games/s")
    rows = r.stored_games[1] - r.stored_games[0]
    _line("games stored during the load (games files)",
          f"{rows:,} games ({r.stored_games[0]:,} -> {r.stored_games[1]:,} rows; these also "
          f"count the games of versions an upload replaced)")
    figure("server stop after SIGINT", r.stop_seconds, "s",
           f"exit code {r.exit_code}{', killed' if r.killed else ''}")


def main(argv: Sequence[str] | None = None) -> None:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if "--games-only" in args_in:  # the stored games' bench alone
        main_games([a for a in args_in if a != "--games-only"])
        return
    argv = args_in
    parser = argparse.ArgumentParser(prog="python -m bench.serve",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=None,
                        help=f"the load's duration (default {SECONDS:g}; quick 15)")
    parser.add_argument("--pollers", type=int, default=POLLERS,
                        help=f"clients polling the leaderboard (default {POLLERS})")
    parser.add_argument("--uploaders", type=int, default=UPLOADERS,
                        help=f"clients uploading bots, each its own entrant (default "
                             f"{UPLOADERS})")
    parser.add_argument("--upload-every", type=float, default=UPLOAD_EVERY,
                        help=f"seconds between one uploader's uploads (default "
                             f"{UPLOAD_EVERY:g}: within the server's 6 a minute; less "
                             f"to see 429s)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    seconds = args.seconds or (15.0 if args.quick else SECONDS)
    try:
        result = measure(seconds, args.pollers, args.uploaders, upload_every=args.upload_every)
    except LoadError as exc:
        raise SystemExit(f"bench serve: {exc}") from None
    report(result)


# ============================================================================= stored games
# (issue 45)

BOTS = 100
STORED_GAMES = 1_000_000
QUICK_GAMES = 50_000
PHASE_SECONDS = 20.0  # each phase of the stored games' bench
QUICK_PHASE_SECONDS = 5.0
QUICK_POLLERS = 10
READERS = 2  # accounts per kind of read
READ_EVERY = 0.3  # one account's pace: about 33 requests in 10 s, within the server's 40
FLOOD = 40  # made-up ids under way at once
TARGET_MS = 100.0  # p99 of each kind of read
TARGET_SHARE = 0.8  # the leaderboard's throughput under the flood, of the base's
KINDS = ("entrant page", "replay", "log", "made-up id")
GAMES_START_TIMEOUT = 600.0  # the server's start on a large folder (its index caught up)


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
    errors: list[str] = field(default_factory=list)  # the server's error lines (see above)

    def server_errors(self) -> int:
        """The answers with a 5xx status, of every kind of request."""
        phases = (self.base, self.reads, self.mix, self.flood)
        return sum(c.server_errors for c in (*(p.board for p in phases),
                                             *self.kinds.values(), *self.mixed.values(),
                                             self.flooded))


# ------------------------------------------------------------------ stored games: the folder


def _cached(games: int, say: bool = True) -> Path:
    """The synthetic league of this size (made once), with its index built."""
    from bench import arena
    from harness.arena.registry import Registry
    from harness.league.index import INDEX_FILE, GameIndex

    folder = arena.default_folder(BOTS, games, 1)
    arena.ensure(folder, BOTS, games, 1, say=lambda s: print(s, flush=True) if say else None)
    with Registry.open(folder) as registry:  # every pair chosen is stored, as after a run
        if registry.complete_through() < registry.last_seq():
            registry.set_complete_through(registry.last_seq())
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


# ------------------------------------------------------------------ stored games: the clients


async def _poll_board(client: httpx.AsyncClient, end: float, calls: Calls) -> None:
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


async def drive_games(server: Server, tokens: dict[str, str], result: ScaleResult,
                      seconds: float, pollers: int) -> None:
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
        # one request of each kind first: the server's first replay imports the game engine
        # and compiles the viewer's template (about 0.25 s, once a start), not measured here
        for kind in KINDS:
            for client, mine in zip(readers[kind], paths[kind], strict=True):
                await client.get(mine[0])
        await asyncio.sleep(READ_SECONDS + 1)  # the set-up's requests out of every window

        async def phase(into: Phase, extra: Sequence[asyncio.Future[None]] | None = None,
                        end: float = 0.0, polled: bool = True) -> None:
            t0 = time.monotonic()
            tasks = [asyncio.ensure_future(_poll_board(c, end, into.board)) for c in clients
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


def measure_games(games: int = STORED_GAMES, seconds: float = PHASE_SECONDS,
                  pollers: int = POLLERS, *,
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
        server = start_server(folder, log, GAMES_START_TIMEOUT, organiser=organiser)
        result.started = time.perf_counter() - t0
        asyncio.run(drive_games(server, tokens, result, seconds, pollers))
    except LoadError as exc:
        raise LoadError(f"{exc}\nthe server's output ends:\n{_tail(log)}") from None
    finally:
        result.load = (result.load[0], os.getloadavg()[0])
        if server is not None:
            result.exit_code, result.killed, _ = stop_server(server.process)
            result.log_tail = _tail(log)
            result.errors = server_errors(log)
        with contextlib.suppress(Exception):
            result.stored = (result.stored[0], stored_games(folder))
            result.files_after = len(store.batch_files(folder / "games"))
        shutil.rmtree(tmp, ignore_errors=True)
    return result


# ------------------------------------------------------------------ stored games: the figures


def report_games(r: ScaleResult, pollers: int) -> None:
    from bench import figure

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
    if r.server_errors() or r.errors:  # a 5xx is a server bug: what the server said of it
        _line("server errors", f"{r.server_errors():,} answers 5xx; the server's log says:")
        for line in r.errors or ["(no error lines; its output ends:)",
                                 *r.log_tail.splitlines()]:
            print(f"    {line}", flush=True)


def main_games(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.serve --games-only",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=None,
                        help=f"stored games (default {STORED_GAMES:,}; quick {QUICK_GAMES:,})")
    parser.add_argument("--seconds", type=float, default=None,
                        help=f"each phase (default {PHASE_SECONDS:g}; quick "
                             f"{QUICK_PHASE_SECONDS:g})")
    parser.add_argument("--pollers", type=int, default=None,
                        help=f"leaderboard pollers (default {POLLERS}; quick {QUICK_POLLERS})")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    games = args.games or (QUICK_GAMES if args.quick else STORED_GAMES)
    seconds = args.seconds or (QUICK_PHASE_SECONDS if args.quick else PHASE_SECONDS)
    pollers = args.pollers or (QUICK_POLLERS if args.quick else POLLERS)
    print(f"  the stored games at scale: {games:,} games, {pollers} leaderboard pollers, "
          f"{seconds:g} s a phase", flush=True)
    try:
        result = measure_games(games, seconds, pollers)
    except LoadError as exc:
        raise SystemExit(f"bench serve: {exc}") from None
    report_games(result, pollers)


def run(quick: bool) -> None:
    """Entry point for a bench section (``make bench``): the load on a new competition,
    then the stored games at scale (:func:`measure_games`)."""
    main(["--quick"] if quick else [])
    main_games(["--quick"] if quick else [])


if __name__ == "__main__":
    main()
