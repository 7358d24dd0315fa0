"""What anyone may see of a competition, logged in or not: the leaderboard with each entrant's
games, score, wins, draws and losses and when it last played; each entrant's public page (its
versions with their dates and status, and its recent games, each with its replay).

What stays the entrant's own (and the organiser's): why a version was refused and its entry
check's report, its bots' logs, its tokens, its code. The pages and the API of
:mod:`harness.serve.app` read these answers; nothing here reads a request.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from harness.arena.registry import public_reason
from harness.league.index import Tally
from harness.serve.db import ServeError

if TYPE_CHECKING:
    from harness.serve.competition import Competition

PUBLIC_GAMES = 50  # the newest games an entrant's public page lists


class Public:
    """The public side of a competition. The wins, draws and losses of every bot are kept
    here and brought up to date from the games stored since (the index's sequence numbers),
    so a leaderboard costs what the new games cost."""

    def __init__(self, competition: Competition) -> None:
        self.competition = competition
        self._lock = threading.Lock()
        self._seq = 0
        self._count = 0
        self._tallies: dict[str, Tally] = {}
        self._made: tuple[dict[str, Any], dict[str, Any]] | None = None  # (board, ours)

    def tallies(self) -> dict[str, Tally]:
        """Every bot's wins, draws, losses and last game, up to the newest stored game."""
        index = self.competition.index
        with self._lock:
            count = index.count()
            if count < self._count:  # games forgotten (a batch quarantined): count again
                self._seq, self._tallies = 0, {}
            seq, new = index.tallies(self._seq)
            for bot, tally in new.items():
                self._tallies[bot] = self._tallies.get(bot, Tally()) + tally
            self._seq, self._count = seq, count
            return dict(self._tallies)

    def leaderboard(self) -> dict[str, Any]:
        """The competition's leaderboard, each line with the version's rated games' score
        (draws count half), wins, draws and losses, and when it last played."""
        board = self.competition.leaderboard()
        made = self._made
        if made is not None and made[0] is board:  # the competition's own, kept a second
            return made[1]
        tallies = self.tallies()
        rows = []
        for row in board["entrants"]:
            tally = tallies.get(f"{row['entrant']}.v{row['version']}", Tally())
            played = tally.wins + tally.draws + tally.losses
            rows.append({**row, "wins": tally.wins, "draws": tally.draws,
                         "losses": tally.losses,
                         "score": None if not played else
                         round((tally.wins + tally.draws / 2) / played, 4),
                         "last_active": tally.last})
        out = {**board, "entrants": rows}
        self._made = (board, out)
        return out

    def entrant(self, name: str) -> dict[str, Any]:
        """An entrant's public page: its line on the leaderboard, every version with its
        dates and status (a refusal's reason left out: it is the entrant's own), and its
        newest games. 404 for a name that is no entrant."""
        comp = self.competition
        with comp.registry() as registry:
            known = registry.entrant(name)
            versions = registry.entrant_versions(name)
        if known is None:
            raise ServeError(f"no entrant {name!r}; the leaderboard lists every entrant", 404)
        line = next((row for row in self.leaderboard()["entrants"]
                     if row["entrant"] == name), None)
        return {
            "entrant": name, "joined": known[0], "retired": known[1] or "",
            "standing": line,
            "versions": [{"bot": v.bot, "version": v.version, "status": v.status,
                          "note": public_reason(v.status, v.reason), "added": v.added,
                          "changed": v.changed} for v in reversed(versions)],
            "games": [_public_game(g) for g in comp.games_of(name, PUBLIC_GAMES)],
        }


def _public_game(game: dict[str, Any]) -> dict[str, Any]:
    """A game as a public list shows it, with where its replay is."""
    return {**game, "replay": f"/games/{game['game_id']}"}
