"""The `tourney` command line: the typer app and where errors become exit statuses.

Commands are thin: they parse options and call plain functions that tests can call too. Every
error a user can fix derives from :class:`harness.records.TourneyError`; :func:`command`
registers a command so that such an error prints one line on stderr (``tourney: error: ...``)
and exits with its ``exit_code``, here and nowhere else. Heavy modules (pyarrow, trueskill,
dask, the game engines) are imported inside the commands so `tourney --help` is fast.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from harness.cli import arena, bots, catalog, league, report, serve
from harness.records import TourneyError, tourney_version


class _OneLineErrors(TyperGroup):
    """The command group whose usage errors (a value that is not a number, out of range, a
    missing argument) print one line, ``tourney: error: ...`` with exit status 2, like every
    other bad input, instead of typer's multi-line box."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode,
                                windows_expand_args, **extra)
        try:
            status = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                  **extra)
        except typer.TyperException as exc:  # click's errors (typer carries its own click)
            ctx = getattr(exc, "ctx", None)
            where = ctx.command_path if ctx is not None else "tourney"
            message = " ".join(exc.format_message().split()).rstrip(".")
            typer.echo(f"tourney: error: {message} (see `{where} --help`)", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("tourney: interrupted", err=True)
            sys.exit(130)
        sys.exit(status if isinstance(status, int) else 0)


app = typer.Typer(
    cls=_OneLineErrors,
    name="tourney",
    help="Bot tournaments for Battle Line and War Chest: play, validate, leagues, ratings.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"tourney {tourney_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", help="Print the version and exit.", callback=_show_version,
        is_eager=True)] = False,
) -> None:
    """Bot tournaments for Battle Line and War Chest: play, validate, leagues, ratings."""


def command(name: str, fn: Callable[..., None], group: typer.Typer = app) -> None:
    """Register ``fn`` as ``tourney NAME`` (or a command of ``group``), its TourneyErrors mapped
    to one line and an exit status."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except TourneyError as exc:
            for line in str(exc).splitlines() or [""]:  # one line per problem
                typer.echo(f"tourney: error: {line}", err=True)
            raise typer.Exit(exc.exit_code) from None

    group.command(name)(run)


command("games", catalog.games_cmd)
command("bench", catalog.bench_cmd)
command("play", bots.play_cmd)
command("validate", bots.validate_cmd)
command("league", league.league_cmd)
command("gauntlet", league.gauntlet_cmd)
command("ladder", league.ladder_cmd)
command("ratings", league.ratings_cmd)
command("replay", league.replay_cmd)
command("report", report.report_cmd)
command("games-list", league.games_list_cmd)

arena_app = typer.Typer(
    name="arena", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="A living league: bots join, change and leave while it runs; games go where the "
         "ratings are least sure.")
app.add_typer(arena_app)
for _name in ("new", "run", "add", "update", "retire", "reinstate", "status", "final"):
    command(_name, getattr(arena, f"{_name}_cmd"), arena_app)

command("serve", serve.serve_cmd)
command("submit", serve.submit_cmd)
serve_admin_app = typer.Typer(
    name="serve-admin", no_args_is_help=True, add_completion=False,
    pretty_exceptions_enable=False,
    help="The organiser's commands on a competition's folder (also while `tourney serve` runs).")
app.add_typer(serve_admin_app)
for _name in ("add", "list", "token", "organiser-token", "retire", "settings"):
    command(_name, getattr(serve, f"admin_{_name.replace('-', '_')}_cmd"), serve_admin_app)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("tourney: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
