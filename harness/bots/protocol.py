"""The agent protocol: what a bot is, in Python and on the wire.

In Python a bot is any object with ``act(observation, legal_actions) -> action`` and, optionally,
``start(info)`` (before its first decision) and ``end(result)`` (after the game). The referee talks
to every bot through :class:`Agent`, whether the bot lives in the referee's process (trusted
built-ins) or in a sandboxed child process speaking the JSON-lines wire protocol documented in
``docs/protocol.md``.

Wire messages are single-line JSON objects with a ``"type"``:

========================  =====================================================================
referee -> bot            bot -> referee
========================  =====================================================================
``start`` + ``info``      ``ready``
``act`` + observation     ``action`` + ``action`` (a string)
``end`` + ``result``      ``ok``
``quit``                  (nothing: the bot exits)
========================  =====================================================================

Any request may instead be answered with ``{"type": "error", "message": ...}``: the bot gives
up, which the referee judges as a crash.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TextIO

import orjson

JSON = dict[str, Any]

PROTOCOL_VERSION = 1


class AgentError(Exception):
    """A bot failed; the subclass says how (the referee turns it into a termination)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class AgentCrash(AgentError):
    """The bot's code raised, could not be loaded, or its process died."""


class AgentTimeout(AgentError):
    """The bot did not answer before its deadline (and was killed)."""


class AgentProtocolError(AgentError):
    """The bot answered something that is not a valid protocol message."""


class Agent(Protocol):
    """A bot as the referee drives it. Implementations raise :class:`AgentError` subclasses."""

    def start(self, info: JSON, timeout: float) -> None:
        """Begin a game; ``timeout`` bounds start-up (process launch, imports, ``start``)."""
        ...

    def act(self, observation: JSON, legal_actions: list[str], timeout: float) -> object:
        """One decision within ``timeout`` seconds: the bot's raw answer (checked by the caller)."""
        ...

    def end(self, result: JSON, timeout: float) -> None:
        """Tell the bot how the game ended (best effort)."""
        ...

    def close(self) -> None:
        """Release the bot: for a process, kill it and everything it started."""
        ...

    def logs(self) -> str:
        """The bot's own captured output (its tail): a sandboxed bot's stdout and stderr, an
        in-process bot's log records (:mod:`harness.bots.inprocess`)."""
        ...


class LogTail:
    """A bot's log as the referee keeps it: its last ``limit`` bytes (``Limits.log_bytes``),
    and how many earlier bytes were dropped."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        self.data += data
        excess = len(self.data) - self.limit
        if excess > 0:
            del self.data[:excess]
            self.dropped += excess

    def text(self) -> str:
        text = self.data.decode("utf-8", "replace")
        if self.dropped:
            return f"[... {self.dropped} earlier bytes dropped ...]\n{text}"
        return text


def encode(message: JSON) -> bytes:
    """One wire message: compact JSON and a newline. Made by orjson (an observation is most of
    a sandboxed decision's cost), the same bytes as the standard library's compact JSON; what
    orjson does not write (an integer past 64 bits, a key that is not a string: orjson's option
    for those costs every message a third more) is written by the standard library."""
    try:
        return orjson.dumps(message, option=_ORJSON)
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


_ORJSON = orjson.OPT_APPEND_NEWLINE


def decode(line: bytes) -> JSON:
    """Parse one wire line; :class:`AgentProtocolError` names what was wrong with it.

    Whatever the bytes (invalid UTF-8, nesting too deep for the parser, numbers too long to
    convert, a lone surrogate), the outcome is a message object or that error, never another
    exception: a bot must not be able to crash the referee or void a game it is losing.
    """
    message = _fast_loads(line)
    if message is _REFUSED:
        message = _standard_loads(line)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise AgentProtocolError(f"sent JSON that is not a message object: {_preview(line)}")
    return message


_REFUSED = object()
# digits enough for a number past 64 bits, which orjson would read as a float
_LONG_NUMBER = re.compile(rb"[0-9]{19}")


def _fast_loads(line: bytes) -> Any:
    """orjson's reading of a wire line where it reads as the standard library does (the common
    case, several times faster), else :data:`_REFUSED`: a line it refuses (NaN, UTF-16, nesting
    past its limit...) or one with a number it would read otherwise (past 64 bits)."""
    if _LONG_NUMBER.search(line) is not None:
        return _REFUSED
    try:
        return orjson.loads(line)
    except (orjson.JSONDecodeError, MemoryError):
        return _REFUSED


def _standard_loads(line: bytes) -> Any:
    """The standard library's reading of a wire line, its failures as protocol errors."""
    try:
        return json.loads(line)
    except RecursionError:
        raise AgentProtocolError(
            f"sent JSON nested too deeply to read: {_preview(line)}") from None
    except (ValueError, MemoryError) as exc:  # UnicodeDecodeError is a ValueError
        raise AgentProtocolError(
            f"sent a line that is not JSON: {_preview(line)} ({clean(str(exc))})") from None


def expect(message: JSON, kind: str) -> JSON:
    """Check a reply's type: an ``error`` reply is a crash, any other type a protocol error."""
    got = message["type"]
    if got == kind:
        return message
    if got == "error":
        text = message.get("message", "(no message)")
        raise AgentCrash(f"gave up: {clean(text if isinstance(text, str) else repr(text))}")
    raise AgentProtocolError(f"answered {clean(repr(got))} where {kind!r} was expected")


# ----------------------------------------------------------------------------- trace

Tracer = Callable[[str, bool, bytes], None]
"""Sees every wire line of a sandboxed bot: (who, sent by the referee?, the line's bytes)."""

_tracer: Tracer | None = None


def tracer() -> Tracer | None:
    """The tracer in force (read by a sandboxed agent when it opens): None, the default, costs
    one test per line."""
    return _tracer


@contextmanager
def tracing(to: Tracer) -> Iterator[None]:
    """Show every sandboxed bot opened inside the block its wire lines (``tourney play
    --trace``)."""
    global _tracer
    before, _tracer = _tracer, to
    try:
        yield
    finally:
        _tracer = before


class WireTrace:
    """A :data:`Tracer` that writes one line per message: the seconds since the trace began,
    who (``seat 1 (mybot)``), ``>`` for what the referee sent and ``<`` for what the bot
    answered, and the line as it went over the wire.

    >>> import io
    >>> out = io.StringIO()
    >>> WireTrace(out, clock=iter([1.0, 1.25]).__next__)("seat 0 (b)", True, b'{"type":"quit"}\\n')
    >>> out.getvalue()
    '    0.250000 seat 0 (b) > {"type":"quit"}\\n'
    """

    def __init__(self, out: TextIO, clock: Callable[[], float] = time.perf_counter) -> None:
        self.out = out
        self.clock = clock
        self.began = clock()
        self._lock = threading.Lock()

    def __call__(self, who: str, sent: bool, line: bytes) -> None:
        text = line.decode("utf-8", "backslashreplace").rstrip("\n")
        with self._lock:
            self.out.write(f"{self.clock() - self.began:12.6f} {who} {'>' if sent else '<'} "
                           f"{text}\n")
            self.out.flush()


def clean(text: str, limit: int = 500) -> str:
    """Bot-supplied text made safe to store: at most ``limit`` characters, encodable as UTF-8
    (lone surrogates escaped).

    >>> clean("ok " + chr(0xD800)), len(clean("y" * 600))
    ('ok \\\\ud800', 503)
    """
    if len(text) > limit:
        text = text[:limit] + "..."
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _preview(line: bytes, limit: int = 80) -> str:
    text = line[: limit * 4].decode("utf-8", "replace").rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")
