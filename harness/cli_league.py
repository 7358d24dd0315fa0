"""`tourney league`, `gauntlet`, `ratings` and `replay`: leagues that run overnight.

The commands are thin; the work is in plain functions tests call directly:
:func:`prepare_league` (bots, variant, configuration, schedule), :func:`run_league` (play what is
not stored yet, with progress, batching and a clean Ctrl-C), :func:`ratings_text` and
:func:`replay_lines`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from harness.cli import app, fail
from harness.records import BotRef, GameRecord, GameSpec, Limits

if TYPE_CHECKING:
    from harness.executors import Executor, PackedRecord
    from harness.store import LeagueConfig, ResultsStore

_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")
DEFAULT_GAMES = 10  # games per pair when --games is not given
BATCH_SIZE = 2000  # = harness.store.BATCH_SIZE, not imported here: pyarrow is slow to import


class LeagueError(Exception):
    """A league that cannot run as asked; one clear line for the user."""


# ----------------------------------------------------------------------------- preparing


def bot_ref(text: str) -> BotRef:
    """``SPEC`` or ``NAME=SPEC`` -> a BotRef with its display name and code hash.

    The name defaults to the built-in's name, the bot file's stem (``mybot.py:Fast`` gives
    ``mybot.Fast``) or the command's program name. A bot file's path is stored absolute, so a
    league resumes from any directory.
    """
    head, sep, tail = text.partition("=")
    if sep and _NAME.match(head) and not head.endswith(".py"):
        return resolve_bot(head, tail)
    return resolve_bot("", text)


def resolve_bot(name: str, spec: str) -> BotRef:
    """The BotRef of ``spec`` under ``name`` (derived from the spec when empty)."""
    from harness.loader import BotSpecError, parse_spec, spec_hash

    try:
        source = parse_spec(spec)
        digest = spec_hash(spec)
    except BotSpecError as exc:
        raise LeagueError(str(exc)) from None
    except OSError as exc:
        raise LeagueError(f"cannot read bot {spec!r}: {exc.strerror}") from None
    if source.path is not None and not source.builtin:
        prefix = next((p for p in ("sandbox:", "inproc:") if spec.strip().startswith(p)), "")
        spec = prefix + str(source.path) + (f":{source.entry}" if source.entry else "")
    if not name:
        if source.builtin:
            name = source.builtin
        elif source.path is not None:
            name = source.path.stem + (f".{source.entry}" if source.entry else "")
        else:
            name = Path(source.command[0]).name
    return BotRef(name=name, spec=spec, sha256=digest)


def parse_variants(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise LeagueError(f"--variant {item!r} is not key=value (e.g. --variant rules=tactics)")
        out[key.strip()] = value.strip()
    return out


@dataclass
class GameChoice:
    name: str
    variant: dict[str, str]
    rules_version: str
    players: int


def choose_game(name: str, variants: Sequence[str]) -> GameChoice:
    """The registered game, its full variant (alias preset + options) and player count."""
    from games import registry
    from games.protocol import VariantError

    try:
        game, preset = registry.resolve(name)
    except registry.UnknownGame as exc:
        raise LeagueError(str(exc)) from None
    info = game.info
    try:
        variant = info.resolve_variant({**preset, **parse_variants(variants)})
    except VariantError as exc:
        raise LeagueError(str(exc)) from None
    players = int(variant.get("players", min(info.players)))
    return GameChoice(info.name, variant, info.rules_version, players)


@dataclass
class Plan:
    """A league ready to run: its folder, configuration and full schedule."""

    out: Path
    config: LeagueConfig
    specs: list[GameSpec]
    resume_command: str


def prepare_league(
    game: str | None,
    bots: Sequence[str],
    *,
    out: Path,
    games: int | None = None,
    seed: int | None = None,
    variants: Sequence[str] = (),
    move_time: float | None = None,
    overage: float | None = None,
    resume: bool = False,
    kind: str = "round-robin",
) -> Plan:
    """Turn command-line choices into a configuration and schedule (nothing is written yet).

    Options left out are taken from the folder's ``league.json`` when it exists, so
    ``tourney league --resume --out FOLDER`` continues the last run.
    """
    from harness import schedule, store

    stored = store.load_config(out) if (out / "league.json").exists() else None
    if resume and stored is None:
        raise LeagueError(f"{out} holds no league to resume (no league.json); drop --resume "
                          f"to start one")
    last = stored.schedule if stored is not None else {}
    if game is None:
        if stored is None:
            raise LeagueError("name the game to play, e.g. tourney league battleline random greedy")
        game = stored.game
        variants = variants or [f"{k}={v}" for k, v in stored.variant.items()]
    choice = choose_game(game, variants)
    if not bots and stored is not None and last:
        refs = [_stored_ref(stored, name) for name in last.get("bots", [])]
        kind = str(last.get("kind", kind))
    else:
        refs = [bot_ref(b) for b in bots]
    n = games if games is not None else int(last.get("games", DEFAULT_GAMES))
    league_seed = seed if seed is not None else (stored.seed if stored is not None else 0)
    if move_time is not None and move_time <= 0:
        raise LeagueError(f"--move-time must be positive (got {move_time})")
    if overage is not None and overage < 0:
        raise LeagueError(f"--overage must be 0 or more (got {overage})")
    lim = stored.limits if stored is not None else Limits()
    if move_time is not None:
        lim = dataclasses.replace(lim, move_time=move_time)
    if overage is not None:
        lim = dataclasses.replace(lim, overage=overage)
    name = stored.name if stored is not None else out.resolve().name
    try:
        if kind == "gauntlet":
            schedule.check_bots(refs)
            specs = schedule.gauntlet(choice.name, choice.variant, refs[0], refs[1:], n,
                                      league_seed, players=choice.players, league=name,
                                      limits=lim)
        else:
            specs = schedule.round_robin(choice.name, choice.variant, refs, n, league_seed,
                                         players=choice.players, league=name, limits=lim)
    except schedule.ScheduleError as exc:
        raise LeagueError(str(exc)) from None
    config = store.LeagueConfig(
        name=name, game=choice.name, variant=choice.variant,
        rules_version=choice.rules_version, seed=league_seed, games_per_pair=n, bots=refs,
        limits=lim, kind=kind, challenger=refs[0].name if kind == "gauntlet" else "",
        players=choice.players,
        schedule={"kind": kind, "bots": [r.name for r in refs], "games": n},
    )
    return Plan(out, config, specs, f"tourney league --resume --out {shlex.quote(str(out))}")


def _stored_ref(config: LeagueConfig, name: str) -> BotRef:
    ref = config.bot(name)
    if ref is None:
        raise LeagueError(f"league.json names bot {name!r} but does not describe it; "
                          f"name the bots on the command line")
    return resolve_bot(name, ref.spec)


# ----------------------------------------------------------------------------- running


@dataclass
class RunSummary:
    scheduled: int
    already: int
    played: int = 0
    stored: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    quarantined: list[str] = field(default_factory=list)


class _Leader:
    """Points per bot (win 1, draw 1/2) for the progress bar's postfix."""

    def __init__(self) -> None:
        self.points: dict[str, list[float]] = {}
        self._waiting: dict[tuple[tuple[str, ...], tuple[float, ...]], int] = {}

    def add(self, bots: Sequence[str], result: Sequence[float]) -> None:
        """Count a game (scored when the text is next asked for: a league has few outcomes)."""
        key = (tuple(bots), tuple(result))
        self._waiting[key] = self._waiting.get(key, 0) + 1

    def _score(self) -> None:
        for (bots, result), games in self._waiting.items():
            best = max(result)
            draw = len(set(result)) == 1
            for name, r in dict(zip(bots, result, strict=True)).items():
                acc = self.points.setdefault(name, [0.0, 0.0])
                acc[0] += games * (0.5 if draw else (1.0 if r == best else 0.0))
                acc[1] += games
        self._waiting.clear()

    def text(self) -> str:
        self._score()
        if not self.points:
            return "-"
        name, (pts, n) = max(self.points.items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0]))
        return f"{name} {100 * pts / n:.0f}%"


def _progress(total: int, initial: int, enabled: bool) -> Any:
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: workers are forked
    return tqdm(total=total, initial=initial, unit="game", disable=not enabled,
                dynamic_ncols=True, smoothing=0.1, file=sys.stderr)


def run_league(
    plan: Plan,
    executor: Executor,
    *,
    progress: bool = True,
    batch_size: int = BATCH_SIZE,
    flush_seconds: float = 10.0,
    on_record: Callable[[GameRecord], None] | None = None,
) -> RunSummary:
    """Play every scheduled game not stored yet and store each record exactly once.

    On Ctrl-C (or any error while playing) the finished games are flushed before the
    exception propagates; a StoreError (full disk, unwritable folder) leaves no partial file.
    """
    from harness import store

    st = store.ResultsStore.open(plan.out, plan.config, batch_size=batch_size,
                                 flush_seconds=flush_seconds)
    try:
        return _run_open(plan, st, executor, progress, on_record)
    finally:
        st.close()


def _run_open(plan: Plan, st: ResultsStore, executor: Executor, progress: bool,
              on_record: Callable[[GameRecord], None] | None) -> RunSummary:
    from harness import store
    from harness.sandbox import hide_from_bots

    hide_from_bots(plan.out)  # league.json's seed would let a bot rebuild the deals
    todo = [s for s in plan.specs if s.game_id not in st.finished]
    summary = RunSummary(len(plan.specs), len(plan.specs) - len(todo),
                         quarantined=list(st.report.quarantined))
    leader = _Leader()
    if summary.already:
        wanted = {s.game_id for s in plan.specs}
        stored = store.load_games([plan.out]).games.select(["game_id", "bots", "result", "rated"])
        for row in stored.to_pylist():
            if row["game_id"] in wanted and row["rated"]:
                leader.add(row["bots"], row["result"])
    bar = _progress(len(plan.specs), summary.already, progress)
    t0 = time.perf_counter()
    last_shown, shown = t0, 0  # the bar is redrawn a few times a second, not per game
    try:
        with executor:
            for record in _records(executor, todo):
                summary.played += 1
                if st.add(record):
                    summary.stored += 1
                    if not store.is_void(record):
                        leader.add(record.seats, record.returns)
                if on_record is not None:
                    on_record(record if isinstance(record, GameRecord) else record.record())
                now = time.perf_counter()
                if now - last_shown > 0.25:
                    bar.set_postfix_str(f"leader {leader.text()}", refresh=False)
                    bar.update(summary.played - shown)
                    last_shown, shown = now, summary.played
    except KeyboardInterrupt:
        summary.interrupted = True
    except BaseException as exc:
        with contextlib.suppress(store.StoreError):  # keep what finished, report the cause
            st.flush()
        if isinstance(exc, store.StoreError):  # a batch could not be written (full disk)
            raise LeagueError(f"{exc}; then resume with: {plan.resume_command}") from exc
        raise
    finally:
        bar.update(summary.played - shown)
        bar.close()
        summary.seconds = time.perf_counter() - t0
    try:
        st.flush()
    except store.StoreError as exc:
        raise LeagueError(f"{exc}; then resume with: {plan.resume_command}") from exc
    return summary


def _records(executor: Executor, todo: list[GameSpec]) -> Iterator[GameRecord | PackedRecord]:
    """The executor's records; worker processes' as they packed them (stored as they are)."""
    from harness.executors import ProcessExecutor

    if not todo:
        return iter(())
    if isinstance(executor, ProcessExecutor):
        return executor.run_packed(todo)
    return executor.run(todo)


def make_executor(workers: int | None, out: Path, cluster: str | None,
                  game_timeout: float | None = None) -> Executor:
    """The back end a command asked for: a Dask cluster, in-process (0) or worker processes.

    ``game_timeout``: the watchdog's limit per game in worker processes (default: every seat's
    worst-case time plus a minute, see :func:`harness.executors.game_deadline`).
    """
    if cluster:
        from harness import executors_dask

        try:
            executors_dask.require_dask()
            return executors_dask.DaskExecutor(cluster, log_dir=out / "logs")
        except executors_dask.ClusterError as exc:
            raise LeagueError(str(exc)) from None
    from harness import executors

    if workers is not None and workers < 0:
        raise LeagueError(f"--workers must be 0 (in this process) or more (got {workers})")
    if game_timeout is not None and game_timeout <= 0:
        raise LeagueError(f"--game-timeout must be positive (got {game_timeout})")
    if game_timeout is not None and workers == 0:
        raise LeagueError("--game-timeout needs worker processes: use --workers 1 or more")
    play = executors.default_play(out / "logs")
    n = workers if workers is not None else _cpu_count()
    return executors.make_executor(n, play, deadline=game_timeout)


def _cpu_count() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _summary_lines(plan: Plan, summary: RunSummary) -> list[str]:
    lines = [f"quarantined {q}" for q in summary.quarantined]
    rate = summary.played / summary.seconds if summary.seconds > 0 else 0.0
    total = summary.already + summary.stored
    lines.append(
        f"{plan.config.name}: played {summary.played} games in {summary.seconds:.1f} s "
        f"({rate:.1f} games/s); {total} of {summary.scheduled} scheduled games stored in "
        f"{plan.out}"
    )
    return lines


# ----------------------------------------------------------------------------- commands

GamesOpt = Annotated[int | None, typer.Option("--games", "-n", help="Games per pair of bots "
                                              "(duplicate pairs: one deal, seats swapped).")]
OutOpt = Annotated[Path, typer.Option("--out", "-o", help="Results folder, e.g. results/NAME.")]
WorkersOpt = Annotated[int | None, typer.Option(
    "--workers", "-j", help="Worker processes (default: one per core; 0: in this process).")]
SeedOpt = Annotated[int | None, typer.Option(help="League seed: fixes every deal (default 0).")]
VariantOpt = Annotated[list[str] | None, typer.Option(
    "--variant", help="Rules option key=value (repeatable); see `tourney games`.")]
MoveTimeOpt = Annotated[float | None, typer.Option(
    "--move-time", help="Seconds per decision for sandboxed bots (default 1.0).")]
OverageOpt = Annotated[float | None, typer.Option(
    "--overage", help="Extra seconds per game a bot may draw on when a decision runs over "
                      "(default 10).")]
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
ReportOpt = Annotated[bool, typer.Option(
    "--report", help="Keep an HTML report at OUT/report.html up to date (rewritten every "
                     "minute and at the end).")]


def _run_command(plan_fn: Callable[[], Plan], workers: int | None, cluster: str | None,
                 quiet: bool, batch_size: int = BATCH_SIZE,
                 game_timeout: float | None = None, report: bool = False) -> None:
    from harness.store import StoreError

    errors: tuple[type[Exception], ...] = (LeagueError, StoreError)
    if cluster:
        try:
            from harness.executors_dask import ClusterError
        except ImportError:
            fail("--cluster needs Dask, which is not installed: pip install 'tourney[dask]'")
        errors = (*errors, ClusterError)
    if batch_size < 1:
        fail(f"--batch-size must be at least 1 (got {batch_size})")
    try:
        plan = plan_fn()
        executor = make_executor(workers, plan.out, cluster, game_timeout)
        updater = _report_updater(plan.out) if report else None
        summary = run_league(plan, executor, progress=not quiet, batch_size=batch_size,
                             on_record=updater.tick if updater else None)
    except errors as exc:
        fail(str(exc))
    if updater is not None:
        updater.write()
    for line in _summary_lines(plan, summary):
        typer.echo(line)
    if summary.interrupted:
        typer.echo(f"interrupted; resume with:\n  {plan.resume_command}", err=True)
        raise typer.Exit(130)
    typer.echo(f"ratings: tourney ratings {plan.out}")
    if updater is not None and not updater.warned:
        typer.echo(f"report: {updater.path}")


def _report_updater(out: Path) -> Any:
    from harness.cli_report import LeagueReport

    return LeagueReport(out)


@app.command("league")
def league_cmd(
    game: Annotated[str | None, typer.Argument(help="Game name or alias (see `tourney games`).")]
    = None,
    bots: Annotated[list[str] | None, typer.Argument(
        help="Two or more bots: built-in name, bot.py, bot.py:Class, cmd:COMMAND; NAME=SPEC "
             "names one.")] = None,
    games: GamesOpt = None,
    out: OutOpt = Path("results/league"),
    workers: WorkersOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = None,
    move_time: MoveTimeOpt = None,
    overage: OverageOpt = None,
    resume: ResumeOpt = False,
    cluster: ClusterOpt = None,
    quiet: QuietOpt = False,
    batch_size: BatchOpt = BATCH_SIZE,
    game_timeout: TimeoutOpt = None,
    report: ReportOpt = False,
) -> None:
    """Round robin: every pair of bots plays --games games; results go to --out.

    Re-running the command (or --resume) plays only the games not stored yet; adding a bot or
    raising --games plays only the new games.
    """
    _run_command(lambda: prepare_league(game, bots or [], out=out, games=games, seed=seed,
                                        variants=variant or [], move_time=move_time,
                                        overage=overage, resume=resume),
                 workers, cluster, quiet, batch_size, game_timeout, report)


@app.command("gauntlet")
def gauntlet_cmd(
    game: Annotated[str, typer.Argument(help="Game name or alias (see `tourney games`).")],
    challenger: Annotated[str, typer.Argument(help="The bot being tested.")],
    opponents: Annotated[list[str], typer.Argument(help="One or more opponents.")],
    games: GamesOpt = None,
    out: OutOpt = Path("results/gauntlet"),
    workers: WorkersOpt = None,
    seed: SeedOpt = None,
    variant: VariantOpt = None,
    move_time: MoveTimeOpt = None,
    overage: OverageOpt = None,
    resume: ResumeOpt = False,
    cluster: ClusterOpt = None,
    quiet: QuietOpt = False,
    batch_size: BatchOpt = BATCH_SIZE,
    game_timeout: TimeoutOpt = None,
    report: ReportOpt = False,
) -> None:
    """The challenger plays --games games against each opponent (same ids as a round robin)."""
    _run_command(lambda: prepare_league(game, [challenger, *opponents], out=out, games=games,
                                        seed=seed, variants=variant or [],
                                        move_time=move_time, overage=overage, resume=resume,
                                        kind="gauntlet"),
                 workers, cluster, quiet, batch_size, game_timeout, report)


def ratings_text(folders: Sequence[Path], *, fmt: str = "table", h2h: bool = False,
                 draw_probability: float | None = None) -> tuple[str, list[str]]:
    """The leaderboard of the games stored in ``folders``, and warnings (skipped files)."""
    from harness import ratings
    from harness.league.report.data import ReportError, game_rows, load

    if fmt not in ratings.FORMATS:
        raise LeagueError(f"unknown --format {fmt!r}; choose one of {', '.join(ratings.FORMATS)}")
    try:
        loaded = load(folders, purpose="rate")
    except ReportError as exc:
        raise LeagueError(str(exc)) from None
    if loaded.games.num_rows == 0:
        where = ", ".join(str(f) for f in folders)
        raise LeagueError(f"no finished games stored in {where} yet; run `tourney league` first")
    board = ratings.leaderboard(game_rows(loaded.games), draw_probability)
    return ratings.render(board, fmt, h2h), loaded.skipped


@app.command("ratings")
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
    from harness.store import StoreError

    if draw_probability is not None and not 0 < draw_probability < 1:
        fail(f"--draw-probability must be between 0 and 1 (got {draw_probability})")
    try:
        text, skipped = ratings_text(folders, fmt=fmt, h2h=h2h,
                                     draw_probability=draw_probability)
    except (LeagueError, StoreError) as exc:
        fail(str(exc))
    for line in skipped:
        typer.echo(f"tourney: warning: {line}", err=True)
    typer.echo(text)


def replay_lines(folder: Path, game_id: str, boards: bool = True) -> Iterator[str]:
    """A stored game move by move, rebuilt from its seed, variant and moves."""
    from games import registry
    from games.protocol import GameError
    from harness import store

    store.load_config(folder)
    table = store.load_games([folder]).games
    ids = table.column("game_id").to_pylist()
    hits = [i for i, gid in enumerate(ids) if gid == game_id] or [
        i for i, gid in enumerate(ids) if gid.startswith(game_id)]
    if not hits:
        raise LeagueError(f"no game {game_id!r} stored in {folder}; list ids with "
                          f"pyarrow/DuckDB on {folder}/games")
    if len({ids[i] for i in hits}) > 1:
        raise LeagueError(f"{game_id!r} matches several games; give more of the id")
    row = store.record_from_row(table.slice(hits[0], 1).to_pylist()[0])
    game = registry.get(row.game)
    state = game.new_game(row.seed, **row.variant)
    seats = ", ".join(f"seat {i}: {name}" for i, name in enumerate(row.seats))
    yield f"game {row.game_id} ({row.game}, rules {row.rules_version}, seed {row.seed}); {seats}"
    if row.rules_version != game.info.rules_version:
        yield (f"warning: stored under rules {row.rules_version}, the engine is at "
               f"{game.info.rules_version}; the replay may differ")
    if boards:
        yield str(state)
    for move in store.load_moves(folder, row.game_id):
        seat = move["seat"]
        yield (f"{move['ply']:>4}. seat {seat} ({row.seats[seat]}): {move['action']}"
               f"  [{move['think_time'] * 1000:.1f} ms]")
        try:
            state.apply(move["action"])
        except GameError as exc:
            yield f"      cannot apply this move under the current rules: {exc}"
            return
        if boards:
            yield str(state)
    names = list(dict.fromkeys(row.seats[s] for s in row.winners))
    won = ", ".join(str(s) for s in row.winners)
    plural = "s" if len(row.winners) > 1 else ""
    if names:
        outcome = f"won by {' + '.join(names)} (seat{plural} {won})"
    else:
        outcome = "void (not rated)" if store.is_void(row) else "draw"
    yield f"result: {outcome}; {row.termination.value}: {row.reason}"


@app.command("replay")
def replay_cmd(
    folder: Annotated[Path, typer.Argument(help="The results folder.")],
    game_id: Annotated[str, typer.Argument(help="The game's id (or a unique prefix).")],
    boards: Annotated[bool, typer.Option(help="Draw the board after every move.")] = True,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Write an HTML viewer of the game to this file instead.")] = None,
) -> None:
    """Print a stored game move by move with the board (or write an HTML viewer: --html)."""
    from harness.store import StoreError

    if html is not None:
        from harness.cli_report import write_replay_html

        write_replay_html(folder, game_id, html)
        return
    try:
        for line in replay_lines(folder, game_id, boards):
            typer.echo(line)
    except (LeagueError, StoreError) as exc:
        fail(str(exc))
