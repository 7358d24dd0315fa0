"""Trusted bots in the referee's process: a bot file loaded here, called directly.

An in-process bot is not time-limited by killing and could read the referee's memory: only the
built-ins run this way by default (``inproc:`` asks for it explicitly).

**Its log.** What a sandboxed bot writes to stderr is kept in its seat's log; an in-process
bot's log records are kept the same way. While a bot is called (``start``, ``act``, ``end``)
the log records emitted in the calling thread go to that bot's log (one line each,
``WARNING name: message``, its last ``Limits.log_bytes`` kept, as a sandboxed bot's output) and
nowhere else: a league's workers do not print them over the progress bar. The root logger has
the handler that takes them only while a game is played or a bot is called
(:func:`capture_logs`); a record emitted outside a bot's call (or in another thread) goes where
it went before: to the handlers of its way up, else to logging's last resort on stderr.
"""

from __future__ import annotations

import logging
import sys
import threading
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from harness.bots.protocol import JSON, AgentCrash, LogTail
from harness.bots.runner import BOT_MODULE, BotLoadError, load_bot_file
from harness.bots.spec import BotSpec
from harness.records import Limits

if TYPE_CHECKING:
    from harness.bots.runner import BotFactory


_FACTORIES: dict[tuple[str, int, str], BotFactory] = {}


def load_factory(source: BotSpec) -> BotFactory:
    """Load a bot file into this process (cached per file version): a factory of fresh bots."""
    if source.path is None:
        raise BotLoadError(f"{str(source)!r} is an external command, not a Python file")
    try:
        stamp = source.path.stat().st_mtime_ns
    except OSError:
        raise BotLoadError(f"bot file {str(source.path)!r} not found; check the path") from None
    key = (str(source.path), stamp, source.entry or "")
    if key not in _FACTORIES:
        _FACTORIES[key] = load_bot_file(source.path, source.entry)
    return _FACTORIES[key]


class Calling:
    """The log of the in-process bot being called in one thread (None: no bot is)."""

    __slots__ = ("tail",)

    def __init__(self) -> None:
        self.tail: LogTail | None = None


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.calling = Calling()


_PER_THREAD = _PerThread()


def calling() -> Calling:
    """This thread's :class:`Calling` (looked up once: a plain object is faster to set)."""
    return _PER_THREAD.calling


class InProcessAgent:
    """A trusted bot object living in the referee's process (no deadline enforcement).

    Its log records go to :meth:`logs` (see the module docstring); the referee, which calls a
    bot's ``act`` without this wrapper, sets ``calling().tail`` to ``log_tail`` around it."""

    def __init__(self, bot: Any, log_bytes: int = Limits.log_bytes) -> None:
        self.bot = bot
        self.log_tail = LogTail(log_bytes)

    def start(self, info: JSON, timeout: float) -> None:
        hook = getattr(self.bot, "start", None)
        if callable(hook):
            self._guard("start", hook, info)

    def act(self, observation: JSON, legal_actions: list[str], timeout: float) -> object:
        return self._guard("act", self.bot.act, observation, legal_actions)

    def end(self, result: JSON, timeout: float) -> None:
        hook = getattr(self.bot, "end", None)
        if callable(hook):
            self._guard("end", hook, result)

    def close(self) -> None:
        self.bot = None

    def logs(self) -> str:
        return self.log_tail.text()

    def _guard(self, where: str, fn: Any, *args: Any) -> Any:
        now = calling()
        with capture_logs():
            before, now.tail = now.tail, self.log_tail
            try:
                return fn(*args)
            except Exception as exc:
                raise AgentCrash(f"{where} raised {type(exc).__name__}: {exc}") from exc
            finally:
                now.tail = before


class _Format(logging.Formatter):
    """``LEVEL name: message``; a bot file's own module (named after a hash of its path) is
    left unnamed: ``LEVEL: message``."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        if record.name.startswith(BOT_MODULE):
            return f"{record.levelname}: {record.message}"
        return f"{record.levelname} {record.name}: {record.message}"


class _BotLogs(logging.Handler):
    """The root logger's handler that takes an in-process bot's records into its log."""

    def emit(self, record: logging.LogRecord) -> None:
        tail = calling().tail  # (logging calls its handlers in the thread that logs)
        if tail is None:
            _as_before(record)
            return
        try:
            tail.add(f"{self.format(record)}\n".encode("utf-8", "replace"))
        except Exception:
            self.handleError(record)


_HANDLER = _BotLogs()
_HANDLER.setFormatter(_Format())


class _Capture:
    """The blocks of :func:`capture_logs` open, in every thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0

    def __enter__(self) -> None:
        root = logging.getLogger()
        with self.lock:
            self.users += 1
            if _HANDLER not in root.handlers:
                root.addHandler(_HANDLER)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.users -= 1
            if not self.users:
                logging.getLogger().removeHandler(_HANDLER)


_CAPTURE = _Capture()


def capture_logs() -> AbstractContextManager[None]:
    """Keep the handler that takes in-process bots' log records on the root logger for the
    block (blocks nest, in any thread; the last one to end takes it off)."""
    return _CAPTURE


def _as_before(record: logging.LogRecord) -> None:
    """Do with a record no bot's call claims what logging does without this handler: nothing
    more when another handler on its way up took it, else the last resort's (stderr, from
    WARNING up), as ``Logger.callHandlers`` does."""
    logger: logging.Logger | None = logging.getLogger()
    known = logging.Logger.manager.loggerDict.get(record.name)
    if isinstance(known, logging.Logger):
        logger = known
    while logger is not None:
        if any(handler is not _HANDLER for handler in logger.handlers):
            return
        logger = logger.parent if logger.propagate else None
    last = logging.lastResort
    if last is not None:
        if record.levelno >= last.level:
            last.handle(record)
    elif logging.raiseExceptions and not logging.Logger.manager.emittedNoHandlerWarning:
        sys.stderr.write(f'No handlers could be found for logger "{record.name}"\n')
        logging.Logger.manager.emittedNoHandlerWarning = True
