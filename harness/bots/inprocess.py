"""Trusted bots in the referee's process: a bot file loaded here, called directly.

An in-process bot is not time-limited by killing and could read the referee's memory: only the
built-ins run this way by default (``inproc:`` asks for it explicitly).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.bots.protocol import JSON, AgentCrash
from harness.bots.runner import BotLoadError, load_bot_file
from harness.bots.spec import BotSpec

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


class InProcessAgent:
    """A trusted bot object living in the referee's process (no deadline enforcement)."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def start(self, info: JSON, timeout: float) -> None:
        hook = getattr(self.bot, "start", None)
        if callable(hook):
            _guard("start", hook, info)

    def act(self, observation: JSON, legal_actions: list[str], timeout: float) -> object:
        return _guard("act", self.bot.act, observation, legal_actions)

    def end(self, result: JSON, timeout: float) -> None:
        hook = getattr(self.bot, "end", None)
        if callable(hook):
            _guard("end", hook, result)

    def close(self) -> None:
        self.bot = None

    def logs(self) -> str:
        return ""


def _guard(where: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as exc:
        raise AgentCrash(f"{where} raised {type(exc).__name__}: {exc}") from exc
