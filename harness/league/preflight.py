"""Before the first game: every bot of the league is started once, as ``tourney validate``
starts it (:func:`harness.match.startup.check_startup`), under the limits it will play with.

A bot that cannot start would forfeit every game it was scheduled for; the league stops
instead, one line per broken bot, before anything is written to the results folder (not even
``league.json``), so the fixed file is accepted under the same name.
"""

from __future__ import annotations

import re

from harness.league.config import LeagueConfig
from harness.records import BotRef, TourneyError


class BotsCannotStart(TourneyError):
    """Some bots of the league failed their start-up check: one line per bot."""


def _one_line(reason: str, width: int = 300) -> str:
    text = re.sub(r"\s+", " ", reason).strip()
    return text if len(text) <= width else text[: width - 3] + "..."


def check_bots(config: LeagueConfig, bots: list[BotRef]) -> list[str]:
    """One line per bot of ``bots`` that does not start (empty: all start)."""
    from games import registry
    from harness.match.startup import check_startup

    game, variant = registry.choose(config.game, config.variant)
    problems = []
    for ref in bots:
        started = check_startup(ref.spec, game, variant, config.limits_for(ref.name))
        if not started.ok:
            problems.append(f"bot {ref.name!r} ({ref.spec}) cannot start: "
                            f"{_one_line(started.reason)}")
    return problems


def require_bots_start(config: LeagueConfig, bots: list[BotRef]) -> None:
    """Raise :class:`BotsCannotStart` naming every bot of ``bots`` that does not start."""
    problems = check_bots(config, bots)
    if problems:
        raise BotsCannotStart("\n".join([
            *problems,
            f"no game was played and nothing was stored; fix the "
            f"bot{'s' if len(problems) > 1 else ''} (`tourney validate SPEC --game "
            f"{config.game}` shows more) and run the same command again",
        ]))
