"""`tourney report`, `tourney replay --html` and `tourney league --report`: thin commands over
:mod:`harness.figures.report`. Its errors (``ReportError``, the store's and the league's) are
``TourneyError``\\ s, which :mod:`harness.cli.app` turns into one line and exit status 2."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from harness.cli.options import fail


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


def report_cmd(
    folders: Annotated[list[Path], typer.Argument(help="One or more results folders.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")]
    = Path("report.html"),
    replays: Annotated[str, typer.Option(
        "--replays", help="Games whose replays the page holds (a number, or 'all', about 5 kB "
                          "a game); with a number, forfeits and void games first, then spread "
                          "over the pairings.")]
    = "all",
    public: Annotated[bool | None, typer.Option(
        "--public/--private", help="Leave out every path of yours (folders, bot files), for a "
                                   "report to share (default: public for a living league).")]
    = None,
) -> None:
    """Write one self-contained HTML report of the leagues stored in FOLDERS.

    Leaderboard, head to head, ratings over the league, terminations, think time,
    configuration and the games, each of which opens its replay (held in the page,
    compressed); for a living league (tourney arena) also each entrant's versions with their
    status. Nothing else is written.
    """
    from harness.arena.registry import DB_FILE
    from harness.figures.report import write_report

    arenas = [f for f in folders if (f / DB_FILE).is_file()]
    entrants = None
    if arenas:
        from harness.arena.report import report_rows

        entrants = [row for folder in arenas for row in report_rows(folder)]
    shared = bool(arenas) if public is None else public
    summary = write_report(folders, out, replays=_replay_count(replays), entrants=entrants,
                           public=shared)
    for line in summary.skipped:
        typer.echo(f"tourney: warning: {line}", err=True)
    typer.echo(f"wrote {out} ({summary.bytes / 1e6:.2f} MB, {summary.games} games, the "
               f"replays of {summary.replays} in it: {summary.replay_bytes / 1e6:.2f} MB)")


def write_replay_html(folder: Path, game_id: str, out: Path) -> None:
    """`tourney replay FOLDER GAME_ID --html FILE` (called by the replay command)."""
    from harness.figures.report import write_replay

    full = write_replay(folder, game_id, out)
    typer.echo(f"wrote {out} (game {full})")


class LeagueReport:
    """`tourney league --report`: the report (``path``, default OUT/report.html) written after
    the first game, then every minute (a live page, which reloads itself), and at the end.

    A report that cannot be written is a warning (once): the league goes on.
    """

    def __init__(self, out: Path, path: Path | None = None, interval: float = 60.0) -> None:
        from harness.figures.report import ReportUpdater

        self.updater = ReportUpdater(out, path if path is not None else out / "report.html",
                                     interval=interval)
        self.updater.last = float("-inf")  # a resumed league's report is brought up to date
        self.warned = False

    def tick(self, *_: object) -> None:
        self._guard(self.updater.tick)

    @property
    def path(self) -> Path:
        return self.updater.out

    def write(self) -> None:
        self._guard(self.updater.write)

    def _guard(self, step: Callable[[], object]) -> None:
        from harness.records import TourneyError

        try:
            step()
        except TourneyError as exc:
            if not self.warned:
                typer.echo(f"tourney: warning: report not updated: {exc}", err=True)
            self.warned = True
