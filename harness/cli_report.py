"""`tourney report` and the HTML viewer of `tourney replay --html`: thin commands over
:mod:`harness.league.report`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from harness.cli import app, fail


def _replay_count(text: str) -> int | None:
    if text == "all":
        return None
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        fail(f"--replays must be a number of games or 'all' (got {text!r})")
    return n


@app.command("report")
def report_cmd(
    folders: Annotated[list[Path], typer.Argument(help="One or more results folders.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")]
    = Path("report.html"),
    replays: Annotated[str, typer.Option(
        "--replays", help="Replay viewers to write beside the report (a number, or 'all'); "
                          "forfeits and void games first, then spread over the pairings.")]
    = "100",
) -> None:
    """One self-contained HTML report of a league: leaderboard, head to head, ratings over the
    league, terminations, think time, configuration and the games with links to replays."""
    from harness.league.report import ReportError, write_report
    from harness.store import StoreError

    count = _replay_count(replays)
    try:
        summary = write_report(folders, out, replays=count)
    except (ReportError, StoreError) as exc:
        fail(str(exc))
    for line in summary.skipped:
        typer.echo(f"tourney: warning: {line}", err=True)
    typer.echo(f"wrote {out} ({summary.bytes / 1e6:.2f} MB, {summary.games} games, "
               f"{summary.replays} replay viewers)")


def write_replay_html(folder: Path, game_id: str, out: Path) -> None:
    """`tourney replay FOLDER GAME_ID --html FILE` (called by the replay command)."""
    from harness.league.report import ReportError, write_replay
    from harness.store import StoreError

    try:
        full = write_replay(folder, game_id, out)
    except (ReportError, StoreError) as exc:
        fail(str(exc))
    typer.echo(f"wrote {out} (game {full})")


class LeagueReport:
    """`tourney league --report`: OUT/report.html rewritten every minute and at the end.

    A report that cannot be written is a warning (once): the league goes on.
    """

    def __init__(self, out: Path, interval: float = 60.0) -> None:
        from harness.league.report import ReportUpdater

        self.updater = ReportUpdater(out, out / "report.html", interval=interval)
        self.warned = False

    def tick(self, *_: object) -> None:
        self._guard(self.updater.tick)

    @property
    def path(self) -> Path:
        return self.updater.out

    def write(self) -> None:
        self._guard(self.updater.write)

    def _guard(self, step: Callable[[], object]) -> None:
        from harness.league.report import ReportError

        try:
            step()
        except ReportError as exc:
            if not self.warned:
                typer.echo(f"tourney: warning: report not updated: {exc}", err=True)
            self.warned = True
