"""The games of a results folder as a list to pick from: ``tourney games-list DIR``.

Filtered by bot (in any seat), termination and winner (a bot's name, or ``draw``), each game
with its id (``tourney replay DIR ID`` takes it, or any unique prefix of it).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.records import TourneyError

FORMATS = ("table", "json")


class GamesListError(TourneyError):
    """A filter or format that cannot be used; one line naming it and the choices."""


@dataclass
class GameLine:
    """One stored game, as the list shows it."""

    game_id: str
    bots: list[str]  # per seat
    winner: str  # the winning bot, "draw", or "void"
    termination: str
    offender: str  # the bot that forfeited, or ""
    decisions: int
    duration: float
    reason: str


def _line(row: dict[str, Any]) -> GameLine:
    if not row["rated"]:
        winner = "void"
    elif row["winner"] is None:
        winner = "draw"
    else:
        winner = str(row["winner"])
    return GameLine(row["game_id"], list(row["bots"]), winner, row["termination"],
                    row["offender_bot"] or "", int(row["decisions"]), float(row["duration"]),
                    row["reason"])


def list_games(folder: Path, *, bot: str | None = None, termination: str | None = None,
               winner: str | None = None) -> list[GameLine]:
    """The games stored in ``folder`` that pass every filter given, sorted by id."""
    from harness.league import store
    from harness.records import Termination

    kinds = [t.value for t in Termination]
    if termination is not None and termination not in kinds:
        raise GamesListError(f"unknown --termination {termination!r}; choose one of "
                             f"{', '.join(kinds)}")
    rows = store.load_games([folder]).games.select(
        ["game_id", "bots", "winner", "rated", "termination", "offender_bot", "decisions",
         "duration", "reason"]).to_pylist()
    games = [_line(row) for row in rows]
    if bot is not None:
        names = {name for g in games for name in g.bots}
        if games and bot not in names:
            raise GamesListError(f"no bot {bot!r} in {folder}; its bots are "
                                 f"{', '.join(sorted(names))}")
        games = [g for g in games if bot in g.bots]
    if termination is not None:
        games = [g for g in games if g.termination == termination]
    if winner is not None:
        games = [g for g in games if g.winner == winner]
    return games


def render(games: list[GameLine], fmt: str = "table") -> str:
    """The list as an aligned table (one game a line) or JSON (``{"games": [...]}``)."""
    if fmt == "json":
        return json.dumps({"games": [asdict(g) for g in games]}, indent=1)
    if fmt != "table":
        raise GamesListError(f"unknown --format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if not games:
        return "no games match"
    head = ("game id", "bots", "winner", "termination", "moves", "seconds")
    body = [(g.game_id, " vs ".join(g.bots), g.winner,
             g.termination + (f" ({g.offender})" if g.offender else ""), str(g.decisions),
             f"{g.duration:.2f}") for g in games]
    widths = [max(len(r[i]) for r in (head, *body)) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in (head, *body)]
    lines.append(f"{len(games)} game{'s' if len(games) != 1 else ''}; replay one with "
                 f"`tourney replay DIR ID` (a unique prefix of the id is enough)")
    return "\n".join(lines)
