"""Dask back end: a league's games run on the workers of a ``dask.distributed`` scheduler.

:class:`DaskExecutor` is an executor like the local ones (:mod:`harness.run.base`: GameSpecs
in, GameRecords out, one record per game). What travels:

- to each worker, once: every bot *file* of the league, as a worker plugin named after the
  sha256 of its bytes (:class:`BotFilePlugin`), and every bot *directory* as one archive named
  after its content hash (:class:`BotDirectoryPlugin`). The scheduler hands the plugin to every
  worker that is connected now or joins later; the worker writes the bytes into its own cache
  directory (``<worker local directory>/tourney-bots/<sha256>/<file or directory name>``).
  Registering is idempotent, so a second league with the same bots sends nothing again. Workers
  need no shared file system, only ``tourney`` installed (``pip install '.[dask]'`` from a clone).
- with each task: a few :class:`Task` (a :class:`~harness.records.GameSpec` plus, per seat, the
  hash of its file, :class:`ShippedBot`). The worker rewrites each seat's spec to its cached
  copy and calls :func:`harness.match.referee.play_game`, which always returns a record (a crashing
  bot is a game result, not a task failure). Games between in-process built-ins are batched
  (:func:`make_batches`): one alone takes less time than the scheduler's round trip.
- back to the client: the :class:`~harness.records.GameRecord` (packed, with the bots' logs),
  which the league stores exactly as in a local run; the client writes the logs.

Built-in bots (``random``, ``greedy``) resolve on the worker by name; external commands
(``cmd:...``) must exist on every worker.

Faults: a worker that dies mid-game costs nothing (the scheduler runs its games elsewhere; each
task completes once, so each game is stored once); a game that keeps killing workers, or hangs
past its deadline (:class:`Watchdog`), is recorded void; losing the scheduler ends the run with
:class:`ClusterLost`, the games already received are stored and the league resumes like a
local one.

This module imports ``distributed`` at the top: import it only when a cluster is asked for.
What travels is :mod:`harness.run.dask.shipping`'s; :class:`harness.run.dask.cluster.
LocalDaskProcesses` starts a scheduler and workers on 127.0.0.1 (tests, bench).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import cloudpickle  # type: ignore[import-untyped]  # ships no type information
from distributed import Client, Future, as_completed, get_worker

from harness.bots.spec import is_sandboxed
from harness.match.referee import write_logs
from harness.records import (
    DISTRIBUTION,
    BotRef,
    GameRecord,
    GameSpec,
    PackedRecord,
    Termination,
    pack_record,
    unpack_record,
)
from harness.run.base import Deadlines, default_play, safe_play, void_record
from harness.run.dask import ClusterError, ClusterLost, IsolationRefused

if TYPE_CHECKING:
    from harness.run.base import DeadlineFn, PlayFn

from harness.run.dask.shipping import (
    BotPlugin,
    Task,
    cache_root,
    collect_bot_files,
    localize_spec,
)

CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler
WORKER_WAIT = 30.0  # seconds to wait for a first worker to join an empty scheduler
MAX_BATCH = 20  # most games per task (games between in-process bots)
TASKS_PER_THREAD = 8  # tasks per worker thread at least, when batching


Packed = bytes  # a record as :func:`harness.records.pack_record` packs it for the trip back


def isolation_refused() -> str:
    """On a worker: why it may not play a league that requires isolation ("" if it may)."""
    from harness.bots import isolation, sandbox

    missing = isolation.missing(sandbox.report())
    if not missing:
        return ""
    return (f"--require-isolation: the Dask worker on {socket.gethostname()} does not give bots "
            f"{'; '.join(missing)}; run its workers as root on a Linux host that allows "
            f"namespaces and cgroups, or take it out of the cluster")


def play_batch(tasks: list[Task], play: bytes | None = None,
               require_isolation: bool = False) -> list[Packed]:
    """The task a worker runs: a few games in a row, their bots read from the worker's cache.

    Returns the records packed as the local back end's workers pack them
    (:func:`harness.records.pack_record`).

    Never raises for a game: a bot's failure is in the record (the referee judges it) and a
    failure of the harness itself becomes a void record (:func:`harness.run.base.safe_play`),
    so no game spends Dask's retries; only a worker's death makes the scheduler run it again.
    ``play`` is a substitute referee pickled by cloudpickle (tests), None for the real one.
    With ``require_isolation`` a worker that cannot confine bots fully plays nothing and raises
    :class:`IsolationRefused`, which stops the league.
    """
    if require_isolation and (refused := isolation_refused()):
        raise IsolationRefused(refused)
    player = cloudpickle.loads(play) if play else default_play()
    root = cache_root(get_worker().local_directory)
    records: list[Packed] = []
    for task in tasks:
        try:
            local = localize_spec(task.spec, task.seats, root)
        except ClusterError as exc:
            records.append(pack_record(void_record(task.spec, Termination.CRASH, str(exc))))
            continue
        records.append(pack_record(safe_play(player, local)))
    return records


def runs_in_process(ref: BotRef) -> bool:
    """Whether the referee runs this bot inside its own process (a trusted, fast built-in)
    rather than sandboxed in a process of the bot's own."""
    return not is_sandboxed(ref.spec)


def batch_size(fast_games: int, threads: int) -> int:
    """Games per task for games between in-process bots (a few ms each).

    Alone, such a game would cost less than the scheduler's round trip; batched, each thread
    still gets about :data:`TASKS_PER_THREAD` tasks, for balance and fine-grained recovery.
    """
    return max(1, min(MAX_BATCH, fast_games // (TASKS_PER_THREAD * max(1, threads))))


def make_batches(tasks: list[Task], size: int) -> list[list[Task]]:
    """Tasks in schedule order: games with a sandboxed bot alone (they take seconds), games
    between in-process bots ``size`` at a time."""
    batches: list[list[Task]] = []
    fast: list[Task] = []
    for task in tasks:
        if all(runs_in_process(ref) for ref in task.spec.seats):
            fast.append(task)
            if len(fast) == size:
                batches.append(fast)
                fast = []
        else:
            batches.append([task])
    if fast:
        batches.append(fast)
    return batches


# --------------------------------------------------------------------------------------------
# Running games on a cluster


SCHEMES = ("tcp", "tls")


def check_address(address: str) -> str:
    """A scheduler address as Dask takes it (``tcp://HOST:PORT``), or one clear error."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    host, colon, port = rest.rpartition(":")
    if scheme not in SCHEMES or not colon or not host or not port.isdigit() \
            or not 0 < int(port) < 65536:
        raise ClusterError(
            f"--cluster {address!r} is not a Dask scheduler address; give tcp://HOST:PORT as "
            f"printed by `dask scheduler` (e.g. tcp://10.0.0.5:8786)"
        )
    return f"{scheme}://{rest}"


def connect(address: str, *, timeout: float = CONNECT_TIMEOUT,
            worker_wait: float = WORKER_WAIT) -> Client:
    """A client of the scheduler at ``address`` with at least one worker running tourney."""
    address = check_address(address)
    try:
        client = Client(  # type: ignore[no-untyped-call]  # distributed's __init__ is untyped
            address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address} within {timeout:.0f} s: start one "
            f"with `dask scheduler` and pass the tcp://HOST:PORT address it prints"
        ) from exc
    try:
        check_workers(client, address, worker_wait)
    except BaseException:
        client.close(timeout=5)  # type: ignore[no-untyped-call]  # untyped in distributed
        raise
    return client


def check_workers(client: Client, address: str, worker_wait: float) -> None:
    """At least one worker, and every worker runs the same tourney version as we do."""
    try:
        client.wait_for_workers(1, timeout=worker_wait)
    except TimeoutError as exc:
        raise ClusterError(
            f"the Dask scheduler at {address} has no workers after {worker_wait:.0f} s: "
            f"start some with `dask worker {address}`"
        ) from exc
    ours = importlib.metadata.version(DISTRIBUTION)
    try:
        theirs: dict[str, str] = client.run(importlib.metadata.version, DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError as exc:
        raise ClusterError(
            "a Dask worker has no tourney installed: pip install '.[dask]' from a "
            "clone of the same version on every worker machine"
        ) from exc
    wrong = {w: v for w, v in theirs.items() if v != ours}
    if wrong:
        worker, version = sorted(wrong.items())[0]
        raise ClusterError(
            f"Dask worker {worker} runs tourney {version}, this client {ours}: install the "
            f"same version everywhere"
        )


def ship_bots(client: Client, plugins: dict[str, BotPlugin]) -> None:
    """Register each bot file's plugin (idempotent: files already there are not re-sent)."""
    for plugin in plugins.values():
        client.register_plugin(plugin, name=plugin.name)


def executing_keys(dask_worker: Any) -> list[str]:
    """The keys of the tasks a worker is running right now (run on workers by the watchdog)."""
    return [str(ts.key) for ts in dask_worker.state.executing]


class Watchdog:
    """A thread that finds tasks running past their deadline and hands them to ``expire``.

    It asks every worker what it is *executing* (not merely assigned), notes when it first saw
    each task running, and calls ``expire(key, worker)`` once for a task past
    ``deadline_of(key)`` (None: not one of ours). ``expired`` maps each expired key to the
    seconds it had run.
    """

    def __init__(self, client: Client, deadline_of: Callable[[str], float | None],
                 expire: Callable[[str, str], None], poll_seconds: float) -> None:
        self.client = client
        self.deadline_of = deadline_of
        self.expire = expire
        self.poll_seconds = poll_seconds
        self.started: dict[str, float] = {}
        self.expired: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tourney-watchdog", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, wait: bool = True) -> None:
        """Stop the thread; ``wait``: until its last look at the workers is over."""
        self._stop.set()
        if wait and self._thread.is_alive():
            self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.check(time.monotonic())
            except Exception:
                if self.client.status != "running":
                    return  # a lost scheduler is the main loop's to report

    def check(self, now: float) -> None:
        """One look at the workers."""
        running: dict[str, list[str]] = self.client.run(executing_keys, on_error="return")
        for worker, keys in running.items():
            if not isinstance(keys, list):  # that worker did not answer
                continue
            for key in keys:
                limit = self.deadline_of(key)
                if limit is None or key in self.expired:
                    continue
                ran = now - self.started.setdefault(key, now)
                if ran > limit:
                    self.expired[key] = ran
                    self.expire(key, worker)


class DaskExecutor:
    """Games in, records out, on the workers of one Dask scheduler (an executor, see
    :mod:`harness.run.base` for the contract).

    ``run`` ships the bot files, submits every game and yields records in completion order.
    Each game yields exactly one record: a worker that dies mid-game has its games run again
    elsewhere by the scheduler, and a game that kept killing workers (Dask's
    ``allowed-failures``, 3 by default) is recorded void (``crash``). Losing the scheduler
    raises :class:`ClusterLost` after the records already received.

    ``log_dir``: where the bots' captured output is written, as in a local run; the workers keep
    nothing, the logs come back inside the records and are written here by the client.
    ``batch``: games per task between in-process bots (default: :func:`batch_size`); a game
    with a sandboxed bot is always a task of its own.

    A watchdog thread asks the workers every ``watchdog_seconds`` what they are running; a task
    running past its deadline (``deadline`` per game, by default
    :func:`harness.run.base.game_deadline`, summed over a batch) is cancelled and its worker
    process ended (a thread cannot be killed; the worker's nanny starts a fresh one, and the
    scheduler moves the worker's other tasks elsewhere); a batch's games are then retried one by
    one and a game that hangs alone is recorded void (``timeout``).
    """

    def __init__(self, address: str, play: PlayFn | None = None, *,
                 log_dir: Path | None = None, batch: int | None = None,
                 deadline: DeadlineFn | float | None = None, watchdog_seconds: float = 2.0,
                 connect_timeout: float = CONNECT_TIMEOUT,
                 worker_wait: float = WORKER_WAIT, require_isolation: bool = False) -> None:
        self.address = address
        self.require_isolation = require_isolation
        self.log_dir = log_dir
        self.batch = batch
        self.watchdog_seconds = watchdog_seconds
        self._deadlines = Deadlines(deadline)
        self.lost = False
        self._play = play
        self._closed = False
        self._expired: dict[str, float] = {}
        self.client = connect(address, timeout=connect_timeout, worker_wait=worker_wait)

    @property
    def workers(self) -> int:
        """Games the cluster plays at once: the threads of all its workers."""
        info = self.client.scheduler_info(n_workers=-1).get("workers", {})
        return sum(int(w.get("nthreads", 1)) for w in info.values())

    def records(self, specs: Iterable[GameSpec]
                ) -> Generator[GameRecord | PackedRecord, None, None]:
        yield from self.run(specs)

    def run(self, specs: Iterable[GameSpec]) -> Generator[GameRecord, None, None]:
        todo = list(specs)
        if not todo:
            return
        plugins, shipped = collect_bot_files(todo)
        ship_bots(self.client, plugins)
        tasks = [Task(spec, tuple(shipped.get(ref.spec) for ref in spec.seats)) for spec in todo]
        fast = sum(all(runs_in_process(ref) for ref in spec.seats) for spec in todo)
        size = self.batch if self.batch is not None else batch_size(fast, self.workers)
        # cloudpickle by hand: Dask's own pickling sends nested functions by reference only.
        play = cloudpickle.dumps(self._play) if self._play is not None else None
        run_id = uuid.uuid4().hex[:8]
        batches: dict[str, list[Task]] = {}
        live: dict[str, Future[list[Packed]]] = {}

        def submit(batch: list[Task]) -> Future[list[Packed]]:
            key = f"tourney-{batch[0].spec.game_id}-{len(batch)}-{run_id}"
            batches[key] = batch
            live[key] = self.client.submit(play_batch, batch, play, self.require_isolation,
                                           key=key, pure=False, retries=0)
            return live[key]

        def deadline_of(key: str) -> float | None:
            batch = batches.get(key)
            return None if batch is None else sum(self._deadline_of(t.spec) for t in batch)

        def expire(key: str, worker: str) -> None:
            future = live.get(key)
            if future is not None:
                self.client.cancel([future])  # type: ignore[no-untyped-call]  # untyped
            with contextlib.suppress(Exception):  # the worker dies with the call
                self.client.run(os._exit, 70, workers=[worker], on_error="ignore")

        pending = as_completed(  # type: ignore[no-untyped-call]  # untyped upstream
            [submit(batch) for batch in make_batches(tasks, size)], loop=self.client.loop)
        watchdog = Watchdog(self.client, deadline_of, expire, self.watchdog_seconds)
        self._expired = watchdog.expired
        watchdog.start()
        seen: set[str] = set()
        try:
            for future in pending:
                batch = batches.pop(str(future.key))
                live.pop(str(future.key), None)
                records = self._records(future, batch)
                future.release()
                if records is None:  # a batch that failed as a whole: retry its games alone
                    for task in batch:
                        pending.add(submit([task]))  # type: ignore[no-untyped-call]  # untyped
                    continue
                for record in records:
                    if record.game_id in seen:  # never yield a game twice
                        continue
                    seen.add(record.game_id)
                    if self.log_dir is not None:
                        write_logs(self.log_dir, record)
                    yield record
        finally:
            watchdog.stop(wait=not self.lost)
            if live and not self.lost:  # the caller stopped early: drop the rest
                with contextlib.suppress(Exception):
                    self.client.cancel(  # type: ignore[no-untyped-call]  # untyped upstream
                        list(live.values()))

    def _deadline_of(self, spec: GameSpec) -> float:
        return self._deadlines(spec)

    def _records(self, future: Future[list[Packed]],
                 batch: list[Task]) -> list[GameRecord] | None:
        """The records of a finished batch; None when a batch of several games failed (they
        are retried one by one); a lost scheduler is a :class:`ClusterLost`."""
        try:
            packed: list[Packed] = future.result()
        except IsolationRefused:
            raise  # one line, and the league stops with what it stored
        except Exception as exc:
            ran = self._expired.get(str(future.key))
            if ran is not None:  # cancelled by the watchdog
                if len(batch) > 1:
                    return None
                limit = self._deadline_of(batch[0].spec)
                return [void_record(batch[0].spec, Termination.TIMEOUT,
                                    f"the game ran past the watchdog's limit of {limit:.0f} s; "
                                    f"its Dask worker was ended", ran)]
            if future.status != "error":
                self.lost = True
                raise ClusterLost(
                    f"lost the Dask scheduler at {self.address}; the games finished so far are "
                    f"stored: restart the scheduler and workers and rerun the same command to "
                    f"resume"
                ) from exc
            if len(batch) > 1:
                return None
            # This game killed worker after worker (Dask's allowed-failures): record it void.
            return [void_record(batch[0].spec, Termination.CRASH,
                                f"the game failed on the Dask workers: "
                                f"{exc.__class__.__name__}: {exc}")]
        return [unpack_record(item) for item in packed]

    def close(self) -> None:
        """Disconnect (safe twice); after a lost scheduler, without distributed's tracebacks."""
        if self._closed:
            return
        self._closed = True
        quiet = _quiet_logs() if self.lost else contextlib.nullcontext()
        with quiet, contextlib.suppress(Exception):
            self.client.close(timeout=5)  # type: ignore[no-untyped-call]  # untyped upstream

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


@contextlib.contextmanager
def _quiet_logs() -> Iterator[None]:
    """Silence distributed's loggers for a moment (its reconnection tracebacks after a lost
    scheduler; dask configures the level of each of its loggers, so each one is disabled)."""
    loggers = [logging.getLogger(name) for name in list(logging.Logger.manager.loggerDict)
               if name == "distributed" or name.startswith("distributed.")]
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, disabled in zip(loggers, before, strict=True):
            logger.disabled = disabled
