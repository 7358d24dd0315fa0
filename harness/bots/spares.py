"""Bot processes made ahead of their game, so a league's sandboxed game does not wait for them.

Starting a sandboxed Python bot takes a few milliseconds of the start-up server's and the
kernel's time (namespaces, control groups, mounts, the filter; see
:mod:`harness.bots.forkserver`), most of it spent while nothing else of the referee's can go
on. A league worker knows the next game it will play, so while it plays one game it asks for
the next game's processes (:func:`expect`), and the next game takes them (:func:`take`) instead
of starting its own.

Nothing is shared between games: a spare is a fresh process, made for one game and used by at
most one, and it runs no code of its bot before that game starts it (the runner loads the bot
at its first ``start``: :func:`harness.bots.runner.serve`). Until then it waits, confined, for
its first request. Its start-up time counts from the moment its game takes it. A spare whose
bot files changed since it was made, or whose process ended, is closed and never used.

Only processes from the start-up server are made ahead (a ``cmd:`` bot's program runs as soon
as its jail starts it). At most :data:`MOST` spares wait at once; the oldest is closed first.
A process that keeps spares closes them when it is done (:func:`drop`).
"""

from __future__ import annotations

import collections
import contextlib

from harness.bots.protocol import AgentError
from harness.bots.sandbox import SandboxedAgent
from harness.bots.spec import BotSpec, BotSpecError, is_sandboxed, parse_spec
from harness.records import GameSpec, Limits

MOST = 8  # spares waiting at once in one process (two games of four seats)

_Key = tuple[BotSpec, Limits]
_waiting: collections.OrderedDict[int, tuple[_Key, SandboxedAgent]] = collections.OrderedDict()
_made = 0


def seats_of(spec: GameSpec) -> list[_Key]:
    """The sandboxed seats of a game: each bot's spec and limits (a spec that does not parse is
    left to the game, whose referee says why)."""
    seats = []
    for seat, ref in enumerate(spec.seats):
        if not is_sandboxed(ref.spec):
            continue
        try:
            source = parse_spec(ref.spec)
        except BotSpecError:
            continue
        if source.sandboxed and not source.command:
            seats.append((source, spec.limits_of(seat)))
    return seats


def expect(spec: GameSpec | None) -> None:
    """Make the processes of ``spec``'s sandboxed seats ahead of its game (None: nothing)."""
    global _made
    if spec is None:
        return
    for key in seats_of(spec):
        try:
            agent = SandboxedAgent(*key, ahead=True)
        except AgentError:  # the game itself will say why its bot could not start
            continue
        if not agent.forked:  # not from the start-up server: it would run its bot at once
            agent.close()
            continue
        _made += 1
        _waiting[_made] = (key, agent)
        while len(_waiting) > MOST:
            _, (_, oldest) = _waiting.popitem(last=False)
            oldest.close()


def take(source: BotSpec, limits: Limits) -> SandboxedAgent | None:
    """The oldest spare made for this bot and these limits that can still be used, or None."""
    for number, (key, agent) in list(_waiting.items()):
        if key != (source, limits):
            continue
        del _waiting[number]
        if agent.usable():
            return agent
        agent.close()
    return None


def waiting() -> int:
    """How many spares wait (for tests and the bench)."""
    return len(_waiting)


def drop() -> None:
    """Close every spare (the process that kept them is done)."""
    while _waiting:
        _, (_, agent) = _waiting.popitem()
        with contextlib.suppress(Exception):
            agent.close()

