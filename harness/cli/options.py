"""What the commands share: options declared once (``Annotated`` typer options) and
:class:`UsageError`, the error a command raises for input it cannot use."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

from harness.records import Limits, TourneyError

DEFAULTS = Limits()


class UsageError(TourneyError):
    """Input a command cannot use; printed as one line, exit status 2."""


def fail(message: str) -> NoReturn:
    """Stop the command with one clear line (``tourney: error: ...``) and exit status 2."""
    raise UsageError(message)


VariantOpt = Annotated[list[str] | None, typer.Option(
    "--variant", help="Rules option key=value (repeatable); `tourney games` lists them.")]

# One game and validate: limits with their defaults shown.
MoveTimeOpt = Annotated[float, typer.Option(
    "--move-time", help="Seconds per decision for sandboxed bots.", min=0.001)]
OverageOpt = Annotated[float, typer.Option(
    "--overage", help="Extra seconds per game a bot may draw on when a decision runs over.", min=0)]
StartupOpt = Annotated[float, typer.Option(
    "--startup-time", help="Seconds to launch, import and answer start.", min=0.001)]
MemoryOpt = Annotated[int, typer.Option(
    "--memory-mb", help="Address-space limit of a bot process, in MB.", min=16)]
CpuOpt = Annotated[int, typer.Option(
    "--cpu-seconds", help="CPU-time limit of a bot process, in seconds.", min=1)]
SandboxBuiltinsOpt = Annotated[bool, typer.Option(
    "--sandbox-builtins", help="Run the built-in bots sandboxed too (default: in-process).")]

# Leagues: options left out default to the folder's league.json.
GamesOpt = Annotated[int | None, typer.Option("--games", "-n", help="Games per pair of bots "
                                              "(duplicate pairs: one deal, seats swapped; "
                                              "default 10); with 3 players, per triple, a "
                                              "multiple of 6 (one deal, seats in all 6 orders; "
                                              "default 6).")]
OutOpt = Annotated[Path, typer.Option("--out", "-o", help="Results folder, e.g. results/NAME.")]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", "-j", help="Worker processes (default: one per core; 0: in this process).")]
SeedOpt = Annotated[int | None, typer.Option(help=(
    "For experiments, not competitions: derive the league's secret key from this seed, so "
    "every deal is reproducible (a small seed can be guessed by a bot). Default: a random "
    "key kept in league.json."))]
RequireOpt = Annotated[bool, typer.Option(
    "--require-isolation", help="Refuse to start unless sandboxed bots get every protection "
    "(per-bot cgroup limits, namespaces, allow-list file system, unprivileged user, stopped "
    "between turns).")]
LeagueMoveTimeOpt = Annotated[float | None, typer.Option(
    "--move-time", help="Seconds per decision for sandboxed bots (default 1.0).")]
LeagueOverageOpt = Annotated[float | None, typer.Option(
    "--overage", help="Extra seconds per game a bot may draw on when a decision runs over "
                      "(default 10).")]
LeagueStartupOpt = Annotated[float | None, typer.Option(
    "--startup-time", help="Seconds to launch, import and answer start (default 10).")]
LeagueMemoryOpt = Annotated[int | None, typer.Option(
    "--memory-mb", help="Memory of a bot and its processes, in MB (default 1024).")]
LeagueCpuOpt = Annotated[int | None, typer.Option(
    "--cpu-seconds", help="CPU time of a bot and its processes, in seconds (default 600).")]
JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print the summary as JSON (its shape: README, Machine-readable output).")]
StrictOpt = Annotated[bool, typer.Option(
    "--strict", help="Stop the league at the first forfeit (finished games are kept).")]
ResumeOpt = Annotated[bool, typer.Option(
    "--resume", help="Continue the league stored in --out (options default to league.json).")]
ClusterOpt = Annotated[str | None, typer.Option(
    "--cluster", help="Run on a Dask scheduler, e.g. tcp://host:8786.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
TimeoutOpt = Annotated[float | None, typer.Option(
    "--game-timeout", help="Watchdog limit per game in seconds (default: every seat's "
                           "worst-case time plus a minute); a game past it is recorded void.")]
BatchOpt = Annotated[int, typer.Option(
    "--batch-size", help="Games per Parquet batch file (a batch is also written every 10 s).")]
