"""What the commands share: options declared once (``Annotated`` typer options), the limit
options made from :data:`harness.records.LIMIT_OPTIONS`, the options object of the league
commands (:class:`LeagueOptions`), and :class:`UsageError`, the error a command raises for input
it cannot use.

A command asks for a group of options by a parameter's type, and :func:`options` expands it into
the typer parameters of that group, then gives the command one object:

* ``limits: LimitChoice``: ``--move-time``, ``--overage``, ... (one per limit in the table);
* ``opts: LeagueOptions``: every option a league takes (games, folder, workers, limits, ...).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from harness.league import BATCH_SIZE
from harness.league.folder import CONFIG_FILE
from harness.league.limits import NO_LIMITS as NO_LIMITS  # the commands' default: none given
from harness.league.limits import LimitChoice as LimitChoice  # the commands' limits
from harness.records import LIMIT_OPTIONS, LimitOption, TourneyError

if TYPE_CHECKING:
    from harness.league.service import League

F = TypeVar("F", bound=Callable[..., Any])


class UsageError(TourneyError):
    """Input a command cannot use; printed as one line, exit status 2."""


def fail(message: str) -> NoReturn:
    """Stop the command with one clear line (``tourney: error: ...``) and exit status 2."""
    raise UsageError(message)


VariantOpt = Annotated[list[str] | None, typer.Option(
    "--variant", metavar="KEY=VALUE",
    help="Rules option (repeatable); `tourney games` lists them.")]
SandboxBuiltinsOpt = Annotated[bool, typer.Option(
    "--sandbox-builtins", help="Run the built-in bots sandboxed too (default: in-process).")]

# Leagues: options left out default to the folder's league.json.
GamesOpt = Annotated[int | None, typer.Option(
    "--games", "-n", metavar="N", help="Games per pair of bots (duplicate pairs: one deal, "
    "seats swapped; default 10); with 3 players, per triple, a multiple of 6 (one deal, seats "
    "in all 6 orders; default 6).")]
OutOpt = Annotated[Path, typer.Option(
    "--out", "-o", metavar="DIR", help="Results folder, e.g. results/NAME.")]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", "-j", metavar="N",
    help="Worker processes (default: one per core; 0: in this process).")]
SeedOpt = Annotated[int | None, typer.Option(metavar="N", help=(
    "For experiments, not competitions: derive the league's secret key from this seed, so "
    "every deal is reproducible (a small seed can be guessed by a bot). Default: a random "
    f"key kept in {CONFIG_FILE}."))]
RequireOpt = Annotated[bool, typer.Option(
    "--require-isolation", help="Refuse to start unless sandboxed bots get every protection "
    "(per-bot cgroup limits, namespaces, allow-list file system, unprivileged user, stopped "
    "between turns).")]
JsonOpt = Annotated[bool, typer.Option(
    "--json", help="Print the summary as JSON (its shape: README, Machine-readable output).")]
StrictOpt = Annotated[bool, typer.Option(
    "--strict", help="Stop the league at the first forfeit (finished games are kept).")]
ResumeOpt = Annotated[bool, typer.Option(
    "--resume", help=f"Continue the league stored in --out (options default to {CONFIG_FILE}).")]
ClusterOpt = Annotated[str | None, typer.Option(
    "--cluster", metavar="ADDRESS", help="Run on a Dask scheduler, e.g. tcp://host:8786.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
TimeoutOpt = Annotated[float | None, typer.Option(
    "--game-timeout", metavar="SECONDS", help="Watchdog limit per game in seconds (default: "
    "every seat's worst-case time plus a minute); a game past it is recorded void.")]
BatchOpt = Annotated[int, typer.Option(
    "--batch-size", metavar="N",
    help="Games per Parquet batch file (a batch is also written every 10 s).")]
ReportOpt = Annotated[bool | None, typer.Option(
    "--report/--no-report", help="Keep an HTML report at OUT/report.html up to date (rewritten "
    "every minute and at the end; the open page reloads itself while the league runs). The "
    "folder remembers it: a resume keeps it until --no-report.", show_default=False)]


# ------------------------------------------------------------------------------ limits


def limit_help(option: LimitOption) -> str:
    """The help of ``--WORD``: the table's sentence and the default."""
    return f"{option.help.rstrip('.')} (default {option.default:g})."


def _limit_parameter(option: LimitOption) -> inspect.Parameter:
    value: Any = float | None if option.number is float else int | None
    annotation = typing.cast(Any, Annotated)[value, typer.Option(
        f"--{option.word}", metavar=option.unit, help=limit_help(option))]
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=annotation)


# ------------------------------------------------------------------------------ leagues


@dataclasses.dataclass(frozen=True)
class LeagueOptions:
    """The options of a league (``league``, ``gauntlet``), declared once; :func:`options`
    turns the fields into typer options in this order."""

    games: GamesOpt = None
    out: OutOpt = Path("results/league")
    workers: WorkersOpt = None
    seed: SeedOpt = None
    variant: VariantOpt = None
    limits: LimitChoice = dataclasses.field(default_factory=LimitChoice)
    resume: ResumeOpt = False
    cluster: ClusterOpt = None
    quiet: QuietOpt = False
    batch_size: BatchOpt = BATCH_SIZE
    game_timeout: TimeoutOpt = None
    require_isolation: RequireOpt = False
    report: ReportOpt = None
    strict: StrictOpt = False
    as_json: JsonOpt = False

    def prepare(self, game: str | None, bots: Sequence[str], *, kind: str = "round-robin",
                games: int | None = None, out: Path | None = None,
                mixed_teams: bool | None = None) -> League:
        """The league these options describe (:meth:`League.prepare`); ``games`` and ``out``
        replace the options' own."""
        from harness.league.service import League

        return League.prepare(
            game, bots, out=out if out is not None else self.out,
            games=games if games is not None else self.games, seed=self.seed,
            variants=self.variant or [], resume=self.resume, kind=kind,
            require_isolation=self.require_isolation, mixed_teams=mixed_teams,
            report=self.report, limits=self.limits)


LEAGUE_DEFAULTS = LeagueOptions()
"""The default of an ``opts: LeagueOptions`` parameter (replaced by the options given)."""


def _expand(annotation: Any, defaults: Mapping[str, Any]
            ) -> tuple[list[inspect.Parameter], Callable[[dict[str, Any]], Any]] | None:
    """The typer parameters of an option group and how to build it from the keyword
    arguments (popping them); None for an ordinary parameter."""
    if annotation is LimitChoice:
        return [_limit_parameter(o) for o in LIMIT_OPTIONS], LimitChoice.take
    if not (isinstance(annotation, type) and dataclasses.is_dataclass(annotation)):
        return None
    group: Any = annotation
    hints = typing.get_type_hints(group, include_extras=True)
    params: list[inspect.Parameter] = []
    builders: list[tuple[str, Callable[[dict[str, Any]], Any]]] = []
    for f in dataclasses.fields(group):
        inner = _expand(hints[f.name], defaults)
        if inner is not None:
            params += inner[0]
            builders.append((f.name, inner[1]))
            continue
        default = defaults.get(f.name, f.default)
        params.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                                        default=default, annotation=hints[f.name]))
        builders.append((f.name, functools.partial(_pop, f.name)))

    def build(values: dict[str, Any]) -> Any:
        return group(**{name: make(values) for name, make in builders})

    return params, build


def _pop(name: str, values: dict[str, Any]) -> Any:
    return values.pop(name)


def options(**defaults: Any) -> Callable[[F], F]:
    """Expand a command's option groups (a parameter typed :class:`LimitChoice` or
    :class:`LeagueOptions`) into their typer options; the command receives the group as one
    object. ``defaults`` replace the group's defaults for this command (``out=Path(...)``)."""

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        params: list[inspect.Parameter] = []
        builders: dict[str, Callable[[dict[str, Any]], Any]] = {}
        for p in signature.parameters.values():
            expanded = _expand(p.annotation, defaults)
            if expanded is None:
                kind = (inspect.Parameter.KEYWORD_ONLY if builders or
                        p.kind is inspect.Parameter.KEYWORD_ONLY else p.kind)
                params.append(p.replace(kind=kind))
                continue
            params += expanded[0]
            builders[p.name] = expanded[1]

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            for name, build in builders.items():
                if name not in kwargs:
                    kwargs[name] = build(kwargs)
            return fn(*args, **kwargs)

        run.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        return run  # type: ignore[return-value]

    return decorate
