"""The server's edge: what stands between the network and the application.

uvicorn closes a connection that stays idle after a response (its keep-alive timeout), but not
one that never sends a byte, nor one that sends its request a byte at a time, nor a body that
stops half-way: each holds a file descriptor for ever, and enough of them fill the process's
descriptors, after which every new client (the leaderboard too) waits in vain and asyncio's
accept loop logs the same error thousands of times a second. :func:`http_protocol` adds, under
uvicorn's own HTTP protocol (h11):

* **a deadline for each request's headers** (``header_timeout`` seconds from the connection's
  start, or from the previous response): a connection that has not sent them by then is closed;
* **a deadline for a stalled body**: a request whose body stops arriving for ``body_timeout``
  seconds is closed (the application sees the client leave);
* **a cap on open connections** (``max_connections``): a new connection at the cap closes the
  oldest one that is waiting for its request (a silent one), so a flood of idle connections
  cannot lock out a client that speaks at once. uvicorn's ``limit_concurrency`` answers 503 to
  requests beyond the cap.

:func:`open_file_room` raises the process's descriptor limit towards its hard limit and keeps
the cap below it, with room for the server's own files and an accept burst. :class:`Once` turns a
failure that repeats (an accept error, an invalid request) into one line per cause and a count a
minute, instead of one traceback each time.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BACKLOG = 128  # connections the kernel queues; also the most asyncio accepts in one tick
OWN_FILES = 128  # the server's own files (databases, pipes, logs), with room to spare
OPEN_FILES_GOAL = 65536  # the soft descriptor limit the server asks for (within the hard one)


@dataclass(frozen=True)
class EdgeLimits:
    """What one client may hold of the server (``tourney serve``'s options)."""

    max_connections: int = 1000
    header_timeout: float = 10.0  # seconds to send a request's headers
    keep_alive: int = 5  # seconds a connection may wait between requests
    body_timeout: float = 30.0  # seconds a request's body may stall
    backlog: int = BACKLOG  # connections the kernel queues (and asyncio accepts in one tick)


def open_file_room(limits: EdgeLimits) -> tuple[EdgeLimits, str]:
    """Raise the soft limit on open files towards the hard one, and lower ``max_connections``
    (and the backlog) to what fits under it; the line to print when the cap was lowered
    ('' otherwise).

    New connections are accepted a backlog at a time, before the ones they displace are closed,
    and a busy loop may accept two or three such bursts before it closes any: the cap keeps the
    server's own files and three backlogs free."""
    import dataclasses
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY:
        goal = OPEN_FILES_GOAL if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES_GOAL)
        if goal > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (goal, hard))
                soft = goal
            except (ValueError, OSError):
                pass
    if soft == resource.RLIM_INFINITY:
        return limits, ""
    backlog = max(16, min(limits.backlog, soft // 16))
    limits = dataclasses.replace(limits, backlog=backlog)
    room = max(16, soft - OWN_FILES - 3 * backlog)
    if limits.max_connections <= room:
        return limits, ""
    return dataclasses.replace(limits, max_connections=room), (
        f"note: at most {room} connections at once (this process may open {soft} files; "
        f"`ulimit -n` raises that)")


class _Silent:
    """The connections waiting for a request, oldest first (the ones a new one may close)."""

    def __init__(self) -> None:
        self.waiting: collections.OrderedDict[Any, None] = collections.OrderedDict()

    def add(self, protocol: Any) -> None:
        self.waiting.pop(protocol, None)
        self.waiting[protocol] = None

    def discard(self, protocol: Any) -> None:
        self.waiting.pop(protocol, None)

    def oldest(self) -> Any | None:
        return next(iter(self.waiting), None)


def http_protocol(limits: EdgeLimits) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the edge's deadlines and cap (one class per server: the
    waiting connections are counted per class)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    silent = _Silent()

    class Guarded(H11Protocol):
        _headers_timer: asyncio.TimerHandle | None = None
        _body_timer: asyncio.TimerHandle | None = None

        def connection_made(  # type: ignore[override]
                self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            # one out for each one in (a closed connection leaves the count a moment later)
            if len(self.connections) > limits.max_connections:
                victim = silent.oldest()
                if victim is not None:  # else every other one is busy: uvicorn answers 503
                    silent.discard(victim)
                    victim._close()
            self._wait_for_request()

        def _wait_for_request(self) -> None:
            silent.add(self)
            self._cancel("_headers_timer")
            self._headers_timer = self.loop.call_later(limits.header_timeout, self._late)

        def _late(self) -> None:
            self._headers_timer = None
            if self in silent.waiting:
                silent.discard(self)
                self._close()

        def _close(self) -> None:
            if not self.transport.is_closing():
                self.transport.close()

        def _cancel(self, name: str) -> None:
            timer = getattr(self, name)
            if timer is not None:
                timer.cancel()
                setattr(self, name, None)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # the headers are in
                silent.discard(self)
                self._cancel("_headers_timer")
            if self.conn.their_state is h11.SEND_BODY:
                self._cancel("_body_timer")
                self._body_timer = self.loop.call_later(limits.body_timeout, self._stalled)

        def _stalled(self) -> None:
            self._body_timer = None
            if self.conn.their_state is not h11.SEND_BODY or self.transport.is_closing():
                return
            if self.flow.read_paused:  # we stopped reading, not the client
                self._body_timer = self.loop.call_later(limits.body_timeout, self._stalled)
                return
            self._close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._wait_for_request()

        def connection_lost(self, exc: Exception | None) -> None:
            silent.discard(self)
            self._cancel("_headers_timer")
            self._cancel("_body_timer")
            super().connection_lost(exc)

    return Guarded


class Once(logging.Filter):
    """A logging filter that lets the first record of each cause through (on one line, without
    its traceback after the first), counts the ones that follow, and says how many there were
    at most once every ``window`` seconds: a failure that repeats thousands of times a second
    (an accept error with no descriptors left) writes a line a minute, not megabytes."""

    def __init__(self, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.window = window
        self.clock = clock
        self._seen: dict[tuple[str, ...], list[float]] = {}  # cause -> [last said, count since]

    @staticmethod
    def cause(record: logging.LogRecord) -> tuple[str, ...]:
        exc = record.exc_info[1] if record.exc_info else None
        kind = type(exc).__name__ if exc is not None else ""
        code = str(getattr(exc, "errno", "") or "")
        # asyncio's messages name the object after the first line (a socket, a task)
        return record.name, str(record.msg).split("\n", 1)[0], kind, code

    def filter(self, record: logging.LogRecord) -> bool:
        key = self.cause(record)
        now = self.clock()
        seen = self._seen.get(key)
        if seen is None:
            if len(self._seen) > 1000:  # many distinct causes: forget the quiet ones
                self._seen = {k: v for k, v in self._seen.items() if v[1]}
            self._seen[key] = [now, 0]
            if record.exc_info and isinstance(record.exc_info[1], OSError):
                self._one_line(record, 0)  # the system's refusal: its traceback says nothing
            return True
        if now - seen[0] < self.window:
            seen[1] += 1
            return False
        count, seen[0], seen[1] = int(seen[1]), now, 0
        self._one_line(record, count)
        return True

    def _one_line(self, record: logging.LogRecord, count: int) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        line = record.getMessage().split("\n", 1)[0] + (f": {exc}" if exc is not None else "")
        if count:
            line += f" (and {count} more like it in the last {self.window:.0f} s)"
        record.msg, record.args = line, ()
        record.exc_info = None
        record.exc_text = None

    def pending(self) -> list[str]:
        """The counts not said yet (at shutdown)."""
        return [f"{key[1]} ({count:.0f} more since it was logged)"
                for key, (_, count) in self._seen.items() if count]


def quiet_repeats(window: float = 60.0) -> Once:
    """Install :class:`Once` on the loggers a flood can reach (asyncio's, uvicorn's)."""
    once = Once(window)
    for name in ("asyncio", "uvicorn", "uvicorn.error"):
        logging.getLogger(name).addFilter(once)
    return once
