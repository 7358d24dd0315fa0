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
    JsonOpt,
    LeagueCpuOpt,
    LeagueMemoryOpt,
    LeagueMoveTimeOpt,
    LeagueOverageOpt,
    LeagueStartupOpt,
    OutOpt,
    QuietOpt,
    RequireOpt,
    ResumeOpt,
    SeedOpt,
    StrictOpt,
    TimeoutOpt,
    VariantOpt,
    WorkersOpt,
    fail,
)
from harness.cli.report import LeagueReport, ReportOpt, write_replay_html
from harness.cli.sprt import SprtFormatOpt, SprtOpt, cap, run_sprt_command, sprt_params
from harness.league.ladder import DEFAULT_GAMES as DEFAULT_LADDER_GAMES
from harness.league.service import BATCH_SIZE, League, ratings_text, replay_lines


def _run_command(prepare: Callable[[], League], workers: int | None, cluster: str | None,
                 quiet: bool, batch_size: int = BATCH_SIZE,
                 game_timeout: float | None = None, report: bool = False,
                 strict: bool = False, as_json: bool = False) -> None:
    if batch_size < 1:
        fail(f"--batch-size must be at least 1 (got {batch_size})")
    league = prepare()
    if league.config.games_per_pair % 2:
        typer.echo(f"tourney: warning: --games {league.config.games_per_pair} is odd: the last "
                   f"deal of each pairing is played from one seat only", err=True)
    executor = league.executor(workers, cluster, game_timeout)
    updater = LeagueReport(league.out) if report else None
    summary = league.run(executor, progress=not quiet, batch_size=batch_size,
                         on_record=updater.tick if updater else None, strict=strict)
    if updater is not None:
        updater.write()
    if as_json:
        import json

        typer.echo(json.dumps(league.summary_json(summary), indent=1))
    else:
        for line in league.summary_lines(summary):
            typer.echo(line)
    if summary.interrupted:
        typer.echo(f"interrupted; resume with:\n  {league.plan.resume_command}", err=True)
        raise typer.Exit(130)
    if summary.strict_stop:
        raise typer.Exit(1)
    if as_json:
        return
    typer.echo(f"ratings: tourney ratings {league.out}")
    if updater is not None and not updater.warned:
        typer.echo(f"report: {updater.path}")


def league_cmd(
    game: Annotated[str | None, typer.Argument(help="Game name or alias (see `tourney games`).")]
    = None,
    bots: Annotated[list[str] | None, typer.Argument(
        help="Two or more bots: a built-in (random, greedy, mcts, with options as "
             "greedy:p=0.3), bot.py, bot.py:Class, DIR/ (a bot directory), cmd:COMMAND; "
             "NAME=SPEC names one; SPEC@move-time=0.5,memory-mb=512 gives it limits of its "
             "own.")] = None,
    games: GamesOpt = None,
    out: OutOpt = Path("results/league"),
    workers: WorkersOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = None,
    move_time: LeagueMoveTimeOpt = None,
    overage: LeagueOverageOpt = None,
    startup_time: LeagueStartupOpt = None,
    memory_mb: LeagueMemoryOpt = None,
    cpu_seconds: LeagueCpuOpt = None,
    resume: ResumeOpt = False,
    cluster: ClusterOpt = None,
    quiet: QuietOpt = False,
    batch_size: BatchOpt = BATCH_SIZE,
    game_timeout: TimeoutOpt = None,
    require_isolation: RequireOpt = False,
    sprt: SprtOpt = None,
    report: ReportOpt = False,
    strict: StrictOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Round robin: every pair of bots plays --games games; results go to --out.

    Re-running the command (or --resume) plays only the games not stored yet; adding a bot or
    raising --games plays only the new games.
    """
    if sprt is not None:
        if len(bots or []) != 2:
            fail(f"an SPRT tests one new bot against one old bot, not a round robin of "
                 f"{len(bots or [])} bots; run tourney gauntlet GAME NEW OLD --sprt {sprt}")
        gauntlet_cmd(game or "", (bots or [])[0], (bots or [])[1:], games=games, out=out,
                     workers=workers, seed=seed, variant=variant, move_time=move_time,
                     overage=overage, resume=resume, cluster=cluster, quiet=quiet,
                     batch_size=batch_size, game_timeout=game_timeout,
                     require_isolation=require_isolation, sprt=sprt,
                     startup_time=startup_time, memory_mb=memory_mb, cpu_seconds=cpu_seconds,
                     report=report, strict=strict, as_json=as_json)
        return
    _run_command(lambda: League.prepare(game, bots or [], out=out, games=games, seed=seed,
                                        variants=variant or [], move_time=move_time,
                                        overage=overage, resume=resume,
                                        require_isolation=require_isolation,
                                        startup_time=startup_time, memory_mb=memory_mb,
                                        cpu_seconds=cpu_seconds),
                 workers, cluster, quiet, batch_size, game_timeout, report, strict, as_json)


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
    startup_time: LeagueStartupOpt = None,
    memory_mb: LeagueMemoryOpt = None,
    cpu_seconds: LeagueCpuOpt = None,
    resume: ResumeOpt = False,
    cluster: ClusterOpt = None,
    quiet: QuietOpt = False,
    batch_size: BatchOpt = BATCH_SIZE,
    game_timeout: TimeoutOpt = None,
    require_isolation: RequireOpt = False,
    sprt: SprtOpt = None,
    fmt: SprtFormatOpt = "table",
    report: ReportOpt = False,
    strict: StrictOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The challenger plays --games games against each opponent (same ids as a round robin).

    With --sprt (one opponent) it plays duplicate pairs until the sequential probability ratio
    test accepts H0 or H1, then stops and prints the verdict, the LLR, the pair counts, the Elo
    difference with its interval and the LOS; running it again continues the test.
    """
    if sprt is not None:
        params = sprt_params(sprt, fmt)
        asked = [name for name, on in (("--report", report), ("--strict", strict),
                                       ("--json", as_json)) if on]
        if asked:
            fail(f"{', '.join(asked)} do not apply to an SPRT run, which stops on its own "
                 f"verdict; drop them (--format json prints the verdict as JSON)")
        if len(opponents) != 1:
            fail(f"an SPRT tests one new bot against one old bot, not {1 + len(opponents)} "
                 f"bots; name one opponent: tourney gauntlet GAME NEW OLD --sprt {sprt}")
        n = cap(games, out)
        run_sprt_command(lambda: League.prepare(game, [challenger, *opponents], out=out,
                                                games=n, seed=seed, variants=variant or [],
                                                move_time=move_time, overage=overage,
                                                resume=resume, kind="gauntlet",
                                                require_isolation=require_isolation,
                                                startup_time=startup_time,
                                                memory_mb=memory_mb, cpu_seconds=cpu_seconds),
                         params, fmt, workers, cluster, quiet, batch_size, game_timeout)
        return
    if fmt != "table":
        fail("--format applies to the SPRT's verdict: add --sprt, or read the results with "
             "tourney ratings --format json")
    _run_command(lambda: League.prepare(game, [challenger, *opponents], out=out, games=games,
                                        seed=seed, variants=variant or [],
                                        move_time=move_time, overage=overage, resume=resume,
                                        kind="gauntlet", require_isolation=require_isolation,
                                        startup_time=startup_time, memory_mb=memory_mb,
                                        cpu_seconds=cpu_seconds),
                 workers, cluster, quiet, batch_size, game_timeout, report, strict, as_json)


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
    h2h: Annotated[bool, typer.Option(
        "--h2h", help="Add the head-to-head matrix and the LOS matrix.")] = False,
    los: Annotated[bool, typer.Option(
        "--los", help="Add the likelihood-of-superiority matrix (always in JSON).")] = False,
    pairs: Annotated[bool, typer.Option(
        "--pairs", help="Add the duplicate-pair statistics of every pairing: pentanomial "
                        "counts, W/D/L, score, Elo ± interval, draw ratio (always in JSON).")]
    = False,
    anchor: Annotated[str | None, typer.Option(
        "--anchor", help="Put this bot at Elo 0 (default: the pool's mean is 0).")] = None,
    level: Annotated[float, typer.Option(
        "--level", help="Confidence level of the Elo intervals.")] = 0.95,
    interval: Annotated[str, typer.Option(
        "--interval", help="Elo interval method: curvature (of the likelihood, fast) or "
                           "bootstrap (over duplicate pairs).")] = "curvature",
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, json, csv or markdown.")]
    = "table",
    draw_probability: Annotated[float | None, typer.Option(
        "--draw-probability", help="TrueSkill draw probability (default: from the data).")]
    = None,
    times: Annotated[bool, typer.Option(
        "--times", help="Add each bot's think times: median, 95th percentile, slowest, total, "
                        "time-outs.")] = False,
    versions: Annotated[str | None, typer.Option(
        "--versions", help="A living league's bots to list: latest (each entrant's current "
                           "version, the default) or all (every version, retired and replaced "
                           "ones too).")] = None,
    bot: Annotated[list[str] | None, typer.Option(
        "--bot", help="List only these bots or entrants (shell patterns allowed, e.g. "
                      "'alice*'); repeat for more.")] = None,
) -> None:
    """Ratings of stored games, best first by Elo: the batch Elo fit with its interval beside
    TrueSkill, with W/D/L, win rate and forfeits.

    The Elo fit (Bradley-Terry, all games at once, order-free) is the final word. TrueSkill
    (mu, sigma, mu-3σ) is a live estimate, updated game by game: good for watching a league
    that is still running.
    """
    if draw_probability is not None and not 0 < draw_probability < 1:
        fail(f"--draw-probability must be between 0 and 1 (got {draw_probability})")
    if not 0 < level < 1:
        fail(f"--level must be between 0 and 1 (got {level}); e.g. 0.95")
    if times and fmt not in ("table", "json"):
        fail("--times prints a table or JSON; drop --times or use --format table or json")
    show = shown_bots(folders, versions, bot or [])
    text, skipped = ratings_text(folders, fmt=fmt, h2h=h2h, draw_probability=draw_probability,
                                 anchor=anchor, level=level, interval=interval, los=los,
                                 pairs=pairs, show=show)
    if times:
        text = _with_times(text, folders, fmt, skipped)
    for line in dict.fromkeys(skipped):
        typer.echo(f"tourney: warning: {line}", err=True)
    typer.echo(text)


def shown_bots(folders: list[Path], versions: str | None, patterns: list[str]
               ) -> set[str] | None:
    """The bots ``tourney ratings`` lists: for a living league (:mod:`harness.arena`) each
    entrant's latest version unless ``--versions all``; then those matching ``--bot``."""
    import fnmatch

    from harness.arena.registry import DB_FILE

    if versions not in (None, "latest", "all"):
        fail(f"unknown --versions {versions!r}; choose latest or all")
    arenas = [f for f in folders if (f / DB_FILE).is_file()]
    if versions is not None and not arenas:
        fail("--versions is for living leagues (tourney arena); these folders hold leagues")
    if not arenas and not patterns:
        return None
    names: set[str] = set()
    labels: dict[str, str] = {}  # bot -> entrant, to match an entrant's name too
    if arenas:
        from harness.arena.registry import Registry

        for folder in arenas:
            with Registry.open(folder) as registry:
                chosen = (registry.latest().values() if versions in (None, "latest")
                          else registry.versions())
                for v in chosen:
                    names.add(v.bot)
                    labels[v.bot] = v.entrant
    if len(arenas) < len(folders) or not arenas:
        from harness.league.config import load_config

        for folder in folders:
            if folder not in arenas:
                names.update(b.name for b in load_config(folder).bots)
    if patterns:
        names = {n for n in names if any(fnmatch.fnmatchcase(n, p) or
                                         fnmatch.fnmatchcase(labels.get(n, n), p)
                                         for p in patterns)}
        if not names:
            fail(f"no bot matches --bot {' '.join(patterns)}")
    return names


def _with_times(text: str, folders: list[Path], fmt: str, skipped: list[str]) -> str:
    """The leaderboard with the think-time table after it (in JSON: a "times" list)."""
    import json

    from harness.league import times
    from harness.league.config import load_config
    from harness.league.identity import versions

    rename, _notes = versions([load_config(f) for f in folders])
    rows, bad = times.bot_times(folders, rename)
    skipped.extend(bad)
    if fmt == "json":
        return json.dumps({**json.loads(text), **times.as_json(rows)}, indent=1)
    return f"{text}\n\nthink time per decision\n{times.render(rows)}"


def replay_cmd(
    folder: Annotated[Path, typer.Argument(help="The results folder.")],
    game_id: Annotated[str, typer.Argument(help="The game's id (or a unique prefix).")],
    boards: Annotated[bool, typer.Option(help="Draw the board after every move.")] = True,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Write an HTML viewer of the game to this file instead.")] = None,
) -> None:
    """Print a stored game move by move with the board (or write an HTML viewer: --html)."""
    if html is not None:
        write_replay_html(folder, game_id, html)
        return
    for line in replay_lines(folder, game_id, boards):
        typer.echo(line)


def games_list_cmd(
    folder: Annotated[Path, typer.Argument(help="The results folder.")],
    bot: Annotated[str | None, typer.Option("--bot", help="Games this bot played.")] = None,
    termination: Annotated[str | None, typer.Option(
        "--termination", help="normal, stalemate, move_cap, illegal, timeout, crash or "
                         "protocol_error.")] = None,
    winner: Annotated[str | None, typer.Option(
        "--winner", help="Games this bot won (draw: drawn games; void: void ones).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
) -> None:
    """List the stored games with their ids, to pick one for `tourney replay`."""
    from harness.league.games_list import list_games, render

    typer.echo(render(list_games(folder, bot=bot, termination=termination, winner=winner), fmt))
