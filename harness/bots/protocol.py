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
from typing import Any, Protocol

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
        """The bot's own captured output (its tail), empty for in-process bots."""
        ...


def encode(message: JSON) -> bytes:
    """One wire message: compact JSON and a newline."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def decode(line: bytes) -> JSON:
    """Parse one wire line; :class:`AgentProtocolError` names what was wrong with it.

    Whatever the bytes (invalid UTF-8, nesting too deep for the parser, numbers too long to
    convert, a lone surrogate), the outcome is a message object or that error, never another
    exception: a bot must not be able to crash the referee or void a game it is losing.
    """
    try:
        message = json.loads(line)
    except RecursionError:
        raise AgentProtocolError(
            f"sent JSON nested too deeply to read: {_preview(line)}") from None
    except (ValueError, MemoryError) as exc:  # UnicodeDecodeError is a ValueError
        raise AgentProtocolError(
            f"sent a line that is not JSON: {_preview(line)} ({clean(str(exc))})") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise AgentProtocolError(f"sent JSON that is not a message object: {_preview(line)}")
    return message


def expect(message: JSON, kind: str) -> JSON:
    """Check a reply's type: an ``error`` reply is a crash, any other type a protocol error."""
    got = message["type"]
    if got == kind:
        return message
    if got == "error":
        text = message.get("message", "(no message)")
        raise AgentCrash(f"gave up: {clean(text if isinstance(text, str) else repr(text))}")
    raise AgentProtocolError(f"answered {clean(repr(got))} where {kind!r} was expected")


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
