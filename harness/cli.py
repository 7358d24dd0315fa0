"""The `tourney` command line.

Commands are thin: they parse options, call plain functions that tests can call too, and turn
domain errors into one clear line on stderr and a non-zero exit. Heavy modules (pyarrow,
trueskill, dask, the game engines) are imported inside the commands so `tourney --help` is fast.
"""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn

import typer

app = typer.Typer(
    name="tourney",
    help="Bot tournaments for Battle Line and War Chest: play, validate, leagues, ratings.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class UserError(Exception):
    """A problem the user can fix; printed as one line, exit status 2."""


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"tourney: error: {message}", err=True)
    raise typer.Exit(code)


@app.command("games")
def games_cmd() -> None:
    """List the registered games, their aliases and variants."""
    from games import registry

    for name in registry.names():
        game = registry.load(name)
        info = game.info
        aliases = ", ".join(registry.aliases(name)) or "-"
        typer.echo(f"{info.name} ({info.title}, rules {info.rules_version}); aliases: {aliases}")
        for v in info.variants:
            typer.echo(f"  --variant {v.key}={'|'.join(v.choices)}  (default {v.default}) {v.help}")


@app.command("bench")
def bench_cmd(
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help="Run only these sections (repeatable), e.g. battleline."),
    ] = None,
    quick: Annotated[bool, typer.Option(help="Shorter runs, rougher figures.")] = False,
) -> None:
    """Print the benchmark figures: engines, sandbox round trips, league throughput."""
    from harness.bench import run_sections

    try:
        run_sections(only or [], quick=quick)
    except KeyError as exc:
        fail(str(exc.args[0]))


# Command groups living in their own modules register themselves on `app` when imported:
# cli_bots (play, validate), cli_league (league, gauntlet, ratings, replay), cli_report (report).
from harness import cli_bots, cli_league, cli_report  # noqa: E402,F401


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("tourney: interrupted", err=True)
        sys.exit(130)
