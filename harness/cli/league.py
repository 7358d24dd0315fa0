"""`tourney league`, `gauntlet`, `ratings` and `replay`: leagues that run overnight.

Thin commands over :mod:`harness.league.service`, where the work is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from harness.cli.options import (
    BatchOpt,
    ClusterOpt,
    GamesOpt,
    LeagueMoveTimeOpt,
    LeagueOverageOpt,
    OutOpt,
    QuietOpt,
    ResumeOpt,
    SeedOpt,
    TimeoutOpt,
    VariantOpt,
    WorkersOpt,
    fail,
)
from harness.league.ladder import DEFAULT_GAMES as DEFAULT_LADDER_GAMES
from harness.league.service import BATCH_SIZE, League, ratings_text, replay_lines


def _run_command(prepare: Callable[[], League], workers: int | None, cluster: str | None,
                 quiet: bool, batch_size: int = BATCH_SIZE,
                 game_timeout: float | None = None) -> None:
    if batch_size < 1:
        fail(f"--batch-size must be at least 1 (got {batch_size})")
    league = prepare()
    executor = league.executor(workers, cluster, game_timeout)
    summary = league.run(executor, progress=not quiet, batch_size=batch_size)
    for line in league.summary_lines(summary):
        typer.echo(line)
    if summary.interrupted:
        typer.echo(f"interrupted; resume with:\n  {league.plan.resume_command}", err=True)
        raise typer.Exit(130)
    typer.echo(f"ratings: tourney ratings {league.out}")


def league_cmd(
    game: Annotated[str | None, typer.Argument(help="Game name or alias (see `tourney games`).")]
    = None,
    bots: Annotated[list[str] | None, typer.Argument(
        help="Two or more bots: a built-in (random, greedy, mcts, with options as "
             "greedy:p=0.3), bot.py, bot.py:Class, cmd:COMMAND; NAME=SPEC names one.")] = None,
    games: GamesOpt = None,
    out: OutOpt = Path("results/league"),
    workers: WorkersOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = None,
    move_time: LeagueMoveTimeOpt = None,
    overage: LeagueOverageOpt = None,
    resume: ResumeOpt = False,
    cluster: ClusterOpt = None,
    quiet: QuietOpt = False,
    batch_size: BatchOpt = BATCH_SIZE,
    game_timeout: TimeoutOpt = None,
) -> None:
    """Round robin: every pair of bots plays --games games; results go to --out.

    Re-running the command (or --resume) plays only the games not stored yet; adding a bot or
    raising --games plays only the new games.
    """
    _run_command(lambda: League.prepare(game, bots or [], out=out, games=games, seed=seed,
                                        variants=variant or [], move_time=move_time,
                                        overage=overage, resume=resume),
                 workers, cluster, quiet, batch_size, game_timeout)


def gauntlet_cmd(
    game: Annotated[str, typer.Argument(help="Game name or alias (see `tourney games`).")],
    challenger: Annotated[str, typer.Argument(help="The bot being tested.")],
    opponents: Annotated[list[str], typer.Argument(help="One or more opponents.")],
    games: GamesOpt = None,
    out: OutOpt = Path("results/gauntlet"),
    workers: WorkersOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = None,
    move_time: LeagueMoveTimeOpt = None,
    overage: LeagueOverageOpt = None,
    resume: ResumeOpt = False,
    cluster: ClusterOpt = None,
    quiet: QuietOpt = False,
    batch_size: BatchOpt = BATCH_SIZE,
    game_timeout: TimeoutOpt = None,
) -> None:
    """The challenger plays --games games against each opponent (same ids as a round robin)."""
    _run_command(lambda: League.prepare(game, [challenger, *opponents], out=out, games=games,
                                        seed=seed, variants=variant or [],
                                        move_time=move_time, overage=overage, resume=resume,
                                        kind="gauntlet"),
                 workers, cluster, quiet, batch_size, game_timeout)


def ladder_cmd(
    game: Annotated[str, typer.Argument(help="Game name or alias (see `tourney games`).")],
    bot: Annotated[str, typer.Argument(help="The bot to place (any bot spec; NAME=SPEC names "
                                            "it).")],
    rungs: Annotated[list[str] | None, typer.Option(
        "--rung", help="A rung to play instead of the built-in ones (repeat the option).")]
    = None,
    games: Annotated[int, typer.Option(help="Games against each rung (duplicate pairs).")]
    = DEFAULT_LADDER_GAMES,
    out: Annotated[Path | None, typer.Option(
        help="Results folder (default results/ladder/GAME-BOT; rerunning resumes it).")] = None,
    workers: WorkersOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = None,
    move_time: LeagueMoveTimeOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Place a bot on the ladder: a gauntlet against random, greedy and mcts, then its batch
    Elo (greedy = 0) with intervals, its rank and its points against each rung."""
    from harness.league.ladder import RUNGS, default_out, placement_of, rungs_for
    from harness.league.service import bot_ref

    name = bot_ref(bot).name
    folder = out if out is not None else default_out(game, name)
    opponents = rungs_for(name, rungs or RUNGS)
    if not opponents:
        fail(f"{name} is the only rung; name other rungs with --rung")
    _run_command(lambda: League.prepare(game, [bot, *opponents], out=folder, games=games,
                                        seed=seed, variants=variant or [],
                                        move_time=move_time, kind="gauntlet"),
                 workers, None, quiet)
    for line in placement_of(folder, name).lines():
        typer.echo(line)


def ratings_cmd(
    folders: Annotated[list[Path], typer.Argument(help="One or more results folders.")],
    h2h: Annotated[bool, typer.Option("--h2h", help="Add the head-to-head matrix.")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, json, csv or markdown.")]
    = "table",
    draw_probability: Annotated[float | None, typer.Option(
        "--draw-probability", help="TrueSkill draw probability (default: from the data).")]
    = None,
) -> None:
    """TrueSkill leaderboard of stored games: mu, sigma, mu-3σ, W/D/L, win rate, forfeits."""
    if draw_probability is not None and not 0 < draw_probability < 1:
        fail(f"--draw-probability must be between 0 and 1 (got {draw_probability})")
    text, skipped = ratings_text(folders, fmt=fmt, h2h=h2h, draw_probability=draw_probability)
    for line in skipped:
        typer.echo(f"tourney: warning: {line}", err=True)
    typer.echo(text)


def replay_cmd(
    folder: Annotated[Path, typer.Argument(help="The results folder.")],
    game_id: Annotated[str, typer.Argument(help="The game's id (or a unique prefix).")],
    boards: Annotated[bool, typer.Option(help="Draw the board after every move.")] = True,
) -> None:
    """Print a stored game move by move with the board."""
    for line in replay_lines(folder, game_id, boards):
        typer.echo(line)
