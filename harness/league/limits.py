"""Limits per bot: ``NAME=SPEC@move-time=0.5,memory-mb=512`` on the league's command line.

The keys are the names of the options of ``tourney play`` without their dashes, so one word
means one thing everywhere. :func:`split_limits` takes them off a bot argument;
:func:`apply_overrides` lays them over the league's limits. A league stores the overrides per
bot name in ``league.json`` (``bot_limits``), in the field names of
:class:`harness.records.Limits`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from harness.records import Limits, TourneyError


class LimitError(TourneyError):
    """A limit that cannot be used; one line naming it and the fix."""


def _positive(value: float) -> bool:
    return value > 0


# option word -> (Limits field, parse, check, what the check wants)
_KEYS: dict[str, tuple[str, Callable[[str], Any], Callable[[float], bool], str]] = {
    "move-time": ("move_time", float, _positive, "positive seconds"),
    "overage": ("overage", float, lambda v: v >= 0, "0 or more seconds"),
    "startup-time": ("startup_time", float, _positive, "positive seconds"),
    "memory-mb": ("memory_bytes", int, lambda v: v >= 16, "at least 16 (MB)"),
    "cpu-seconds": ("cpu_seconds", int, lambda v: v >= 1, "at least 1 (seconds)"),
}
KEYS = tuple(_KEYS)


def parse_limit(key: str, text: str, where: str) -> tuple[str, float | int]:
    """``move-time``, ``"0.5"`` -> ``("move_time", 0.5)``; memory in MB becomes bytes."""
    if key not in _KEYS:
        raise LimitError(f"unknown limit {key!r} in {where}; choose from {', '.join(KEYS)}")
    field, parse, check, wanted = _KEYS[key]
    try:
        value = parse(text)
    except ValueError:
        raise LimitError(f"{key}={text} in {where}: not a number; give {wanted}") from None
    if not check(value):
        raise LimitError(f"{key}={text} in {where}: give {wanted}")
    return field, (value << 20 if field == "memory_bytes" else value)


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


def describe(overrides: Mapping[str, float | int]) -> str:
    """The overrides as the command line writes them (``move-time=0.2,memory-mb=512``)."""
    words = {field: key for key, (field, *_rest) in _KEYS.items()}
    return ",".join(
        f"{words.get(k, k)}={int(v) >> 20 if k == 'memory_bytes' else v:g}"
        for k, v in sorted(overrides.items()))


def from_options(base: Limits, *, move_time: float | None = None,
                 overage: float | None = None, startup_time: float | None = None,
                 memory_mb: int | None = None, cpu_seconds: int | None = None) -> Limits:
    """``base`` with the limit options a command was given (None: not given) laid over it."""
    given = {"move-time": move_time, "overage": overage, "startup-time": startup_time,
             "memory-mb": memory_mb, "cpu-seconds": cpu_seconds}
    return apply_overrides(base, dict(parse_limit(key, str(value), f"--{key}")
                                      for key, value in given.items() if value is not None))
