"""`tourney arena`: a living league. One process plays (``run``); others change the field while
it runs (``add``, ``update``, ``retire``, ``reinstate``) and look at it (``status``); ``final``
plays a Swiss or knockout stage over its top bots. The work is :mod:`harness.arena`'s."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli.options import (
    NO_LIMITS,
    BatchOpt,
    ClusterOpt,
    LimitChoice,
    QuietOpt,
    RequireOpt,
    SeedOpt,
    TimeoutOpt,
    VariantOpt,
    WorkersOpt,
    fail,
    options,
)

FolderArg = Annotated[Path, typer.Argument(help="The living league's folder.")]
NameArg = Annotated[str, typer.Argument(
    help="The entrant: your name for them (letters, digits, - and _), shown in the standings.")]
SpecArg = Annotated[str, typer.Argument(
    help="The bot: file.py, file.py:Class, a bot directory DIR/, a built-in (greedy, "
         "mcts:iters=200) or cmd:COMMAND.")]
GameOpt = Annotated[str | None, typer.Option(
    "--game", "-g", help="The game, to start a new living league (a folder's game never "
                         "changes).")]


@options()
def new_cmd(
    folder: FolderArg,
    game: Annotated[str, typer.Option("--game", "-g", help="Game name or alias.")],
    variant: VariantOpt = None,
    seed: SeedOpt = None,
    limits: LimitChoice = NO_LIMITS,
    require_isolation: RequireOpt = False,
) -> None:
    """Make FOLDER a living league of GAME, to add bots to before it runs.

    Example: tourney arena new results/club --game battleline
    """
    from harness.arena import living
    from harness.league.folder import ResultsFolder

    if ResultsFolder(folder).holds_league():
        fail(f"{folder} already holds a league; run it with: tourney arena run {folder}")
    config = living.create(folder, game, variants=variant or [], seed=seed, limits=limits.over(),
                           require_isolation=require_isolation)
    typer.echo(f"{folder}: a living league of {config.game}; add bots with: tourney arena add "
               f"{folder} NAME SPEC, or drop NAME.py into {folder / 'inbox'}")


@options()
def run_cmd(
    folder: FolderArg,
    game: GameOpt = None,
    variant: VariantOpt = None,
    seed: SeedOpt = None,
    workers: WorkersOpt = None,
    cluster: ClusterOpt = None,
    game_timeout: TimeoutOpt = None,
    limits: LimitChoice = NO_LIMITS,
    require_isolation: RequireOpt = False,
    report: Annotated[Path | None, typer.Option(
        "--report", help="Keep this HTML report current as the league runs (each bot's status "
                         "and games; no paths of yours in it).")] = None,
    report_interval: Annotated[float, typer.Option(
        "--report-interval", help="Seconds between rewrites of --report.", min=1)] = 60.0,
    stop_after: Annotated[int | None, typer.Option(
        "--stop-after", help="Stop after playing this many games (default: run until "
                             "Ctrl-C).", min=1)] = None,
    stop_when_idle: Annotated[bool, typer.Option(
        "--stop-when-idle", help="Stop when fewer than two bots can play, instead of waiting "
                                 "for more.")] = False,
    suspend_after: Annotated[int, typer.Option(
        "--suspend-after", help="Suspend a bot that forfeits this many games in a row.",
        min=1)] = 3,
    batch_size: BatchOpt = 2000,
    quiet: QuietOpt = False,
) -> None:
    """Play a living league until stopped: bots added, updated or retired from another
    terminal, or dropped into FOLDER/inbox, take part without a restart.

    Ctrl-C (or kill -9) and a new run lose and repeat nothing. With --game, a new or empty
    FOLDER becomes a living league of that game.
    Example: tourney arena run results/club --game battleline
    """
    from harness.arena import living, standings
    from harness.arena.registry import Registry

    if game is not None:
        living.create(folder, game, variants=variant or [], seed=seed, limits=limits.over(),
                      require_isolation=require_isolation)
    elif limits.any() or seed is not None or variant:
        fail("the limits, --seed and --variant of a living league are chosen when it starts; "
             "leave them out to run it")
    options = living.RunOptions(
        workers=workers, cluster=cluster, game_timeout=game_timeout, stop_after=stop_after,
        stop_when_idle=stop_when_idle, suspend_after=suspend_after, report=report,
        report_interval=report_interval, progress=not quiet, batch_size=batch_size,
        say=lambda line: typer.echo(line, err=True))
    arena = living.Arena(folder, options)
    summary = arena.run()
    verb = "stopped" if summary.interrupted else "done"
    typer.echo(f"{arena.config.name}: {verb}; {summary.stored} games stored in this run "
               f"({summary.played} played, {summary.seconds:.1f} s)"
               + (f"; {summary.replayed_pairs} pairs chosen before the last stop played"
                  if summary.replayed_pairs else ""), err=True)
    with Registry.open(folder) as registry:
        typer.echo(standings.render(standings.standings(folder, registry)))
    if report is not None:
        typer.echo(f"report: {report}", err=True)
    if summary.interrupted:
        raise typer.Exit(130)


def add_cmd(folder: FolderArg, name: NameArg, spec: SpecArg) -> None:
    """Add an entrant: its bot is copied into the league and checked (tourney validate and a
    self-play game) before it plays rated games.

    Example: tourney arena add results/club alice bots/alice.py
    """
    from harness.arena import entries, living
    from harness.arena.registry import Registry

    living.load_arena(folder)
    with Registry.open(folder) as registry:
        version = entries.add(registry, name, spec)
    typer.echo(f"{name}: version {version.version} added as {version.bot} (sha256 "
               f"{version.sha256[:12]}); it plays once it passes its entry check")


def update_cmd(folder: FolderArg, name: NameArg, spec: SpecArg) -> None:
    """Send a new version of an entrant's bot: it replaces the current one in the standings
    once it passes its entry check (the old version's games stay stored).

    Example: tourney arena update results/club alice bots/alice.py
    """
    from harness.arena import entries, living
    from harness.arena.registry import Registry

    living.load_arena(folder)
    with Registry.open(folder) as registry:
        version = entries.update(registry, name, spec)
    typer.echo(f"{name}: version {version.version} added as {version.bot} (sha256 "
               f"{version.sha256[:12]}); it replaces the current one once it passes its entry "
               f"check")


def retire_cmd(folder: FolderArg, name: NameArg) -> None:
    """Retire an entrant: it plays no more; its games and its place in the history stay.

    Example: tourney arena retire results/club alice
    """
    from harness.arena import living
    from harness.arena.registry import Registry

    living.load_arena(folder)
    with Registry.open(folder) as registry:
        bots = registry.retire(name)
    typer.echo(f"{name} retired" + (f" ({', '.join(bots)})" if bots else ""))


def reinstate_cmd(folder: FolderArg, name: NameArg) -> None:
    """Let an entrant's suspended version play again (after its author fixed the cause, or
    the machine's).

    Example: tourney arena reinstate results/club alice
    """
    from harness.arena import living
    from harness.arena.registry import ArenaError, Registry

    living.load_arena(folder)
    with Registry.open(folder) as registry:
        registry.require_active_entrant(name)
        held = [v for v in registry.entrant_versions(name) if v.status == "suspended"]
        if not held:
            raise ArenaError(f"{name} has no suspended version (see tourney arena status "
                             f"{folder})")
        registry.set_status(held[-1].bot, "active")
    typer.echo(f"{held[-1].bot} may play again")


def status_cmd(
    folder: FolderArg,
    versions: Annotated[str, typer.Option(
        "--versions", help="latest (each entrant's current version) or all.")] = "latest",
    bot: Annotated[list[str] | None, typer.Option(
        "--bot", help="Only these entrants or bots (shell patterns); repeatable.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, json or csv.")] = "table",
    events: Annotated[int, typer.Option(
        "--events", help="Also print the last N events (joined, admitted, failed, ...).",
        min=0)] = 0,
) -> None:
    """The standings now: each entrant's rating (± its 95% interval), games and status
    (validating, active, failed and why, replaced, suspended and why, retired).

    Example: tourney arena status results/club --events 10
    """
    from harness.arena import living, standings
    from harness.arena.registry import Registry

    if versions not in standings.VIEWS:
        fail(f"unknown --versions {versions!r}; choose latest or all")
    if fmt not in ("table", "json", "csv"):
        fail(f"unknown --format {fmt!r}; choose table, json or csv")
    living.load_arena(folder)
    with Registry.open(folder) as registry:
        rows = standings.standings(folder, registry, view=versions, only=bot or [])
        typer.echo(standings.render(rows, fmt))
        if events:
            typer.echo("")
            for at, entrant, name, what in registry.events(events):
                typer.echo(f"{at}  {name or entrant}: {what}")


def final_cmd(
    folder: FolderArg,
    top: Annotated[int, typer.Option("--top", help="The arena's best N bots take part.",
                                     min=2)] = 8,
    knockout: Annotated[bool, typer.Option(
        "--knockout", help="Single elimination, seeded 1 v N (default: Swiss).")] = False,
    rounds: Annotated[int | None, typer.Option(
        "--rounds", help="Swiss rounds (default: enough to separate the field, log2 N).",
        min=1)] = None,
    pairs: Annotated[int, typer.Option(
        "--pairs", help="Duplicate pairs a meeting (two games each).", min=1)] = 2,
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", help="The stage's results folder (default: FOLDER/final).")] = None,
    workers: WorkersOpt = None,
    cluster: ClusterOpt = None,
) -> None:
    """A final over the living league's top bots: a Swiss (or knockout) stage of duplicate
    pairs, seeded by the arena's standings when it starts; run it again to continue one that
    was stopped.

    Example: tourney arena final results/club --top 8 --rounds 3
    """
    from harness.arena import living, stage
    from harness.league.service import make_executor

    config = living.load_arena(folder)
    target = out if out is not None else folder / "final"
    executor = make_executor(workers, target, cluster, None,
                             bool(config.isolation.get("required")))
    rows = stage.play(folder, target, executor, fmt="knockout" if knockout else "swiss",
                      top=top, rounds=rounds, pairs=pairs,
                      say=lambda line: typer.echo(line, err=True))
    typer.echo(stage.render(rows, "knockout" if knockout else "swiss"))
    typer.echo(f"games stored in {target}; tourney ratings {target} rates them", err=True)
