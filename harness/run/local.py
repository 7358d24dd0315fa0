"""Local back ends: GameSpecs in, GameRecords out, in this process or in worker processes.

The contract they keep is :mod:`harness.run.base`'s.

Local back ends
===============

* :class:`InlineExecutor` plays games one after another in the calling process: the fastest
  (no pickling), no watchdog (``--workers 0``).
* :class:`ProcessExecutor` runs ``workers`` worker processes (``multiprocess``, forked), each fed
  up to ``prefetch`` games through its own pipe (C pickles, several games a message; each record
  comes back as soon as its game ends, packed flat: :class:`PackedRecord`). A watchdog in the
  parent notices a worker that dies (its game is re-run up to ``retries`` times, then recorded
  void as ``crash``) and a game that runs past its deadline (the worker's process group is
  killed, the game recorded void as ``timeout``, a fresh worker started). Workers sit in their
  own process group, so Ctrl-C reaches only the parent, which then stops them; they die with the
  parent.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from harness.match import placement
from harness.records import (
    GameRecord,
    GameSpec,
    PackedRecord,
    Termination,
    pack_record,
    unpack_packed,
)
from harness.run.base import (
    DeadlineFn,
    Deadlines,
    Executor,
    PlayFn,
    default_play,
    safe_play,
    void_record,
)


class InlineExecutor:
    """Plays the games one by one in this process (fastest; no watchdog)."""

    def __init__(self, play: PlayFn | None = None) -> None:
        self._play = play

    @property
    def workers(self) -> int:
        return 1

    def run(self, specs: Iterable[GameSpec]) -> Generator[GameRecord, None, None]:
        play = self._play or default_play()
        for spec in specs:
            yield safe_play(play, spec)

    def records(self, specs: Iterable[GameSpec]
                ) -> Generator[GameRecord | PackedRecord, None, None]:
        yield from self.run(specs)

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


# ----------------------------------------------------------------------------- worker processes


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the league process dies (best effort elsewhere)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return


def _worker_main(conn: Any, play: PlayFn, inherited: list[Any], cpu: int | None = None) -> None:
    """A worker: play each spec received, send back its record; stop at None or EOF.

    ``inherited``: the parent's ends of every pipe, copied by fork; closing them here lets
    each worker see EOF as soon as the parent goes away. ``cpu``: the CPU this worker and the
    bots it starts keep to during a game with a sandboxed bot (see :mod:`harness.match.placement`),
    or None to let the kernel choose.
    """
    os.setpgrp()  # Ctrl-C goes to the parent only; the parent stops us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    for other in inherited:
        with contextlib.suppress(OSError):
            other.close()
    gc.freeze()  # the parent's objects: never scanned here, so never copied page by page
    prepare = getattr(play, "prepare", None)
    if callable(prepare):  # (harness.run.base.DefaultPlay: hide the outputs before any bot)
        prepare()
    keep_to = placement.Keeper()
    queue: collections.deque[GameSpec] = collections.deque()
    more = True  # until the parent says stop (None) or goes away
    ahead = ""  # the game whose bots' processes were made during the game before
    try:
        while True:
            if not queue:
                more = more and _receive(conn, queue)
                if not queue:
                    return
            spec = queue.popleft()
            if not queue and more and _readable(conn):  # the next games, if already sent
                more = _receive(conn, queue)
            keep_to(cpu if _has_sandboxed_seat(spec) else None)
            ahead = _make_ahead(spec, queue[0] if queue else None, ahead)
            record = safe_play(play, spec)  # each record goes back as soon as it is played
            try:  # (the watchdog times the head game)
                conn.send_bytes(pack_record(record))
            except (BrokenPipeError, OSError):
                return
    finally:
        if "harness.bots.spares" in sys.modules:
            from harness.bots import spares

            spares.drop()


def _make_ahead(spec: GameSpec, upcoming: GameSpec | None, ahead: str) -> str:
    """Before playing ``spec``: ask for the bots' processes of the game after it, to be made
    while this one is played (:mod:`harness.bots.spares`); a game takes the oldest that fit, so
    one whose own were not made ahead (``ahead`` names the game they were made for) asks for
    them first. Returns the game whose processes are made ahead now."""
    now = _has_sandboxed_seat(spec)
    later = upcoming is not None and _has_sandboxed_seat(upcoming)
    if not now and not later:
        return ""
    from harness.bots import spares

    if now and ahead != spec.game_id:
        spares.expect(spec)
    if upcoming is None or not later:
        return ""
    spares.expect(upcoming)
    return upcoming.game_id


def _receive(conn: Any, queue: collections.deque[GameSpec]) -> bool:
    """Wait for the parent's next message and queue its games; whether more may come (not after
    its stop, None, or when it is gone)."""
    try:
        specs = pickle.loads(conn.recv_bytes())
    except (EOFError, OSError):
        return False
    if specs is None:
        return False
    queue.extend(specs)
    return True


def _has_sandboxed_seat(spec: GameSpec) -> bool:
    from harness.bots.spec import is_sandboxed

    return any(is_sandboxed(seat.spec) for seat in spec.seats)


def _readable(conn: Any) -> bool:
    """Whether a record (or EOF) is waiting on ``conn``: one ``select`` call, far cheaper than
    ``Connection.poll`` (which builds a selector each time)."""
    return bool(select.select([conn.fileno()], [], [], 0)[0])


@dataclass
class _Worker:
    process: Any
    conn: Any
    queue: collections.deque[GameSpec] = field(default_factory=collections.deque)
    started: float = 0.0  # when the game at the head of the queue started (approximately)
    closed: bool = False  # its pipe reached EOF (the process is gone or going)
    cpu: int | None = None  # the CPU it is pinned to, if any

    @property
    def pid(self) -> int:
        return int(self.process.pid)


class ProcessExecutor:
    """``workers`` worker processes with a watchdog (see the module docstring)."""

    def __init__(self, workers: int | None = None, play: PlayFn | None = None, *,
                 deadline: DeadlineFn | float | None = None, retries: int = 1,
                 prefetch: int = 24, poll_seconds: float = 0.5,
                 min_wake: float = 0.02, persistent: bool = False) -> None:
        """``persistent``: idle workers outlive a :meth:`run` and play the next one's games
        (a living league runs one short list of games after another); :meth:`close` ends
        them."""
        import multiprocess

        self._ctx = multiprocess.get_context("fork")
        self._n = workers if workers is not None else placement.cpu_count()
        if self._n < 1:
            raise ValueError(f"workers must be at least 1 (got {self._n})")
        self._play = play
        self._deadlines = Deadlines(deadline)
        self._retries = retries
        self._prefetch = max(1, prefetch)
        self._poll = poll_seconds
        self._min_wake = min_wake
        self._last_wake = 0.0
        self._workers: list[_Worker] = []
        self._persistent = persistent

    @property
    def workers(self) -> int:
        return self._n

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (tests kill one to check the watchdog)."""
        return [w.pid for w in self._workers if w.process.is_alive()]

    def _deadline_of(self, spec: GameSpec) -> float:
        return self._deadlines(spec)

    def _spawn(self) -> _Worker:
        play = self._play or default_play()
        parent, child = self._ctx.Pipe(duplex=True)
        inherited = [parent, *(w.conn for w in self._workers)]
        cpu = placement.spare_cpu({w.cpu for w in self._workers}, self._n)
        proc = self._ctx.Process(target=_worker_main, args=(child, play, inherited, cpu),
                                 daemon=True, name="tourney-worker")
        before_fork = getattr(play, "before_fork", None)
        # (harness.run.base.DefaultPlay: hand over the bots' server) not from a persistent
        # pool's process, which plays games of its own meanwhile (the server's human seat)
        if callable(before_fork) and not self._persistent:
            before_fork()
        proc.start()
        child.close()
        worker = _Worker(proc, parent, cpu=cpu)
        self._workers.append(worker)
        return worker

    def _kill(self, worker: _Worker) -> None:
        """Kill a worker and everything it started (its bots), then reap it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(worker.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker.pid, signal.SIGKILL)
        worker.process.join(5)
        with contextlib.suppress(OSError):
            worker.conn.close()
        if worker in self._workers:
            self._workers.remove(worker)

    def run(self, specs: Iterable[GameSpec]) -> Generator[GameRecord, None, None]:
        with contextlib.closing(self.run_packed(specs)) as packed:
            for record in packed:
                yield record.record()

    def records(self, specs: Iterable[GameSpec]
                ) -> Generator[GameRecord | PackedRecord, None, None]:
        """:meth:`run_packed`: the league stores packed records as they are."""
        with contextlib.closing(self.run_packed(specs)) as packed:
            yield from packed

    def run_packed(self, specs: Iterable[GameSpec]) -> Generator[PackedRecord, None, None]:
        """:meth:`run`, yielding the records as the workers packed them (the league stores
        them as they are, which keeps this process's share of the CPU small)."""
        todo: collections.deque[GameSpec] = collections.deque(specs)
        deaths: dict[str, int] = collections.Counter()
        try:
            while len(self._workers) < min(self._n, len(todo)):
                self._spawn()
            while todo or any(w.queue for w in self._workers):
                self._feed(todo)
                self._pace()
                yield from self._collect(todo, deaths)
        finally:
            if self._persistent:  # a stop mid-run: the workers still playing are killed
                for worker in [w for w in self._workers if w.queue]:
                    self._kill(worker)
            else:
                self.close()

    def _pace(self) -> None:
        """Wake at most every ``min_wake`` seconds while every worker has games queued.

        Records then arrive a few at a time instead of one per wake-up, which keeps the parent's
        share of the CPU small (it competes with the workers for the same cores).
        """
        now = time.monotonic()
        wait = self._last_wake + self._min_wake - now
        if wait > 0 and all(len(w.queue) >= 2 for w in self._workers):  # none about to idle
            time.sleep(wait)
        self._last_wake = time.monotonic()

    def _feed(self, todo: collections.deque[GameSpec]) -> None:
        """Give every worker a game to play, then top up to ``prefetch`` each queue that ran
        down to half of it, sending each worker its new games as one message. Near the end of
        the run the queues are filled only to an even share of what is left, so no worker sits
        idle while another still has a long queue."""
        for worker in [w for w in self._workers if not w.queue]:
            if todo and not worker.process.is_alive():  # died idle: replace it, charge no game
                self._kill(worker)
                self._spawn()
        now = time.monotonic()
        chunks: dict[int, list[GameSpec]] = {}
        queued = sum(len(w.queue) for w in self._workers)
        share = -(-(len(todo) + queued) // max(1, len(self._workers)))  # rounded up
        depth_cap = max(1, min(self._prefetch, share))
        low = [w for w in self._workers if len(w.queue) <= depth_cap // 2]
        for depth in range(1, depth_cap + 1):
            for worker in low:
                if not todo:
                    break
                if len(worker.queue) >= depth:
                    continue
                spec = todo.popleft()
                if not worker.queue:
                    worker.started = now
                worker.queue.append(spec)
                chunks.setdefault(id(worker), []).append(spec)
        for worker in self._workers:  # one message per worker: its new games, in order
            chunk = chunks.get(id(worker))
            if chunk:
                with contextlib.suppress(BrokenPipeError, OSError):
                    # if it is dead, _collect notices and re-queues
                    worker.conn.send_bytes(pickle.dumps(chunk, pickle.HIGHEST_PROTOCOL))

    def _collect(self, todo: collections.deque[GameSpec],
                 deaths: dict[str, int]) -> Iterator[PackedRecord]:
        from multiprocess.connection import wait

        busy = [w for w in self._workers if w.queue]
        handles = [w.conn for w in busy] + [w.process.sentinel for w in busy]
        ready = set(wait(handles, timeout=self._poll)) if handles else set()
        now = time.monotonic()
        for worker in busy:
            if worker.conn in ready or worker.process.sentinel in ready:
                yield from self._drain(worker, now)
                if worker.closed or worker.process.sentinel in ready:  # it died
                    yield from self._lost(worker, todo, deaths)
                    continue
            if worker.queue and now - worker.started > self._deadline_of(worker.queue[0]):
                yield from self._hung(worker, todo, now)

    def _drain(self, worker: _Worker, now: float) -> Iterator[PackedRecord]:
        """Every record the worker has sent so far."""
        while worker.queue:
            try:
                if not _readable(worker.conn):
                    return
                record = unpack_packed(worker.conn.recv_bytes())
            except (EOFError, OSError):  # its end of the pipe is closed: the worker is gone
                worker.closed = True
                return
            spec = worker.queue.popleft()
            worker.started = now
            if record.game_id != spec.game_id:  # a worker answers in order; never mix games
                raise RuntimeError(f"worker answered {record.game_id} for {spec.game_id}")
            yield record

    def _lost(self, worker: _Worker, todo: collections.deque[GameSpec],
              deaths: dict[str, int]) -> Iterator[PackedRecord]:
        """A worker died: re-run its current game (or record it void), re-queue the rest."""
        worker.process.join(2)  # its pipe may close a moment before it is reaped
        code = worker.process.exitcode
        queue = list(worker.queue)
        self._kill(worker)
        if queue:
            head, rest = queue[0], queue[1:]
            todo.extendleft(reversed(rest))
            deaths[head.game_id] += 1
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
            if deaths[head.game_id] > self._retries:
                yield PackedRecord.of(void_record(
                    head, Termination.CRASH,
                    f"worker process died ({how}) while playing this game, "
                    f"{deaths[head.game_id]} times"))
            else:
                todo.appendleft(head)
        if todo:
            self._spawn()

    def _hung(self, worker: _Worker, todo: collections.deque[GameSpec],
              now: float) -> Iterator[PackedRecord]:
        """A game ran past its deadline: kill the worker, record the game void, go on."""
        head, rest = worker.queue[0], list(worker.queue)[1:]
        limit = self._deadline_of(head)
        self._kill(worker)
        todo.extendleft(reversed(rest))
        yield PackedRecord.of(void_record(
            head, Termination.TIMEOUT,
            f"the game ran past the watchdog's limit of {limit:.0f} s; its worker was killed",
            now - worker.started))
        if todo:
            self._spawn()

    def close(self) -> None:
        """Stop every worker (idle ones exit on EOF; busy ones are killed)."""
        workers, self._workers = list(self._workers), []
        for worker in workers:
            with contextlib.suppress(OSError):
                worker.conn.close()
        for worker in workers:
            if worker.queue:
                self._workers.append(worker)
                self._kill(worker)
            else:
                worker.process.join(2)
                if worker.process.is_alive():
                    self._workers.append(worker)
                    self._kill(worker)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def make_executor(workers: int, play: PlayFn | None = None, *,
                  deadline: DeadlineFn | float | None = None,
                  persistent: bool = False) -> Executor:
    """``workers`` 0: in this process; otherwise that many worker processes (``persistent``:
    kept between runs, see :class:`ProcessExecutor`)."""
    if workers == 0:
        return InlineExecutor(play)
    return ProcessExecutor(workers, play, deadline=deadline, persistent=persistent)
