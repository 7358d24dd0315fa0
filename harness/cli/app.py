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
from typer.core import TyperCommand, TyperGroup

from harness.cli import arena, bots, catalog, league, report, serve
from harness.records import TourneyError, tourney_version


class _Group(TyperGroup):
    """A command group whose help lists each command with a whole sentence."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Each command with the first sentence of its help, whole (wrapped, never cut)."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, first_sentence(cmd.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class _OneLineErrors(_Group):
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

def first_sentence(text: str) -> str:
    """The first sentence of a help text's first paragraph, on one line.

    >>> first_sentence("Play one game.  More\\nhere.\\n\\nExample: ...")
    'Play one game.'
    """
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[: end + 1]


class _PlainHelp(TyperCommand):
    """A command whose ``--help`` is plain text wrapped to the terminal (at most 80 columns):
    arguments by their names, options by their value's name (``--out DIR``), flags alone."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:  # arguments in capitals, in the usage line too
            if param.param_type_name == "argument" and param.metavar is None:
                param.metavar = (param.name or "value").upper()

    def format_options(self, ctx: Any, formatter: Any) -> None:
        sections: dict[str, list[tuple[str, str]]] = {"Arguments": [], "Options": []}
        for param in self.get_params(ctx):
            if param.param_type_name == "option" and param.metavar is None:
                param.metavar = _value_name(param, ctx)
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":  # its name, not typer's ``NAME <str>``
                record = (str(param.metavar), record[1])
                sections["Arguments"].append(record)
            else:
                sections["Options"].append(record)
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _value_name(param: Any, ctx: Any) -> str | None:
    """The name an option's value is shown by when the option declares none: N for a whole
    number, NUMBER, PATH, a choice's values, else the option's name (``--game GAME``)."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    label: str = param.display_type(ctx).strip("<>").removeprefix("list[").removesuffix("]")
    if label.startswith("int"):
        return "N"
    if label.startswith("float"):
        return "NUMBER"
    if label in ("path", "file", "directory"):
        return "PATH"
    if "|" in label:
        return label
    return str(param.name or "value").upper()


PLAIN = {"rich_markup_mode": None}  # plain help: paragraphs rewrapped, no boxes, no rich import

app = typer.Typer(
    cls=_OneLineErrors,
    **PLAIN,  # type: ignore[arg-type]
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

    group.command(name, cls=_PlainHelp)(run)


command("games", catalog.games_cmd)
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
    cls=_Group, **PLAIN,  # type: ignore[arg-type]
    name="arena", no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    help="A living league: bots join, change and leave while it runs; games go where the "
         "ratings are least sure.")
app.add_typer(arena_app)
for _name in ("new", "run", "add", "update", "retire", "reinstate", "status", "final"):
    command(_name, getattr(arena, f"{_name}_cmd"), arena_app)

command("serve", serve.serve_cmd)
command("submit", serve.submit_cmd)
serve_admin_app = typer.Typer(
    cls=_Group, **PLAIN,  # type: ignore[arg-type]
    name="serve-admin", no_args_is_help=True, add_completion=False,
    pretty_exceptions_enable=False,
    help="The organiser's commands on a competition's folder (also while `tourney serve` runs).")
app.add_typer(serve_admin_app)
for _name in ("add", "list", "token", "organiser-token", "logout-all", "retire",
              "settings", "stop", "deadline"):
    command(_name, getattr(serve, f"admin_{_name.replace('-', '_')}_cmd"), serve_admin_app)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("tourney: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
