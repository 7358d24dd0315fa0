"""`tourney league`, `gauntlet`, `ladder`, `ratings`, `replay` and `games-list`: leagues that
run overnight, and what they stored.

Thin commands over :mod:`harness.league.service`, where the work is; the options of a league
are one object, :class:`harness.cli.options.LeagueOptions`. Heavy modules are imported inside
the commands, so `tourney --help` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness.cli.options import (
    LEAGUE_DEFAULTS,
    NO_LIMITS,
    LeagueOptions,
    LimitChoice,
    QuietOpt,
    SeedOpt,
    VariantOpt,
    WorkersOpt,
    fail,
    options,
)
from harness.cli.sprt import SprtFormatOpt, SprtOpt, cap, run_sprt_command, sprt_params

if TYPE_CHECKING:
    from harness.league.service import League

LADDER_GAMES = 20  # harness.league.ladder.DEFAULT_GAMES (tests/cli check they agree)
CALIBRATION_GAMES = 20  # harness.league.ladder_table.CALIBRATION_GAMES (checked the same way)

GameArg = Annotated[str, typer.Argument(
    metavar="GAME", help="Game name or alias (see `tourney games`).")]


def _run_command(prepare: Callable[[], League], opts: LeagueOptions,
                 cluster: bool = True, to_stderr: bool = False) -> int:
    """Run the league and print its summary; the decisions of its games that reached the
    clock's safety net (see :mod:`harness.league.clock_cuts`)."""
    if opts.batch_size < 1:
        fail(f"--batch-size must be at least 1 (got {opts.batch_size})")
    league = prepare()
    if league.config.games_per_pair % 2:
        typer.echo(f"tourney: warning: --games {league.config.games_per_pair} is odd: the last "
                   f"deal of each pairing is played from one seat only", err=True)
    executor = league.executor(opts.workers, opts.cluster if cluster else None,
                               opts.game_timeout)
    updater = None
    if league.config.report:  # --report, now or when the folder was started
        from harness.cli.report import LeagueReport

        updater = LeagueReport(league.out, league.out / league.config.report)
    summary = league.run(executor, progress=not opts.quiet, batch_size=opts.batch_size,
                         on_record=updater.tick if updater else None, strict=opts.strict)
    if updater is not None:
        updater.write()
    if opts.as_json:
        import json

        typer.echo(json.dumps(league.summary_json(summary), indent=1))
    else:
        for line in league.summary_lines(summary):
            typer.echo(line, err=to_stderr)
    if summary.interrupted:
        typer.echo(f"interrupted; resume with:\n  {league.plan.resume_command}", err=True)
        raise typer.Exit(130)
    if summary.strict_stop:
        raise typer.Exit(1)
    cuts = sum(summary.clock_cuts.decisions.values())
    if opts.as_json:
        return cuts
    typer.echo(f"ratings: tourney ratings {league.out}", err=to_stderr)
    if updater is not None and not updater.warned:
        typer.echo(f"report: {updater.path}")
    return cuts


@options()
def league_cmd(
    game: Annotated[str | None, typer.Argument(
        metavar="GAME", help="Game name or alias (see `tourney games`).")] = None,
    bots: Annotated[list[str] | None, typer.Argument(
        metavar="BOTS",
        help="Two or more bots: a built-in (random, greedy, mcts, with options as "
             "greedy:p=0.3), bot.py, bot.py:Class, DIR/ (a bot directory), cmd:COMMAND; "
             "NAME=SPEC names one; SPEC@move-time=0.5,memory-mb=512 gives it limits of its "
             "own (any limit option's word).")] = None,
    opts: LeagueOptions = LEAGUE_DEFAULTS,
    sprt: SprtOpt = None,
    mixed_teams: Annotated[bool, typer.Option(
        "--mixed-teams", help="In a game of two teams (War Chest for four): teams of two "
                              "different bots; every four bots play each deal in every split "
                              "into teams, from both sides (--games: a multiple of 6).")] = False,
) -> None:
    """Round robin: every pair of bots plays --games games; results go to --out.

    Re-running the command (or --resume) plays only the games not stored yet; adding a bot or
    raising --games plays only the new games.
    """
    if sprt is not None:
        if len(bots or []) != 2:
            fail(f"an SPRT tests one new bot against one old bot, not a round robin of "
                 f"{len(bots or [])} bots; run tourney gauntlet GAME NEW OLD --sprt {sprt}")
        _gauntlet(game or "", (bots or [])[0], (bots or [])[1:], opts, sprt, "table")
        return
    _run_command(lambda: opts.prepare(game, bots or [], mixed_teams=mixed_teams or None), opts)


@options(out=Path("results/gauntlet"))
def gauntlet_cmd(
    game: GameArg,
    challenger: Annotated[str, typer.Argument(metavar="NEW", help="The bot being tested.")],
    opponents: Annotated[list[str], typer.Argument(
        metavar="OPPONENTS", help="One or more opponents.")],
    opts: LeagueOptions = LEAGUE_DEFAULTS,
    sprt: SprtOpt = None,
    fmt: SprtFormatOpt = "table",
) -> None:
    """The challenger plays --games games against each opponent (same ids as a round robin).

    With --sprt (one opponent) it plays duplicate pairs until the sequential probability ratio
    test accepts H0 or H1, then stops and prints the verdict, the LLR, the pair counts, the Elo
    difference with its interval and the LOS; running it again continues the test.
    """
    _gauntlet(game, challenger, opponents, opts, sprt, fmt)


def _gauntlet(game: str, challenger: str, opponents: list[str], opts: LeagueOptions,
              sprt: str | None, fmt: str) -> None:
    bots = [challenger, *opponents]
    if sprt is not None:
        params = sprt_params(sprt, fmt)
        asked = [name for name, on in (("--report", opts.report), ("--strict", opts.strict),
                                       ("--json", opts.as_json)) if on]
        if asked:
            fail(f"{', '.join(asked)} do not apply to an SPRT run, which stops on its own "
                 f"verdict; drop them (--format json prints the verdict as JSON)")
        if len(opponents) != 1:
            fail(f"an SPRT tests one new bot against one old bot, not {1 + len(opponents)} "
                 f"bots; name one opponent: tourney gauntlet GAME NEW OLD --sprt {sprt}")
        n = cap(opts.games, opts.out)
        run_sprt_command(lambda: opts.prepare(game, bots, kind="gauntlet", games=n),
                         params, fmt, opts.workers, opts.cluster, opts.quiet, opts.batch_size,
                         opts.game_timeout)
        return
    if fmt != "table":
        fail("--format applies to the SPRT's verdict: add --sprt, or read the results with "
             "tourney ratings --format json")
    _run_command(lambda: opts.prepare(game, bots, kind="gauntlet"), opts)


@options()
def ladder_cmd(
    game: GameArg,
    bot: Annotated[str | None, typer.Argument(
        metavar="BOT", help="The bot to place (any bot spec; NAME=SPEC names it).")] = None,
    rungs: Annotated[list[str] | None, typer.Option(
        "--rung", metavar="BOT",
        help="A rung to play instead of the built-in ones (repeat the option); unless the "
             "table holds every one of them, the ladder is rated by batch Elo.")] = None,
    games: Annotated[int | None, typer.Option(
        metavar="N", help=f"Games against each rung (duplicate pairs; default "
                          f"{LADDER_GAMES}), or with --calibrate per pair of rungs "
                          f"(default {CALIBRATION_GAMES}).")] = None,
    out: Annotated[Path | None, typer.Option(
        metavar="DIR",
        help="Results folder (default results/ladder/GAME-BOT, or GAME-rungs with "
             "--calibrate; rerunning resumes it).")] = None,
    calibrate: Annotated[bool, typer.Option(
        "--calibrate", help="Play the rungs' own round robin and store their ratings in the "
                            "ladder's table (no BOT).")] = False,
    table: Annotated[Path | None, typer.Option(
        metavar="FILE", help="The table of calibrated rungs to read (or write, with "
                             "--calibrate); default: the one shipped with tourney.")] = None,
    fmt: Annotated[str, typer.Option(
        "--format", "-f", help="table or json (the placement as JSON on stdout; the "
                               "league's summary then goes to stderr).")] = "table",
    workers: WorkersOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = None,
    limits: LimitChoice = NO_LIMITS,
    quiet: QuietOpt = False,
) -> None:
    """Place a bot on the ladder: a gauntlet against random, greedy, mcts and mcts-x4 (mcts at
    four times its budget), then its Elo against the rungs at their calibrated ratings
    (greedy = 0) with an interval, where it places between them, and its points against each
    rung. --calibrate plays the rungs' round robin and stores their ratings."""
    from harness.league.ladder import RUNGS, default_out, rungs_for
    from harness.league.service import bot_ref

    if fmt not in ("table", "json"):
        fail(f"unknown --format {fmt!r}; choose table or json")
    if calibrate:
        if bot is not None or rungs:
            fail("--calibrate plays the built-in rungs' round robin; drop BOT and --rung")
        _calibrate(game, games, out, table, workers, seed, variant, limits, quiet, fmt)
        return
    if bot is None:
        fail("name the bot to place: tourney ladder GAME BOT (or --calibrate for the rungs)")
    name = bot_ref(bot).name
    folder = out if out is not None else default_out(game, name)
    opponents = rungs_for(name, rungs or RUNGS)
    if not opponents:
        fail(f"{name} is the only rung; name other rungs with --rung")
    opts = LeagueOptions(games=games if games is not None else LADDER_GAMES, out=folder,
                         workers=workers, seed=seed, variant=variant, limits=limits,
                         quiet=quiet)
    _run_command(lambda: opts.prepare(game, [bot, *opponents], kind="gauntlet"), opts,
                 cluster=False, to_stderr=fmt == "json")
    _print_placement(game, name, opponents, folder, variant, table, fmt)


def _print_placement(game: str, name: str, opponents: list[str], folder: Path,
                     variant: list[str] | None, table: Path | None, fmt: str) -> None:
    """Where ``name`` places: against the calibrated rungs when the table covers this ladder,
    else by batch Elo over the stored games."""
    import json

    from games.registry import choose, parse_variants
    from harness.figures.ladder import calibrated_lines, placement_lines
    from harness.league.ladder import placement_of, results_of
    from harness.league.ladder_table import TABLE_FILE, calibration_for, place_calibrated
    from harness.league.store import load_games

    chosen, full = choose(game, parse_variants(variant or []))
    preset = chosen.info.resolve_variant({})
    calibration = calibration_for(chosen.info.name, opponents, full if full != preset else None,
                                  table or TABLE_FILE)
    if calibration is None:
        placement = placement_of(folder, name)
        lines, data = placement_lines(placement), placement.as_dict()
    else:
        rows = load_games([folder]).games.select(
            ["bots", "result", "teams", "pair_id", "rated"]).to_pylist()
        found = place_calibrated(name, results_of(rows), calibration)
        lines, data = calibrated_lines(found), found.as_dict()
    if fmt == "json":
        typer.echo(json.dumps({"game": chosen.info.name, **data}, indent=1))
        return
    for line in lines:
        typer.echo(line)


def _calibrate(game: str, games: int | None, out: Path | None, table: Path | None,
               workers: int | None, seed: int | None, variant: list[str] | None,
               limits: LimitChoice, quiet: bool, fmt: str) -> None:
    """Play the rungs' round robin and store their ratings in the table."""
    import json

    from games.registry import choose
    from harness.league.ladder import RUNGS, results_of
    from harness.league.ladder_table import (
        CALIBRATION_GAMES,
        CALIBRATION_SEED,
        TABLE_FILE,
        calibrate,
        write_table,
    )
    from harness.league.limits import as_options
    from harness.league.store import load_games

    if variant:
        fail("the table calibrates the game's default rules; drop --variant")
    name = choose(game)[0].info.name
    n = games if games is not None else CALIBRATION_GAMES
    first = seed if seed is not None else CALIBRATION_SEED
    folder = out if out is not None else Path("results") / "ladder" / f"{name}-rungs"
    opts = LeagueOptions(games=n, out=folder, workers=workers, seed=first, limits=limits,
                         quiet=quiet)
    cuts = _run_command(lambda: opts.prepare(name, list(RUNGS)), opts, cluster=False,
                        to_stderr=fmt == "json")
    if cuts:
        fail(f"the table is not written: {cuts} decisions of the rungs' round robin reached the "
             f"clock's safety net, so its games are not the ones their seeds give and the "
             f"rungs' ratings would be those of a loaded machine; play it again on a quieter "
             f"machine or with fewer --workers, into a new --out")
    rows = load_games([folder]).games.select(
        ["bots", "result", "teams", "pair_id", "rated"]).to_pylist()
    calibration = calibrate(name, RUNGS, results_of(rows), n, first,
                            options=as_options(limits.changed()))
    path = table or TABLE_FILE
    write_table(calibration, path)
    if fmt == "json":
        typer.echo(json.dumps({"game": name, "table": str(path), **calibration.as_dict()},
                              indent=1))
        return
    typer.echo(f"ladder table: {name}'s rungs from {len(rows)} games -> {path}")
    for rung in calibration.rungs:
        typer.echo(f"  {rung.name:<10} {rung.elo:+6.0f}  [{rung.low:+.0f}, {rung.high:+.0f}]  "
                   f"{rung.games} games")


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
    TrueSkill, with W/D/L, score (a draw counts half) and forfeits.

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
    from harness.figures.verdicts import ratings_text

    show = shown_bots(folders, versions, bot or [])
    text, skipped = ratings_text(folders, fmt=fmt, h2h=h2h, draw_probability=draw_probability,
                                 anchor=anchor, level=level, interval=interval, los=los,
                                 pairs=pairs, show=show, times=times)
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
        from harness.league.folder import load_config

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


def replay_cmd(
    folder: Annotated[Path, typer.Argument(help="The results folder.")],
    game_id: Annotated[str, typer.Argument(help="The game's id (or a unique prefix).")],
    boards: Annotated[bool, typer.Option(help="Draw the board after every move.")] = True,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Write an HTML viewer of the game to this file instead.")] = None,
) -> None:
    """Print a stored game move by move with the board (or write an HTML viewer: --html)."""
    if html is not None:
        from harness.cli.report import write_replay_html

        write_replay_html(folder, game_id, html)
        return
    from harness.league.service import replay_lines

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
