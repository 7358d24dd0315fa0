"""`tourney play` and `tourney validate`: one game, and a check that a bot is fit to enter.

The commands are thin; :func:`play_one` and :func:`validate_bot` do the work and tests call them
directly. Heavy modules (the games, the referee) are imported inside, so `tourney --help` stays
fast.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness.cli.options import (
    NO_LIMITS,
    LimitChoice,
    SandboxBuiltinsOpt,
    UsageError,
    VariantOpt,
    options,
)
from harness.records import BotRef, GameRecord, GameSpec, Limits

if TYPE_CHECKING:
    from games.protocol import Game, State
    from harness.match.validation import Validation
    from harness.records import MoveRecord

_DEFAULTS = Limits()

TraceOpt = Annotated[str | None, typer.Option(
    "--trace", metavar="FILE",
    help="Write every line sent to and received from each sandboxed bot (cmd: bots, bot "
         "files, --sandbox-builtins), per seat with the seconds since the start, to FILE "
         "(- for stderr).")]


@contextlib.contextmanager
def wire_trace(to: str | None, bots: Sequence[str], sandbox_builtins: bool = False
               ) -> Iterator[None]:
    """``--trace FILE``: the wire exchange of every sandboxed bot opened inside the block,
    written to FILE (``-``: stderr); nothing to do without it."""
    if to is None:
        yield
        return
    from harness.bots.protocol import WireTrace, tracing
    from harness.bots.spec import is_sandboxed

    if not any(sandbox_builtins or is_sandboxed(b) for b in bots):
        typer.echo("tourney: warning: --trace shows the wire of sandboxed bots and every bot "
                   "here runs in-process; add --sandbox-builtins to see the built-ins' wire",
                   err=True)
    if to == "-":
        with tracing(WireTrace(sys.stderr)):
            yield
        return
    try:
        out = open(to, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise UsageError(f"--trace {to}: cannot write it ({exc.strerror}); give a file in a "
                         f"folder you can write, or - for stderr") from None
    with out, tracing(WireTrace(out)):
        yield


def resolve_game(name: str, variants: Sequence[str]) -> tuple[Game, dict[str, str]]:
    """Game name or alias plus --variant options -> the game and its full, checked variant."""
    from games import registry
    from games.protocol import GameError

    try:
        return registry.choose(name, registry.parse_variants(variants))
    except GameError as exc:
        raise UsageError(str(exc.args[0])) from None


def seat_refs(specs: Sequence[str], sandbox_builtins: bool = False) -> tuple[BotRef, ...]:
    """Bot specs -> BotRefs with short distinct names; a bad spec is a :class:`UsageError`."""
    from harness.bots.spec import parse_spec

    refs: list[BotRef] = []
    for seat, text in enumerate(specs):
        source = parse_spec(text)
        digest = source.sha256()
        if sandbox_builtins and source.builtin and not source.sandboxed:
            text = str(source.in_sandbox())
        name = source.name
        if any(r.name == name for r in refs):
            name = f"{name}#{seat}"
        refs.append(BotRef(name, text, digest))
    return tuple(refs)


def _table(game_name: str, variants: Sequence[str], seed: int, seats: int, fix: str
           ) -> tuple[Game, dict[str, str], State]:
    """The game, its variant and its first position, when ``seats`` players can sit at it;
    :class:`UsageError` otherwise (a game may also refuse a combination of options, such as
    schotten-totten with players=3)."""
    from games.protocol import VariantError

    game, variant = resolve_game(game_name, variants)
    try:
        initial = game.new_game(seed, **variant)
    except VariantError as exc:
        raise UsageError(str(exc)) from None
    if seats != initial.num_players:
        raise UsageError(f"{game.info.name} with {variant or 'its default rules'} needs "
                         f"{initial.num_players} bots, got {seats}; give {fix}")
    return game, variant, initial


def play_one(game_name: str, bots: Sequence[str], *, seed: int, variants: Sequence[str] = (),
             limits: Limits = _DEFAULTS, show: bool = False, sandbox_builtins: bool = False,
             log_dir: Path | None = None) -> GameRecord:
    """Play one game (``tourney play``); raises :class:`UsageError` for anything unplayable."""
    from harness.league.folder import logs_cover
    from harness.match.placement import pinned_here
    from harness.match.referee import play_game

    game, variant, initial = _table(game_name, variants, seed, len(bots), "one bot per seat")
    refs = seat_refs(bots, sandbox_builtins)
    spec = GameSpec(f"play-{game.info.name}-{seed}", game.info.name, variant, seed, refs,
                    limits=limits)

    def draw(state: State, move: MoveRecord) -> None:
        typer.echo(f"\nply {move.ply}: seat {move.seat} ({refs[move.seat].name}) plays "
                   f"{move.action!r} ({move.think_time * 1000:.1f} ms)")
        typer.echo(str(state))

    if show:
        typer.echo(f"start:\n{initial}")
    hide = logs_cover(log_dir) if log_dir is not None else ()
    with pinned_here():  # the game and its bots on one CPU (harness.match.placement)
        return play_game(spec, log_dir=log_dir, on_move=draw if show else None, hide=hide)


HUMAN = "human"  # the seat `tourney play` gives to you, in the browser


def play_human(game_name: str, bots: Sequence[str], *, seed: int, variants: Sequence[str] = (),
               limits: Limits = _DEFAULTS, sandbox_builtins: bool = False,
               out: Path | None = None, browser: bool = True,
               quiet: bool = False) -> tuple[GameRecord | None, Path]:
    """Play one game yourself (``tourney play GAME human BOT``): a page on 127.0.0.1 under a
    random token, opened in the browser unless ``browser`` is False; returns the record once the
    game is over (None if it could not be played) and the folder it is stored in (``out``, by
    default ``results/human/GAME``); ``quiet``: the page's address on stderr. Ctrl-C
    interrupts the game (not stored) and stops the server (KeyboardInterrupt)."""
    import getpass
    import webbrowser

    from harness.serve.human import default_store, serve_local

    game, variant, _ = _table(game_name, variants, seed, len(bots),
                              "one bot (or human) per seat")
    humans = [seat for seat, text in enumerate(bots) if text == HUMAN]
    if len(humans) != 1:
        raise UsageError(f"give exactly one seat as {HUMAN}, not {len(humans)}")
    refs = seat_refs([text for text in bots if text != HUMAN], sandbox_builtins)
    store = out if out is not None else default_store(game.info.name, variant)
    try:
        user = getpass.getuser() or "you"
    except (KeyError, OSError):
        user = "you"
    local = serve_local(game=game.info.name, variant=variant, bots=refs, human=humans[0],
                        store=store, user=user, seed=seed, limits=limits)
    typer.echo(f"Play in your browser (seat {humans[0]}): {local.url}", err=quiet)
    if browser:
        webbrowser.open(local.url)
    session = local.wait()
    if session.error:
        typer.echo(session.error, err=True)
    return (session.record if session.stored else None), store


@options()
def play_cmd(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. battleline, wc.")],
    bots: Annotated[list[str], typer.Argument(
        help="One bot per seat: file.py, file.py:Class, DIR/ (a bot directory), a built-in "
             "(random, greedy, mcts; options as greedy:p=0.3 or mcts:ms=200) or cmd:COMMAND; "
             "human for a seat you play yourself in the browser.")],
    seed: Annotated[int | None, typer.Option(
        help="Deal seed (default: a random 62-bit one, printed, that no bot can search).")] = None,
    variant: VariantOpt = None,
    show: Annotated[bool, typer.Option("--show", help="Draw the board after every move.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the game record as JSON.")] = False,
    log_dir: Annotated[Path | None, typer.Option(help="Write each bot's output here.")] = None,
    sandbox_builtins: SandboxBuiltinsOpt = False,
    limits: LimitChoice = NO_LIMITS,
    trace: TraceOpt = None,
    out: Annotated[Path | None, typer.Option(
        help="With a human seat: the results folder the game is stored in (default "
             "results/human/GAME).")] = None,
    browser: Annotated[bool, typer.Option(
        "--browser/--no-browser", help="With a human seat: open the game's page in the "
                                       "browser (else only print its address).")] = True,
) -> None:
    """Play one game and print the result and why it ended.

    Example: tourney play battleline mybot.py greedy --seed 7 --show

    A seat given as `human` is yours: tourney serves the game on 127.0.0.1 and opens its page
    (tourney play battleline human greedy); the game is stored under --out.
    """
    from harness.bots.spec import is_sandboxed
    from harness.match.validation import isolation_line, unguessable_seed

    if seed is None:
        seed = unguessable_seed()
    chosen = limits.over()
    stored: Path | None = None
    if HUMAN in bots:
        if show:
            raise UsageError("--show would print the bots' hidden cards; with a human seat the "
                             "page shows your view")
        if trace is not None:
            raise UsageError("--trace shows the wire of a game between bots; leave it out "
                             "with a human seat")
        try:
            played, stored = play_human(game, bots, seed=seed, variants=variant or [],
                                        limits=chosen, sandbox_builtins=sandbox_builtins,
                                        out=out, browser=browser, quiet=as_json)
        except KeyboardInterrupt:
            typer.echo("interrupted: the game is not stored", err=True)
            raise typer.Exit(130) from None
        if played is None:
            raise typer.Exit(1)
        record = played
    else:
        with wire_trace(trace, bots, sandbox_builtins):
            record = play_one(game, bots, seed=seed, variants=variant or [], limits=chosen,
                              show=show, sandbox_builtins=sandbox_builtins, log_dir=log_dir)
    if as_json:
        typer.echo(json.dumps(record.to_dict(), indent=1))
        return
    seats = ", ".join(f"seat {i}: {name}" for i, name in enumerate(record.seats))
    typer.echo(f"{record.game} (rules {record.rules_version}) seed {record.seed}; {seats}")
    if any(is_sandboxed(b if not sandbox_builtins else f"sandbox:{b}") for b in bots
           if b != HUMAN):
        typer.echo(f"sandbox: {isolation_line(chosen)}")
    typer.echo(f"{record.decisions} decisions, {record.duration:.2f} s; "
               f"scores {[round(s, 2) for s in record.scores]}")
    typer.echo(record.result_line())
    if stored is not None:
        typer.echo(f"stored in {stored} as game {record.game_id}; replay it with: tourney "
                   f"replay {stored} {record.game_id} --html replay.html")


# ------------------------------------------------------------------------------ validate


def validate_bot(spec: str, game_name: str, *, games_per_seat: int = 2,
                 variants: Sequence[str] = (), limits: Limits = _DEFAULTS,
                 seed: int | None = None) -> Validation:
    """Load the bot, check its start-up, and play it against random in every seat (deal seeds
    from ``seed``, by default an unguessable one)."""
    from harness.bots.spec import parse_spec
    from harness.match.placement import pinned_here
    from harness.match.validation import unguessable_seed, validate

    if seed is None:
        seed = unguessable_seed()
    game, variant = resolve_game(game_name, variants)
    source = parse_spec(spec)
    boxed = spec if source.sandboxed else str(source.in_sandbox())
    with pinned_here():  # the games and the bot on one CPU (harness.match.placement)
        return validate(boxed, source.label, game, variant, games_per_seat, limits, seed,
                        name=source.name)


@options()
def validate_cmd(
    bot: Annotated[str, typer.Argument(
        help="The bot: file.py, file.py:Class, a bot directory DIR/ or cmd:COMMAND.")],
    game: Annotated[str, typer.Option("--game", "-g", help="Game name or alias.")],
    games: Annotated[int, typer.Option("--games", help="Games per seat.", min=1)] = 2,
    seed: Annotated[int | None, typer.Option(
        help="First deal seed, to replay a validation (default: a random 62-bit one that no "
             "bot can search; each game's seed is printed).")] = None,
    variant: VariantOpt = None,
    limits: LimitChoice = NO_LIMITS,
    trace: TraceOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check a bot: it loads, starts in time, and plays legal moves in time in every seat.

    Prints a pass/fail report; exits with status 1 if the bot fails.
    Example: tourney validate mybot.py --game battleline
    """
    with wire_trace(trace, [bot], sandbox_builtins=True):  # validate sandboxes every bot
        report = validate_bot(bot, game, games_per_seat=games, variants=variant or [],
                              limits=limits.over(), seed=seed)
    hint = report.hint
    if as_json:
        typer.echo(json.dumps({"bot": bot, "game": game, "passed": report.passed,
                               "failures": report.failures, "lines": report.lines,
                               "stopped_early": report.stopped_early, "hint": hint or None},
                              indent=1))
        if not report.passed:
            raise typer.Exit(1)
        return
    for line in report.lines:
        typer.echo(line)
    if report.passed:
        typer.echo(f"PASS: {bot} is ready for {game}")
        return
    typer.echo(f"FAIL: {bot}: {report.failures[0]}")
    if hint:
        typer.echo(hint)
    raise typer.Exit(1)

