"""What the server does with an error of its own (a bug): the client gets a 500 with one line,
and the organiser's log one line per failed request, with the traceback only the first time its
cause is seen (the type of error and where it was raised). A client that repeats a failing
request thousands of times then adds thousands of short lines, not a traceback each.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from collections import deque

from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("tourney.serve")

MESSAGE = "the server failed; the organiser can see why in its log"
MAX_CAUSES = 1000  # causes remembered (a traceback each); past that, every error is one line
_SHOWN = 200  # characters of a path or an error message in a log line


def log_to_stderr() -> None:
    """Send the server's error lines to stderr (``tourney serve``'s log)."""
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("error: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.ERROR)
        log.propagate = False


def _plain(text: str) -> str:
    """``text`` on one line (a path or a message may hold newlines and control characters)."""
    shown = text if len(text) <= _SHOWN else text[:_SHOWN] + "..."
    return shown.encode("ascii", "backslashreplace").decode().replace("\n", "\\n") \
        .replace("\r", "\\r")


def cause_of(exc: BaseException) -> tuple[str, str, int]:
    """(error type, file, line) of where ``exc`` was raised: what makes errors the same."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    return (type(exc).__qualname__, last.filename if last else "?",
            (last.lineno or 0) if last else 0)


class ErrorBook:
    """The server's own errors, counted, the newest kept for the organiser's dashboard."""

    def __init__(self, kept: int = 20) -> None:
        self.count = 0
        self.recent: deque[tuple[float, str]] = deque(maxlen=kept)
        self._lock = threading.Lock()

    def add(self, line: str) -> None:
        with self._lock:
            self.count += 1
            self.recent.append((time.time(), line))

    def newest(self) -> list[tuple[float, str]]:
        with self._lock:
            return list(reversed(self.recent))


class QuietErrors:
    """ASGI middleware (the application's outermost of its own): an unhandled error becomes a
    500 with one line, logged as one line (see the module docstring), and kept in ``book``."""

    def __init__(self, app: ASGIApp, book: ErrorBook | None = None) -> None:
        self.app = app
        self.book = book
        self._seen: set[tuple[str, str, int]] = set()
        self._lock = threading.Lock()

    def first(self, cause: tuple[str, str, int]) -> bool:
        """Whether ``cause`` is new (and then remember it)."""
        with self._lock:
            if cause in self._seen or len(self._seen) >= MAX_CAUSES:
                return False
            self._seen.add(cause)
            return True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            cause = cause_of(exc)
            first = self.first(cause)
            kind, where, line = cause
            text = (f"{scope.get('method', '?')} {_plain(scope.get('path', ''))} failed: "
                    f"{kind}: {_plain(str(exc))} (at {where}:{line})")
            if self.book is not None:
                self.book.add(text)
            if first:
                log.error("%s; its traceback, shown once:", text, exc_info=exc)
            else:
                log.error("%s", text)
            if not started:
                api = str(scope.get("path", "")).startswith("/api/")
                response: Response = JSONResponse({"error": MESSAGE}, 500) if api else \
                    PlainTextResponse(MESSAGE, 500)
                await response(scope, receive, send)
