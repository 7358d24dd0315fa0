"""Bot specs: the text that names a bot, parsed once into a :class:`BotSpec` value.

A bot spec names a bot:

* ``path/to/bot.py``: a Python bot file with exactly one bot (a class with ``act``, or a plain
  ``act`` function); ``path/to/bot.py:ClassName`` picks one when the file defines several.
* ``random``, ``greedy``, ``mcts``: the built-in bots (ordinary bot files in the ``agents``
  package). A built-in takes options as ``NAME:key=value,...`` (``greedy:p=0.3``,
  ``mcts:ms=200``, ``mcts:iters=2000,c=0.5``), passed to its constructor as keyword arguments;
  :data:`BUILTIN_OPTIONS` lists each built-in's options. The options are part of the spec's text
  and of the bot's default name, so ``greedy`` and ``greedy:p=0.3`` are different bots in a league.
* ``cmd:<command line>``: any executable that speaks the wire protocol on stdin/stdout.

Bot files run sandboxed in their own process; built-ins run in the referee's process (trusted,
fast). The prefixes ``sandbox:`` and ``inproc:`` override that choice explicitly, e.g.
``sandbox:greedy`` or ``inproc:mybot.py`` (an in-process bot is trusted: it is not time-limited
by killing and could read the referee's memory).
"""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.records import TourneyError

AGENTS_DIR = Path(__file__).resolve().parents[2] / "agents"
BUILTINS = ("random", "greedy", "mcts")
SPEC_HELP = ("a .py bot file, file.py:ClassName, a built-in (random, greedy, mcts; options as "
             "greedy:p=0.3 or mcts:ms=200) or cmd:COMMAND")


@dataclass(frozen=True)
class Option:
    """One option of a built-in: how its text becomes a value, and which values are allowed."""

    kind: Callable[[str], Any]  # int, float or str
    allowed: Callable[[Any], bool]
    rule: str  # the allowed values in words, for the error message


def _choice(*words: str) -> Option:
    return Option(str, lambda v: v in words, "one of " + ", ".join(words))


_POSITIVE_INT = Option(int, lambda v: v >= 1, "a whole number >= 1")
_COUNT = Option(int, lambda v: v >= 0, "a whole number >= 0")

# The keyword arguments each built-in's constructor takes (agents/<name>.py documents them).
BUILTIN_OPTIONS: dict[str, dict[str, Option]] = {
    "random": {},
    "greedy": {"p": Option(float, lambda v: 0.0 <= v <= 1.0, "a probability from 0 to 1")},
    "mcts": {
        "iters": _POSITIVE_INT,
        "ms": Option(float, lambda v: v > 0, "a positive number of milliseconds"),
        "c": Option(float, lambda v: v >= 0, "a number >= 0"),
        "depth": _COUNT,
        "worlds": _COUNT,
        "rollout": _choice("policy", "random", "greedy"),
        "prior": _COUNT,
        "bias": _COUNT,
        "top": _COUNT,
    },
}


class BotSpecError(TourneyError, ValueError):
    """A bot spec that names nothing usable; the message says what to write instead."""


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot spec. ``str(spec)`` is its canonical text (a bot file's path absolute, so
    a league resumes from any directory), which parses back to an equal value.

    >>> str(parse_spec("sandbox:greedy")), parse_spec("greedy").sandboxed
    ('sandbox:greedy', False)
    """

    path: Path | None  # the bot file (None for cmd:)
    entry: str | None  # explicit class or function name
    command: tuple[str, ...]  # cmd: bots
    builtin: str  # the built-in's name, or ""
    sandboxed: bool  # run in its own process
    forced: bool = False  # the mode was asked for with a sandbox: or inproc: prefix
    command_line: str = ""  # a cmd: bot's command line as written
    options: tuple[tuple[str, str], ...] = ()  # a built-in's options, canonical text, in order

    @property
    def prefix(self) -> str:
        """``sandbox:`` or ``inproc:`` when the spec asks for its mode, else empty."""
        if not self.forced:
            return ""
        return "sandbox:" if self.sandboxed else "inproc:"

    @property
    def builtin_text(self) -> str:
        """The built-in with its options, e.g. ``greedy:p=0.3`` (empty for other bots)."""
        if not self.builtin or not self.options:
            return self.builtin
        return self.builtin + ":" + ",".join(f"{k}={v}" for k, v in self.options)

    def kwargs(self) -> dict[str, Any]:
        """The options as the bot's constructor takes them (typed values).

        >>> parse_spec("mcts:iters=50,rollout=greedy").kwargs()
        {'iters': 50, 'rollout': 'greedy'}
        """
        table = BUILTIN_OPTIONS.get(self.builtin, {})
        return {key: table[key].kind(value) for key, value in self.options}

    @property
    def label(self) -> str:
        if self.builtin:
            return self.builtin_text
        if self.path is not None:
            return self.path.name + (f":{self.entry}" if self.entry else "")
        return " ".join(self.command)

    @property
    def name(self) -> str:
        """A default display name: the built-in's with its options (``greedy:p=0.3``), the
        file's stem (``mybot.py:Fast`` gives ``mybot.Fast``) or the command's program name."""
        if self.builtin:
            return self.builtin_text
        if self.path is not None:
            return self.path.stem + (f".{self.entry}" if self.entry else "")
        return Path(self.command[0]).name

    def __str__(self) -> str:
        if self.command:
            return f"cmd:{self.command_line}"
        if self.builtin:
            return f"{self.prefix}{self.builtin_text}"
        return f"{self.prefix}{self.path}" + (f":{self.entry}" if self.entry else "")

    def in_sandbox(self) -> BotSpec:
        """The same bot, run sandboxed in its own process."""
        if self.command:
            return self
        return replace(self, sandboxed=True, forced=self.forced or not self.sandboxed)

    def sha256(self) -> str:
        """SHA-256 of the bot's file (empty for external commands): results name the exact
        code. Raises OSError when the file cannot be read."""
        if self.path is None:
            return ""
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def parse_spec(spec: str, *, check: bool = True) -> BotSpec:
    """Parse a bot spec; :class:`BotSpecError` if it cannot name a bot (e.g. a missing file).

    ``check=False`` reads the text alone, without touching the file system (a bot file's
    path is then neither checked nor made absolute).
    """
    text = spec.strip()
    force: bool | None = None
    if text.startswith("sandbox:"):
        force, text = True, text.removeprefix("sandbox:")
    elif text.startswith("inproc:"):
        force, text = False, text.removeprefix("inproc:")
    if text.startswith("cmd:"):
        if force is False:
            raise BotSpecError(f"{spec!r}: an external command always runs in its own process")
        line = text.removeprefix("cmd:")
        try:
            command = tuple(shlex.split(line))
        except ValueError as exc:
            raise BotSpecError(f"{spec!r}: cannot split the command line ({exc})") from None
        if not command:
            raise BotSpecError(f"{spec!r} names no command; write cmd:<command line>")
        return BotSpec(None, None, command, "", True, command_line=line)
    builtin, sep, option_text = text.partition(":")
    if builtin in BUILTINS:
        options = parse_options(builtin, option_text) if sep else ()
        path = AGENTS_DIR / f"{builtin}.py"
        return BotSpec(path, None, (), builtin, force is True, forced=force is not None,
                       options=options)
    file_part, entry = text, None
    head, sep, tail = text.rpartition(":")
    if sep and head.endswith(".py") and tail.isidentifier():
        file_part, entry = head, tail
    if not file_part.endswith(".py"):
        raise BotSpecError(f"{spec!r} is not a bot spec; give {SPEC_HELP}")
    path = Path(file_part).expanduser()
    if check:
        if not path.is_file():
            raise BotSpecError(
                f"bot file {file_part!r} not found; check the path (or use {SPEC_HELP})")
        path = path.resolve()
    return BotSpec(path, entry, (), "", force is not False, forced=force is not None)


def parse_options(builtin: str, text: str) -> tuple[tuple[str, str], ...]:
    """``"ms=200.0,c=.5"`` for ``builtin`` -> its options as canonical text (``ms=200``), in the
    order written; :class:`BotSpecError` names an unknown option or a bad value.

    >>> parse_options("greedy", "p=.3")
    (('p', '0.3'),)
    """
    table = BUILTIN_OPTIONS[builtin]
    known = ", ".join(table) or "none"
    out: dict[str, str] = {}
    parts = [p.strip() for p in text.split(",")]
    if not any(parts):
        raise BotSpecError(f"{builtin}:{text} gives no options; write {builtin} alone or "
                           f"{builtin}:key=value (options: {known})")
    for part in parts:
        key, sep, value = (s.strip() for s in part.partition("="))
        if key not in table:
            raise BotSpecError(f"{builtin} has no option {key!r}; its options: {known}")
        if not sep or not value:
            raise BotSpecError(f"{builtin} option {key!r} needs a value: write {key}=VALUE")
        if key in out:
            raise BotSpecError(f"{builtin} option {key!r} is given twice; give it once")
        option = table[key]
        try:
            typed = option.kind(value)
        except ValueError:
            typed = None
        if typed is None or not option.allowed(typed):
            raise BotSpecError(f"{builtin} option {key}={value}: give {option.rule}")
        out[key] = _canonical(typed)
    return tuple(out.items())


def _canonical(value: Any) -> str:
    """An option's value as the spec's text: ``200.0`` is written ``200``, ``.3`` as ``0.3``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def is_sandboxed(spec: str) -> bool:
    """Whether ``spec`` runs in its own process, read from the text alone (no file system
    access): everything but trusted built-ins and ``inproc:``; a spec that names nothing
    usable counts as sandboxed (the referee will judge it).

    >>> [is_sandboxed(s) for s in ("random", "sandbox:greedy", "bot.py", "inproc:bot.py")]
    [False, True, True, False]
    """
    try:
        return parse_spec(spec, check=False).sandboxed
    except BotSpecError:
        return True


def spec_hash(spec: str) -> str:
    """SHA-256 of the bot's file (empty for external commands): results name the exact code."""
    return parse_spec(spec).sha256()
