"""The living league's HTML report: the league report (:mod:`harness.figures.report`) with each
entrant's status, in its public form (no organiser-side paths), rewritten as the arena runs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from harness.arena.registry import Registry, public_reason
from harness.figures.report import ReportSummary, write_report

#: Games whose replays the living league's report holds (a few kB each): a league that runs
#: for weeks would otherwise grow its page without end; `tourney report` writes them all.
ARENA_REPLAYS = 2000


def write(folder: Path, out: Path, replays: int | None = ARENA_REPLAYS, *,
          cache: dict[str, str] | None = None, live: bool = False) -> ReportSummary:
    """Write the report of the arena in ``folder`` to ``out`` (see
    :func:`harness.figures.report.write_report` for ``cache`` and ``live``)."""
    return write_report([folder], out, replays=replays, entrants=report_rows(folder),
                        public=True, cache=cache, live=live)


class ArenaReport:
    """Rewrites the report at most every ``interval`` seconds (a live page, which reloads
    itself), and once at the end; each game's replay is built once."""

    def __init__(self, folder: Path, out: Path, interval: float = 60.0) -> None:
        self.folder, self.out, self.interval = folder, out, interval
        self.last = 0.0
        self.cache: dict[str, str] = {}

    def tick(self) -> None:
        if time.monotonic() - self.last >= self.interval:
            self.write(final=False)

    def write(self, final: bool = True) -> ReportSummary:
        self.last = time.monotonic()
        return write(self.folder, self.out, cache=self.cache, live=not final)


def report_rows(folder: Path) -> list[dict[str, Any]]:
    """Every version of the arena with its status and games, as the report's entrants panel
    shows them (the report is public: a refusal's reason is left to its entrant)."""
    from harness.arena.standings import read_totals

    with Registry.open(folder) as registry:
        versions = registry.versions()
    games = read_totals(folder).games
    return [{"entrant": v.entrant, "bot": v.bot, "version": v.version, "status": v.status,
             "reason": public_reason(v.status, v.reason), "games": games.get(v.bot, 0),
             "added": v.added}
            for v in versions]
