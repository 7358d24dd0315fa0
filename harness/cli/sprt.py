"""`tourney gauntlet GAME NEW OLD --sprt ...`: a gauntlet that stops when the SPRT knows.

Thin: the test lives in :mod:`harness.league.sequential`; this parses the options, runs it and
prints the verdict as text or JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness.cli.options import fail

if TYPE_CHECKING:
    from harness.league.service import League
    from harness.stats.sprt import SprtParams

SPRT_EXAMPLE = "elo0=0,elo1=10,alpha=0.05,beta=0.05"
"""The example of the --sprt help (the statistics import numpy, so the help names the keys
itself; tests/cli check that it parses and that every key of ``parse_sprt`` is named)."""

SprtOpt = Annotated[str | None, typer.Option(
    "--sprt", metavar="SPEC",
    help=f"Play until the SPRT accepts a hypothesis (one opponent only; --games is then the "
         f"cap). SPEC: the Elo difference of H0 and H1 and the error rates, as fishtest "
         f"writes them, e.g. {SPRT_EXAMPLE}; add ,model=logistic for the logistic Elo "
         f"model (default model=normalized).")]
SprtFormatOpt = Annotated[str, typer.Option(
    "--format", "-f", metavar="FORMAT", help="How to print the SPRT's result: table or json.")]
FORMATS = ("table", "json")


def sprt_params(spec: str, fmt: str) -> SprtParams:
    """The parsed --sprt setting; bad input stops the command with one line."""
    from harness.stats.sprt import parse_sprt

    if fmt not in FORMATS:
        fail(f"unknown --format {fmt!r}; choose one of {', '.join(FORMATS)}")
    try:
        return parse_sprt(spec)
    except ValueError as exc:
        fail(str(exc))


def cap(games: int | None, out: Path) -> int | None:
    """--games, or for a new folder the default cap of an SPRT (a stored league keeps its own)."""
    from harness.league.folder import ResultsFolder
    from harness.league.sequential import DEFAULT_CAP

    if games is None and not ResultsFolder(out).holds_league():
        return DEFAULT_CAP
    return games


def run_sprt_command(prepare: Callable[[], League], params: SprtParams, fmt: str,
                     workers: int | None, cluster: str | None, quiet: bool, batch_size: int,
                     game_timeout: float | None) -> None:
    """Run the SPRT gauntlet and print its verdict (JSON on stdout alone with --format json)."""
    from harness.league.sequential import report_lines, run_sprt

    if batch_size < 1:
        fail(f"--batch-size must be at least 1 (got {batch_size})")
    league = prepare()
    as_json = fmt == "json"
    executor = league.executor(workers, cluster, game_timeout)
    run = run_sprt(league, params, executor, progress=not quiet, batch_size=batch_size)
    if run.summary is not None:
        for line in league.summary_lines(run.summary):
            typer.echo(line, err=as_json)
    else:
        why = "already decide the test" if run.gate.done else \
            f"reach the cap of {run.gate.scheduled_games} games"
        typer.echo(f"{league.out}: the stored games {why}; nothing to play", err=as_json)
    if as_json:
        typer.echo(json.dumps(run.as_dict(), indent=2))
    else:
        for line in report_lines(run):
            typer.echo(line)
    if run.summary is not None and run.summary.interrupted:
        typer.echo(f"interrupted; continue with:\n  {league.plan.resume_command}", err=True)
        raise typer.Exit(130)
