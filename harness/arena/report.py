"""The living league's HTML report: the league report (:mod:`harness.league.report`) with each
entrant's status, in its public form (no organiser-side paths), rewritten as the arena runs."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from harness.arena.registry import Registry, public_reason
from harness.league.report import DEFAULT_REPLAYS, ReportSummary, write_report


def write(folder: Path, out: Path, replays: int | None = DEFAULT_REPLAYS) -> ReportSummary:
    """Write the report of the arena in ``folder`` to ``out``."""
    return write_report([folder], out, replays=replays, keep_existing_replays=True,
                        entrants=report_rows(folder), public=True)


class ArenaReport:
    """Rewrites the report at most every ``interval`` seconds, and once at the end."""

    def __init__(self, folder: Path, out: Path, interval: float = 60.0) -> None:
        self.folder, self.out, self.interval = folder, out, interval
        self.last = 0.0

    def tick(self) -> None:
        if time.monotonic() - self.last >= self.interval:
            self.write()

    def write(self) -> ReportSummary:
        self.last = time.monotonic()
        return write(self.folder, self.out)


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
