"""What one entrant may ask of the stored games at once: the pages and calls that read games
(``/me``, ``/api/me/games``, a replay, a game, a log) are limited per account, in rate and in
requests under way, and their work is given up when the client goes away.

* **Rate**: at most :data:`READS` requests each :data:`READ_SECONDS` per account; more are
  answered 429, with ``Retry-After`` and one line saying how long to wait.
* **Under way**: at most :data:`IN_FLIGHT` of an account's reads at a time; the extra ones
  are answered 429 too.
* A refusal is answered after a pause of :data:`HOLD` seconds (in which the server does
  nothing for it): a client that ignores ``Retry-After`` and asks again at once, over 40
  connections say, sends a few requests a second, not thousands, and the other entrants and
  the leaderboard keep the server's time.
* **A client gone**: the read runs in a worker thread while the request's connection is
  watched; when the client disconnects first, the answer is dropped and the slot freed at once
  (each read is bounded anyway: one lookup in the index and one row group of one batch file).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request

READS = 40  # an account's game reads ...
READ_SECONDS = 10.0  # ... in this many seconds
IN_FLIGHT = 4  # an account's game reads under way at once
HOLD = 1.0  # seconds a refusal waits before it is answered

T = TypeVar("T")


class ClientGone(Exception):
    """The client disconnected before its answer was ready."""


class Limiter(Protocol):
    """A rate limit (the server's :class:`harness.serve.app.RateLimit`)."""

    count: int
    seconds: float

    def hit(self, key: str) -> float: ...


class Reads:
    """The per-account limits of the game-reading routes (``rate``: at most so many requests
    in so many seconds for each account)."""

    def __init__(self, rate: Limiter, in_flight: int = IN_FLIGHT, hold: float = HOLD) -> None:
        self.rate = rate
        self.in_flight = in_flight
        self.hold = hold
        self._busy: dict[str, int] = {}
        self._lock = threading.Lock()

    def _enter(self, account: str) -> None:
        wait = self.rate.hit(account)
        if wait:
            raise too_many(wait, f"more than {self.rate.count} requests for games, pages and "
                                 f"logs in {self.rate.seconds:g} s from your account")
        with self._lock:
            busy = self._busy.get(account, 0)
            if busy >= self.in_flight:
                raise too_many(1.0, f"{busy} of your requests for games are still being "
                                    f"answered")
            self._busy[account] = busy + 1

    def _leave(self, account: str) -> None:
        with self._lock:
            busy = self._busy.get(account, 1) - 1
            if busy:
                self._busy[account] = busy
            else:
                self._busy.pop(account, None)

    async def run(self, request: Request, account: str, work: Callable[..., T],
                  *args: Any) -> T:
        """``work(*args)`` in a worker thread for ``account``, within its limits; raises
        :class:`ClientGone` when the client disconnects first."""
        try:
            self._enter(account)
        except HTTPException:
            await asyncio.sleep(self.hold)
            raise
        try:
            return await until_gone(request, work, *args)
        finally:
            self._leave(account)


def too_many(wait: float, why: str) -> HTTPException:
    seconds = max(1, math.ceil(wait))
    return HTTPException(429, f"{why}; wait {seconds} s and try again",
                         headers={"Retry-After": str(seconds)})


async def _disconnected(request: Request) -> None:
    """Return when the client has gone (the request's body, if any, is already read)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


async def until_gone(request: Request, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a worker thread, given up (:class:`ClientGone`) if the client
    disconnects before it ends."""
    task = asyncio.ensure_future(run_in_threadpool(work, *args))
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not gone.done():
            gone.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await gone
    if task.done():
        return task.result()
    task.cancel()
    raise ClientGone
