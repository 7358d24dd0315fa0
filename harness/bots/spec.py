"""Bot spec -> agent.

A bot spec names a bot:

* ``path/to/bot.py``: a Python bot file with exactly one bot (a class with ``act``, or a plain
  ``act`` function); ``path/to/bot.py:ClassName`` picks one when the file defines several.
* ``random``, ``greedy``: the built-in bots (ordinary bot files in the ``agents`` package).
* ``cmd:<command line>``: any executable that speaks the wire protocol on stdin/stdout.

Bot files run sandboxed in their own process; built-ins run in the referee's process (trusted,
fast). The prefixes ``sandbox:`` and ``inproc:`` override that choice explicitly, e.g.
``sandbox:greedy`` or ``inproc:mybot.py`` (an in-process bot is trusted: it is not time-limited
by killing and could read the referee's memory).
"""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.bot_runner import BotLoadError, load_bot_file
from harness.protocol import JSON, Agent, AgentCrash
from harness.records import Limits

if TYPE_CHECKING:
    from harness.bot_runner import BotFactory

AGENTS_DIR = Path(__file__).resolve().parent.parent / "agents"
BUILTINS = ("random", "greedy")
SPEC_HELP = "a .py bot file, file.py:ClassName, a built-in (random, greedy) or cmd:COMMAND"


class BotSpecError(ValueError):
    """A bot spec that names nothing usable; the message says what to write instead."""


@dataclass(frozen=True)
class BotSource:
    """A parsed bot spec."""

    spec: str  # as given
    path: Path | None  # the bot file (None for cmd:)
    entry: str | None  # explicit class or function name
    command: tuple[str, ...]  # cmd: bots
    builtin: str  # the built-in's name, or ""
    sandboxed: bool  # run in its own process

    @property
    def label(self) -> str:
        if self.builtin:
            return self.builtin
        if self.path is not None:
            return self.path.name + (f":{self.entry}" if self.entry else "")
        return " ".join(self.command)


def parse_spec(spec: str) -> BotSource:
    """Parse a bot spec; :class:`BotSpecError` if it cannot name a bot (e.g. a missing file)."""
    text = spec.strip()
    force: bool | None = None
    if text.startswith("sandbox:"):
        force, text = True, text.removeprefix("sandbox:")
    elif text.startswith("inproc:"):
        force, text = False, text.removeprefix("inproc:")
    if text.startswith("cmd:"):
        if force is False:
            raise BotSpecError(f"{spec!r}: an external command always runs in its own process")
        try:
            command = tuple(shlex.split(text.removeprefix("cmd:")))
        except ValueError as exc:
            raise BotSpecError(f"{spec!r}: cannot split the command line ({exc})") from None
        if not command:
            raise BotSpecError(f"{spec!r} names no command; write cmd:<command line>")
        return BotSource(spec, None, None, command, "", True)
    if text in BUILTINS:
        path = AGENTS_DIR / f"{text}.py"
        return BotSource(spec, path, None, (), text, force is True)
    file_part, entry = text, None
    head, sep, tail = text.rpartition(":")
    if sep and head.endswith(".py") and tail.isidentifier():
        file_part, entry = head, tail
    if not file_part.endswith(".py"):
        raise BotSpecError(f"{spec!r} is not a bot spec; give {SPEC_HELP}")
    path = Path(file_part).expanduser()
    if not path.is_file():
        raise BotSpecError(f"bot file {file_part!r} not found; check the path (or use {SPEC_HELP})")
    return BotSource(spec, path.resolve(), entry, (), "", force is not False)


def is_sandboxed(spec: str) -> bool:
    """Whether ``spec`` runs in its own process, decided as :func:`parse_spec` does but from the
    text alone (no file system access): everything but trusted built-ins and ``inproc:``.

    >>> [is_sandboxed(s) for s in ("random", "sandbox:greedy", "bot.py", "inproc:bot.py")]
    [False, True, True, False]
    """
    text = spec.strip()
    if text.startswith("sandbox:") or text.startswith("cmd:"):
        return True
    return not (text.startswith("inproc:") or text in BUILTINS)


def spec_hash(spec: str) -> str:
    """SHA-256 of the bot's file (empty for external commands): results name the exact code."""
    source = parse_spec(spec)
    if source.path is None:
        return ""
    return hashlib.sha256(source.path.read_bytes()).hexdigest()


_FACTORIES: dict[tuple[str, int, str], BotFactory] = {}


def load_factory(source: BotSource) -> BotFactory:
    """Load a bot file into this process (cached per file version): a factory of fresh bots."""
    if source.path is None:
        raise BotLoadError(f"{source.spec!r} is an external command, not a Python file")
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


def open_agent(source: BotSource, limits: Limits) -> Agent:
    """A ready-to-start agent for ``source``: sandboxed process or in-process object.

    Raises :class:`harness.protocol.AgentCrash` when an in-process bot cannot be loaded.
    """
    if source.sandboxed:
        from harness.sandbox import SandboxedAgent

        return SandboxedAgent(source, limits)
    try:
        factory = load_factory(source)
    except BotLoadError as exc:
        raise AgentCrash(f"could not load bot: {exc}") from None
    try:
        return InProcessAgent(factory())
    except Exception as exc:
        raise AgentCrash(f"creating the bot raised {type(exc).__name__}: {exc}") from None
