"""The start-up check: launch a bot once, give it ``start(info)`` and see that it answers in time.

``tourney validate`` runs it before its test games and a league runs it for every bot before the
first game (:mod:`harness.league.preflight`), so a bot that cannot start is caught once, with
its reason, instead of forfeiting every game it was scheduled for.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.records import GameSpec, Limits

if TYPE_CHECKING:
    from games.protocol import Game


@dataclass
class Startup:
    """How a bot's start went: ``reason`` is empty when it started."""

    reason: str = ""
    seconds: float = 0.0  # from the process launch (or the load) to the answer of start
    answered: float = 0.0  # from the start message to its answer
    sandbox: dict[str, Any] = field(default_factory=dict)  # what the sandbox reported

    @property
    def ok(self) -> bool:
        return not self.reason


def check_startup(spec: str, game: Game, variant: dict[str, str], limits: Limits) -> Startup:
    """Open the bot ``spec`` (sandboxed or in-process, as the spec says) with ``limits``, send
    it the ``start`` of seat 0 of ``game`` and close it."""
    from harness.bots import open_agent
    from harness.bots.protocol import AgentError
    from harness.bots.spec import BotSpecError, parse_spec
    from harness.match.referee import start_info

    try:
        source = parse_spec(spec)
    except BotSpecError as exc:
        return Startup(reason=f"could not load: {exc}")
    if source.sandboxed:
        from harness.bots.sandbox import harden_referee

        harden_referee()
    players = game.new_game(1, **variant).num_players
    probe = GameSpec("start-up-check", game.info.name, variant, 1, (), limits=limits)
    info = start_info(probe, variant, 0, players, game.info.rules_version)
    t0 = time.perf_counter()
    try:
        agent = open_agent(source, limits)
    except AgentError as exc:
        return Startup(reason=exc.reason)
    t1 = time.perf_counter()
    try:
        agent.start(info, limits.startup_time)
    except AgentError as exc:
        return Startup(reason=exc.reason)
    finally:
        agent.close()
    done = time.perf_counter()
    spawned = float(getattr(agent, "spawned", t0))
    return Startup(seconds=done - spawned, answered=done - t1,
                   sandbox=dict(getattr(agent, "sandbox", {}) or {}))
