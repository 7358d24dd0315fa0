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
  up to ``prefetch`` games through its own pipe (C pickles, several games a message; each record
  comes back as soon as its game ends, packed flat: :class:`PackedRecord`). A watchdog in the
  parent notices a worker that dies (its game is re-run up to ``retries`` times, then recorded
  void as ``crash``) and a game that runs past its deadline (the worker's process group is
  killed, the game recorded void as ``timeout``, a fresh worker started). Workers sit in their
  own process group, so Ctrl-C reaches only the parent, which then stops them; they die with the
  parent.
"""

from __future__ import annotations

import array
import collections
import contextlib
import dataclasses
import gc
import operator
import os
import pickle
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from harness import placement
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


MoveBuffers = tuple[bytes, bytes, bytes, bytes, bytes]
"""A game's moves as little-endian, Arrow-ready buffers: ply (int32), seat (int8), the length of
each action in UTF-8 bytes (int32), the actions' UTF-8 text back to back, think time (float64)."""

_LITTLE_ENDIAN = sys.byteorder == "little"
assert array.array("i").itemsize == 4 and array.array("d").itemsize == 8


def _buffer(typecode: str, values: Iterable[Any]) -> bytes:
    data = array.array(typecode, values)
    if not _LITTLE_ENDIAN:
        data.byteswap()
    return data.tobytes()


def _values(typecode: str, buffer: bytes) -> list[Any]:
    data = array.array(typecode)
    data.frombytes(buffer)
    if not _LITTLE_ENDIAN:
        data.byteswap()
    return data.tolist()


def pack_moves(moves: Sequence[MoveRecord]) -> MoveBuffers:
    """``moves`` as :data:`MoveBuffers`."""
    actions = [m.action for m in moves]
    text = "".join(actions).encode()
    lengths = [len(a) for a in actions]  # characters are bytes while the text is ASCII
    if len(text) != sum(lengths):
        lengths = [len(a.encode()) for a in actions]
    return (_buffer("i", [m.ply for m in moves]), _buffer("b", [m.seat for m in moves]),
            _buffer("i", lengths), text, _buffer("d", [m.think_time for m in moves]))


def unpack_moves(buffers: MoveBuffers) -> list[MoveRecord]:
    """The inverse of :func:`pack_moves`."""
    plies, seats = _values("i", buffers[0]), _values("b", buffers[1])
    text, actions, at = buffers[3], [], 0
    for length in _values("i", buffers[2]):
        actions.append(text[at:at + length].decode())
        at += length
    return list(map(MoveRecord, plies, seats, actions, _values("d", buffers[4])))


PACKED_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(GameRecord)
                                     if f.name != "moves")
_ROW_OF = operator.attrgetter(*PACKED_FIELDS)
_TERMINATION = PACKED_FIELDS.index("termination")
_OFFENDER = PACKED_FIELDS.index("offender")
_FIELD_INDEX = {name: i for i, name in enumerate(PACKED_FIELDS)}
_TERMINATIONS = {t.value: t for t in Termination}
_FORFEITS = frozenset(t.value for t in Termination if t.is_forfeit)


class PackedRecord:
    """A finished game in flat form: the record's fields as one tuple of plain values (the
    termination as its string) and its moves as :data:`MoveBuffers`.

    This is what workers send: it pickles and unpickles many times faster than a
    :class:`GameRecord` with :class:`MoveRecord` objects, and the results store makes Arrow
    columns of a batch's move buffers without touching a move in Python. :meth:`record` gives
    the full :class:`GameRecord` back.
    """

    __slots__ = ("game_id", "moves", "row")

    def __init__(self, row: tuple[Any, ...], moves: MoveBuffers) -> None:
        if len(row) != len(PACKED_FIELDS) or len(moves) != 5:
            raise TypeError(f"not a packed record: {len(row)} fields, {len(moves)} buffers")
        self.row = row
        self.moves = moves
        self.game_id: str = row[0]

    @classmethod
    def of(cls, record: GameRecord) -> PackedRecord:
        """Pack ``record``."""
        row = _ROW_OF(record)
        row = (*row[:_TERMINATION], record.termination.value, *row[_TERMINATION + 1:])
        return cls(row, pack_moves(record.moves))

    def field(self, name: str) -> Any:
        """One field of the record by name (the termination as its string value)."""
        return self.row[_FIELD_INDEX[name]]

    @property
    def seats(self) -> list[str]:
        return list(self.field("seats"))

    @property
    def returns(self) -> list[float]:
        return list(self.field("returns"))

    @property
    def offender(self) -> int | None:
        offender: int | None = self.row[_OFFENDER]
        return offender

    @property
    def termination(self) -> Termination:
        return _TERMINATIONS[self.row[_TERMINATION]]

    @property
    def void(self) -> bool:
        """A forfeit with no seat to blame (see :func:`harness.store.is_void`)."""
        return self.row[_OFFENDER] is None and self.row[_TERMINATION] in _FORFEITS


    def record(self) -> GameRecord:
        """The full :class:`GameRecord`."""
        values = dict(zip(PACKED_FIELDS, self.row, strict=True))
        values["termination"] = _TERMINATIONS[values["termination"]]
        return GameRecord(**values, moves=unpack_moves(self.moves))


assert PACKED_FIELDS[0] == "game_id"


def pack_record(record: GameRecord) -> bytes:
    """A record as compact bytes (a :class:`PackedRecord`'s tuple and columns, pickled)."""
    packed = PackedRecord.of(record)
    return pickle.dumps((packed.row, packed.moves), pickle.HIGHEST_PROTOCOL)


def unpack_packed(data: bytes) -> PackedRecord:
    """The :class:`PackedRecord` in bytes from :func:`pack_record`."""
    value = pickle.loads(data)
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple)):
        raise TypeError(f"a worker sent {type(value).__name__}, not a packed record")
    return PackedRecord(value[0], value[1])


def unpack_record(data: bytes) -> GameRecord:
    """The inverse of :func:`pack_record`."""
    return unpack_packed(data).record()


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
    bots it starts keep to during a game with a sandboxed bot (see :mod:`harness.placement`),
    or None to let the kernel choose.
    """
    os.setpgrp()  # Ctrl-C goes to the parent only; the parent stops us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    for other in inherited:
        with contextlib.suppress(OSError):
            other.close()
    gc.freeze()  # the parent's objects: never scanned here, so never copied page by page
    keep_to = placement.Keeper()
    while True:
        try:
            specs = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        if specs is None:
            return
        for spec in specs:  # each record goes back as soon as it is played (the watchdog
            keep_to(cpu if _has_sandboxed_seat(spec) else None)  # times the head game)
            record = safe_play(play, spec)
            try:
                conn.send_bytes(pack_record(record))
            except (BrokenPipeError, OSError):
                return


def _has_sandboxed_seat(spec: GameSpec) -> bool:
    from harness.loader import is_sandboxed

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
                 min_wake: float = 0.02) -> None:
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
        cpu = placement.spare_cpu({w.cpu for w in self._workers}, self._n)
        proc = self._ctx.Process(target=_worker_main, args=(child, play, inherited, cpu),
                                 daemon=True, name="tourney-worker")
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

    def run(self, specs: Iterable[GameSpec]) -> Iterator[GameRecord]:
        with contextlib.closing(self.run_packed(specs)) as packed:
            for record in packed:
                yield record.record()

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
                  deadline: DeadlineFn | float | None = None) -> Executor:
    """``workers`` 0: in this process; otherwise that many worker processes."""
    if workers == 0:
        return InlineExecutor(play)
    return ProcessExecutor(workers, play, deadline=deadline)
