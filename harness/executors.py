"""Where a league's games run: GameSpecs in, GameRecords out.

The executor interface
======================

Every back end (this module's :class:`InlineExecutor` and :class:`ProcessExecutor`, and the Dask
back end in :mod:`harness.executors_dask`) implements :class:`Executor`::

    class Executor(Protocol):
        @property
        def workers(self) -> int: ...            # games it can play at once (for display)
        def run(self, specs: Iterable[GameSpec]) -> Iterator[GameRecord]: ...
        def close(self) -> None: ...             # release workers; safe to call twice
        def __enter__(self) -> Self: ...         # ``with executor:`` closes on the way out
        def __exit__(self, *exc) -> None: ...

The contract of ``run``:

* it yields **exactly one** :class:`~harness.records.GameRecord` per spec, in *completion*
  order (any order; the caller matches records to specs by ``game_id``);
* it never loses a game: a game that cannot be played (its worker died too often, it hung past
  the watchdog) still yields a record, a *void* one (:func:`void_record`: termination ``crash``
  or ``timeout``, no offender, no winner, the reason in ``reason``) that the results store keeps
  and the ratings skip;
* it never yields a game twice, even when a game was re-run after a worker died;
* the caller may stop iterating at any time (``KeyboardInterrupt``, ``break``, an error while
  storing): closing the generator or the executor cancels the games still running, and their
  results are discarded, so the caller stores only what it received.

Records are plain picklable dataclasses, so a back end may play the games anywhere. How a game
is played is :func:`harness.referee.play_game`; back ends take it as the ``play`` argument so
tests can substitute a misbehaving player.

Local back ends
===============

* :class:`InlineExecutor` plays games one after another in the calling process: the fastest
  (no pickling), no watchdog (``--workers 0``).
* :class:`ProcessExecutor` runs ``workers`` worker processes (``multiprocess``, forked), each fed
  up to ``prefetch`` games through its own pipe (as C pickles). A watchdog in the parent notices
  a worker that dies (its game is re-run up to ``retries`` times, then recorded void as
  ``crash``) and a game that runs past its deadline (the worker's process group is killed, the
  game recorded void as ``timeout``, a fresh worker started). Workers sit in their own process
  group, so Ctrl-C reaches only the parent, which then stops them; they die with the parent.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import signal
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from harness.records import GameRecord, GameSpec, Limits, MoveRecord, Termination

PlayFn = Callable[[GameSpec], GameRecord]
DeadlineFn = Callable[[GameSpec], float]

GRACE_SECONDS = 60.0  # added to a game's worst-case bot time before the watchdog steps in


class Executor(Protocol):
    """GameSpecs in, GameRecords out (see the module docstring for the contract)."""

    @property
    def workers(self) -> int: ...

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameRecord]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...


def default_play(log_dir: Path | None = None) -> PlayFn:
    """The referee, with bot logs written under ``log_dir``."""
    from harness.referee import play_game

    def play(spec: GameSpec) -> GameRecord:
        return play_game(spec, log_dir=log_dir)

    return play


def void_record(spec: GameSpec, termination: Termination, reason: str,
                duration: float = 0.0) -> GameRecord:
    """The record of a game the harness could not finish: no winner, no bot to blame."""
    from games import registry

    players = len(spec.seats)
    try:
        rules_version = registry.get(spec.game).info.rules_version
    except Exception:  # an unknown game cannot have been scheduled, but never lose the record
        rules_version = ""
    return GameRecord(
        game_id=spec.game_id, game=spec.game, variant=dict(spec.variant),
        rules_version=rules_version, seed=spec.seed, seats=[b.name for b in spec.seats],
        returns=[0.0] * players, scores=[0.0] * players, winners=[], termination=termination,
        reason=reason, decisions=0, duration=duration, think_time=[0.0] * players,
        pair_id=spec.pair_id, league=spec.league, offender=None, finished_at=time.time(),
    )


def safe_play(play: PlayFn, spec: GameSpec) -> GameRecord:
    """``play(spec)``, turning an exception of the harness itself into a void record."""
    t0 = time.perf_counter()
    try:
        return play(spec)
    except Exception as exc:
        tail = traceback.format_exception_only(exc)[-1].strip()
        return void_record(spec, Termination.CRASH, f"the referee raised {tail}",
                           time.perf_counter() - t0)


def game_deadline(spec: GameSpec) -> float:
    """Seconds a game may take before the watchdog kills it: every bot's worst case plus grace.

    Per seat: start-up time, the overage bank and ``move_time`` for each of the game's maximum
    number of decisions (shared by the seats).
    """
    from games import registry

    lim = spec.limits
    try:
        max_decisions = registry.get(spec.game).info.max_decisions
    except Exception:
        max_decisions = 1000
    seats = len(spec.seats)
    return (seats * (lim.startup_time + lim.overage) + max_decisions * lim.move_time
            + GRACE_SECONDS)


class InlineExecutor:
    """Plays the games one by one in this process (fastest; no watchdog)."""

    def __init__(self, play: PlayFn | None = None) -> None:
        self._play = play

    @property
    def workers(self) -> int:
        return 1

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameRecord]:
        play = self._play or default_play()
        for spec in specs:
            yield safe_play(play, spec)

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


# ----------------------------------------------------------------------------- worker processes


def pack_record(record: GameRecord) -> bytes:
    """A record as compact bytes: the moves as four plain lists pickle several times faster
    than a list of MoveRecord objects."""
    moves = record.moves
    record.moves = []
    try:
        columns = ([m.ply for m in moves], [m.seat for m in moves], [m.action for m in moves],
                   [m.think_time for m in moves])
        return pickle.dumps((record, columns), pickle.HIGHEST_PROTOCOL)
    finally:
        record.moves = moves


def unpack_record(data: bytes) -> GameRecord:
    """The inverse of :func:`pack_record`."""
    record, (plies, seats, actions, times) = pickle.loads(data)
    if not isinstance(record, GameRecord):
        raise TypeError(f"a worker sent {type(record).__name__}, not a GameRecord")
    record.moves = list(map(MoveRecord, plies, seats, actions, times))
    return record


def _die_with_parent() -> None:
    """Ask Linux to kill this worker when the league process dies (best effort elsewhere)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return


def _worker_main(conn: Any, play: PlayFn, inherited: list[Any]) -> None:
    """A worker: play each spec received, send back its record; stop at None or EOF.

    ``inherited``: the parent's ends of every pipe, copied by fork; closing them here lets
    each worker see EOF as soon as the parent goes away.
    """
    os.setpgrp()  # Ctrl-C goes to the parent only; the parent stops us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    for other in inherited:
        with contextlib.suppress(OSError):
            other.close()
    while True:
        try:
            spec = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        if spec is None:
            return
        record = safe_play(play, spec)
        try:
            conn.send_bytes(pack_record(record))
        except (BrokenPipeError, OSError):
            return


@dataclass
class _Worker:
    process: Any
    conn: Any
    queue: collections.deque[GameSpec] = field(default_factory=collections.deque)
    started: float = 0.0  # when the game at the head of the queue started (approximately)

    @property
    def pid(self) -> int:
        return int(self.process.pid)


class ProcessExecutor:
    """``workers`` worker processes with a watchdog (see the module docstring)."""

    def __init__(self, workers: int | None = None, play: PlayFn | None = None, *,
                 deadline: DeadlineFn | float | None = None, retries: int = 1,
                 prefetch: int = 6, poll_seconds: float = 0.5,
                 min_wake: float = 0.005) -> None:
        import multiprocess

        self._ctx = multiprocess.get_context("fork")
        self._n = workers if workers is not None else (os.cpu_count() or 1)
        if self._n < 1:
            raise ValueError(f"workers must be at least 1 (got {self._n})")
        self._play = play
        self._deadline = deadline
        self._retries = retries
        self._prefetch = max(1, prefetch)
        self._poll = poll_seconds
        self._min_wake = min_wake
        self._last_wake = 0.0
        self._workers: list[_Worker] = []
        self._deadlines: dict[tuple[str, int, Limits], float] = {}

    @property
    def workers(self) -> int:
        return self._n

    def worker_pids(self) -> list[int]:
        """Process ids of the live workers (tests kill one to check the watchdog)."""
        return [w.pid for w in self._workers if w.process.is_alive()]

    def _deadline_of(self, spec: GameSpec) -> float:
        if self._deadline is None:
            key = (spec.game, len(spec.seats), spec.limits)
            if key not in self._deadlines:
                self._deadlines[key] = game_deadline(spec)
            return self._deadlines[key]
        if callable(self._deadline):
            return self._deadline(spec)
        return float(self._deadline)

    def _spawn(self) -> _Worker:
        play = self._play or default_play()
        parent, child = self._ctx.Pipe(duplex=True)
        inherited = [parent, *(w.conn for w in self._workers)]
        proc = self._ctx.Process(target=_worker_main, args=(child, play, inherited),
                                 daemon=True, name="tourney-worker")
        proc.start()
        child.close()
        worker = _Worker(proc, parent)
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

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameRecord]:
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
            self.close()

    def _pace(self) -> None:
        """Wake at most every ``min_wake`` seconds while every worker has games queued.

        Records then arrive a few at a time instead of one per wake-up, which keeps the parent's
        share of the CPU small (it competes with the workers for the same cores).
        """
        now = time.monotonic()
        wait = self._last_wake + self._min_wake - now
        if wait > 0 and all(len(w.queue) >= 2 for w in self._workers):
            time.sleep(wait)
        self._last_wake = time.monotonic()

    def _feed(self, todo: collections.deque[GameSpec]) -> None:
        """Give every worker a game to play, then top each queue up to ``prefetch``."""
        for worker in [w for w in self._workers if not w.queue]:
            if todo and not worker.process.is_alive():  # died idle: replace it, charge no game
                self._kill(worker)
                self._spawn()
        now = time.monotonic()
        for depth in range(1, self._prefetch + 1):
            for worker in self._workers:
                if not todo:
                    return
                if len(worker.queue) >= depth:
                    continue
                spec = todo.popleft()
                if not worker.queue:
                    worker.started = now
                worker.queue.append(spec)
                with contextlib.suppress(BrokenPipeError, OSError):
                    # if it is dead, _collect notices and re-queues
                    worker.conn.send_bytes(pickle.dumps(spec, pickle.HIGHEST_PROTOCOL))

    def _collect(self, todo: collections.deque[GameSpec],
                 deaths: dict[str, int]) -> Iterator[GameRecord]:
        from multiprocess.connection import wait

        busy = [w for w in self._workers if w.queue]
        handles = [w.conn for w in busy] + [w.process.sentinel for w in busy]
        ready = set(wait(handles, timeout=self._poll)) if handles else set()
        now = time.monotonic()
        for worker in busy:
            if worker.conn in ready or worker.process.sentinel in ready:
                yield from self._drain(worker, now)
                if not worker.process.is_alive() or worker.process.sentinel in ready:
                    yield from self._lost(worker, todo, deaths)
                    continue
            if worker.queue and now - worker.started > self._deadline_of(worker.queue[0]):
                yield from self._hung(worker, todo, now)

    def _drain(self, worker: _Worker, now: float) -> Iterator[GameRecord]:
        """Every record the worker has sent so far."""
        while worker.queue:
            try:
                if not worker.conn.poll():
                    return
                record = unpack_record(worker.conn.recv_bytes())
            except (EOFError, OSError):
                return
            spec = worker.queue.popleft()
            worker.started = now
            if record.game_id != spec.game_id:  # a worker answers in order; never mix games
                raise RuntimeError(f"worker answered {record.game_id} for {spec.game_id}")
            yield record

    def _lost(self, worker: _Worker, todo: collections.deque[GameSpec],
              deaths: dict[str, int]) -> Iterator[GameRecord]:
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
                yield void_record(head, Termination.CRASH,
                                  f"worker process died ({how}) while playing this game, "
                                  f"{deaths[head.game_id]} times")
            else:
                todo.appendleft(head)
        if todo:
            self._spawn()

    def _hung(self, worker: _Worker, todo: collections.deque[GameSpec],
              now: float) -> Iterator[GameRecord]:
        """A game ran past its deadline: kill the worker, record the game void, go on."""
        head, rest = worker.queue[0], list(worker.queue)[1:]
        limit = self._deadline_of(head)
        self._kill(worker)
        todo.extendleft(reversed(rest))
        yield void_record(head, Termination.TIMEOUT,
                          f"the game ran past the watchdog's limit of {limit:.0f} s; "
                          f"its worker was killed", now - worker.started)
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
                  deadline: DeadlineFn | float | None = None) -> Executor:
    """``workers`` 0: in this process; otherwise that many worker processes."""
    if workers == 0:
        return InlineExecutor(play)
    return ProcessExecutor(workers, play, deadline=deadline)
