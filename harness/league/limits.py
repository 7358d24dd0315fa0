"""Limits given by a user: ``--move-time 0.5`` on a command, ``NAME=SPEC@move-time=0.5`` on one
bot of a league, both made from the one table :data:`harness.records.LIMIT_OPTIONS`.

The keys after a bot's ``@`` are the option words without their dashes, so one word means one
thing everywhere. :func:`split_limits` takes them off a bot argument; :func:`apply_overrides`
lays them over the league's limits; a command's limit options travel as one
:class:`LimitChoice` (to :meth:`harness.league.service.League.prepare`, say), laid over a base
by :meth:`LimitChoice.over` (:func:`from_options`).
A league stores the overrides per bot name in ``league.json`` (``bot_limits``), in the field
names of :class:`harness.records.Limits`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from harness.records import LIMIT_OPTIONS, LimitOption, Limits, TourneyError

BY_WORD: dict[str, LimitOption] = {option.word: option for option in LIMIT_OPTIONS}
BY_FIELD: dict[str, LimitOption] = {option.field: option for option in LIMIT_OPTIONS}
KEYS = tuple(BY_WORD)


class LimitError(TourneyError):
    """A limit that cannot be used; one line naming it and the fix."""


def parse_limit(key: str, text: str, where: str | None = None) -> tuple[str, float | int]:
    """``move-time``, ``"0.5"`` -> ``("move_time", 0.5)``; memory in MB becomes bytes.
    ``where``: the bot argument it came from (None: the command's option ``--KEY``)."""
    option = BY_WORD.get(key)
    if option is None:
        raise LimitError(f"unknown limit {key!r} in {where}; choose from {', '.join(KEYS)}")
    said = f"{key}={text} in {where}" if where is not None else f"--{key} {text}"
    try:
        value = option.number(text)
    except ValueError:
        raise LimitError(f"{said}: not a number; give {option.wanted}") from None
    return _checked(option, value, said)


def _checked(option: LimitOption, value: float, said: str) -> tuple[str, float | int]:
    if not option.check(value):
        raise LimitError(f"{said}: give {option.wanted}")
    return option.field, option.to_field(value)


def split_limits(text: str) -> tuple[str, dict[str, float | int]]:
    """A bot argument -> its spec and its own limits (field names of :class:`Limits`).

    >>> split_limits("slow=bots/slow.py@move-time=0.2,memory-mb=512")
    ('slow=bots/slow.py', {'move_time': 0.2, 'memory_bytes': 536870912})
    >>> split_limits("cmd:ssh me@host ./bot")
    ('cmd:ssh me@host ./bot', {})
    """
    head, sep, tail = text.rpartition("@")
    if not sep or "=" not in tail or " " in tail:
        return text, {}
    overrides: dict[str, float | int] = {}
    for part in tail.split(","):
        key, eq, value = part.partition("=")
        if not eq:
            raise LimitError(f"{part!r} in {text!r} is not KEY=VALUE; write e.g. "
                             f"NAME=SPEC@move-time=0.5,memory-mb=512")
        field, number = parse_limit(key.strip(), value.strip(), repr(text))
        overrides[field] = number
    return head, overrides


def apply_overrides(base: Limits, overrides: Mapping[str, float | int]) -> Limits:
    """``base`` with a bot's own limits laid over it."""
    fields: dict[str, Any] = dict(overrides)
    return dataclasses.replace(base, **fields) if fields else base


def in_words(limits: Mapping[str, float | int], sep: str = "=") -> list[str]:
    """Limits given by field name as the command line writes them, in the table's order:
    ``["move-time=0.2", "memory-mb=512"]`` (``sep=" "`` and a ``--`` prefix for options)."""
    return [f"{option.word}{sep}{option.from_field(limits[option.field]):g}"
            for option in LIMIT_OPTIONS if option.field in limits]


def describe(overrides: Mapping[str, float | int]) -> str:
    """The overrides as the command line writes them (``move-time=0.2,memory-mb=512``)."""
    return ",".join(in_words(overrides))


def as_options(limits: Mapping[str, float | int]) -> str:
    """Limits as a command's options write them (``--move-time 0.2 --memory-mb 512``)."""
    return " ".join(f"--{word}" for word in in_words(limits, sep=" "))


def from_options(base: Limits, given: Mapping[str, float | int | None]) -> Limits:
    """``base`` with the limit options a command was given laid over it; ``given`` by the
    options' Python names (``move_time``, ``memory_mb``), None: not given."""
    by_name = {option.name: option for option in LIMIT_OPTIONS}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise TypeError(f"not a limit option: {', '.join(unknown)}")
    return apply_overrides(base, dict(
        _checked(by_name[name], value, f"--{by_name[name].word} {_shown(value)}")
        for name, value in given.items() if value is not None))


@dataclasses.dataclass(frozen=True)
class LimitChoice:
    """The limit options a command was given, as one object: by the options' Python names
    (``move_time``, ``memory_mb``; None or absent: not given), in the options' units. What
    passes them on names no limit, so a new row of the table reaches every command.

    >>> LimitChoice({"move_time": 0.5}).over().move_time
    0.5
    """

    given: Mapping[str, float | int | None] = dataclasses.field(default_factory=dict)

    @classmethod
    def take(cls, values: dict[str, Any]) -> LimitChoice:
        """Take the limit options out of a command's keyword arguments."""
        return cls({o.name: values.pop(o.name) for o in LIMIT_OPTIONS if o.name in values})

    def any(self) -> bool:
        """Whether any limit was given."""
        return any(value is not None for value in self.given.values())

    def changed(self) -> dict[str, float | int]:
        """The limits given that differ from the defaults, by field name (as
        :func:`as_options` writes them).

        >>> as_options(LimitChoice({"move_time": 5.0, "memory_mb": None}).changed())
        '--move-time 5'
        """
        chosen, default = self.over(), Limits()
        return {o.field: getattr(chosen, o.field) for o in LIMIT_OPTIONS
                if getattr(chosen, o.field) != getattr(default, o.field)}

    def over(self, base: Limits | None = None) -> Limits:
        """``base`` (default :class:`Limits`) with the given limits laid over it; a value out
        of range is a :class:`LimitError` naming the option."""
        return from_options(base if base is not None else Limits(), self.given)


NO_LIMITS = LimitChoice()
"""No limit given: every limit is the base's."""


def _shown(value: float) -> str:
    """A number as the user typed it (typer hands -1 to a float option as -1.0)."""
    return str(int(value)) if float(value).is_integer() else str(value)
