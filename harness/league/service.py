"""The league as a service: what `tourney league`, `gauntlet`, `ratings` and `replay` do, for
the command line, the tests and the benchmark alike.

:class:`League` is a results folder with its configuration and schedule: prepare it (or resume
the one stored in the folder), run it on an executor (play what is not stored yet, with
progress, batching and a clean Ctrl-C), rate it and replay its games. The plain functions
behind it (:func:`prepare_league`, :func:`run_league`, :func:`rate_folders`,
:func:`replay_lines`) are public too. Heavy modules (pyarrow, trueskill, the engines) are
imported inside the functions so the command line starts fast.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import shlex
import sys
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness.league import BATCH_SIZE
from harness.league.clock_cuts import ClockCuts
from harness.league.config import GameChoice, LeagueConfig, StoreError
from harness.league.eta import Eta, clock
from harness.league.folder import CONFIG_FILE, ResultsFolder, load_config
from harness.league.forfeits import Forfeits, record_field
from harness.league.limits import NO_LIMITS, LimitChoice
from harness.records import (
    BotRef,
    GameRecord,
    GameSpec,
    Limits,
    PackedRecord,
    TourneyError,
    is_void,
)

if TYPE_CHECKING:
    from harness.league import store
    from harness.league.schema import Finished
    from harness.league.store import ResultsStore
    from harness.league.verdicts import Rated
    from harness.run.base import Executor

_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")
DEFAULT_GAMES = 10  # games per pair when --games is not given
REPORT_FILE = "report.html"  # `tourney league --report`: the report, in the results folder
CANDIDATES = 20  # ids an ambiguous replay prefix lists


class LeagueError(TourneyError):
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
    from harness.bots.spec import BotSpecError, parse_spec

    try:
        source = parse_spec(spec)
        digest = source.sha256()
    except BotSpecError as exc:
        raise LeagueError(str(exc)) from None
    except OSError as exc:
        raise LeagueError(f"cannot read bot {spec!r}: {exc.strerror}") from None
    if source.path is not None and not source.builtin:
        spec = str(source)
    for what, text, fix in (("name", name or source.name, "rename the file, or name the bot: "
                             "NAME=SPEC"), ("path", spec, "rename the file or its folder")):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a file name in another encoding: results store UTF-8
            shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
            raise LeagueError(f"bot {what} '{shown}' is not valid UTF-8 (a file name in another "
                              f"encoding); {fix}") from None
    return BotRef(name=name or source.name, spec=spec, sha256=digest)


def choose_game(name: str, variants: Sequence[str]) -> GameChoice:
    """The registered game, its full variant (alias preset + options) and player count."""
    from games import registry
    from games.protocol import GameError

    try:
        game, variant = registry.choose(name, registry.parse_variants(variants))
    except GameError as exc:
        raise LeagueError(str(exc)) from None
    info = game.info
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
    limits: LimitChoice = NO_LIMITS,
    resume: bool = False,
    kind: str = "round-robin",
    require_isolation: bool = False,
    mixed_teams: bool | None = None,
    report: bool | None = None,
) -> Plan:
    """Turn command-line choices into a configuration and schedule (nothing is written yet but
    a new folder, empty, for a league with sandboxed bots: see :func:`_hidden_ahead`).

    Options left out are taken from the folder's configuration when it exists, so
    ``tourney league --resume --out FOLDER`` continues the last run. A new league gets a random
    secret key (or, with ``seed``, one derived from it); a stored league keeps its key and its
    deal scheme (:meth:`ResultsFolder.new_config`). ``limits``: the limit options given, laid
    over the stored league's (or the defaults). ``require_isolation``: refuse unless every
    protection of :mod:`harness.bots.isolation` is in force for the league's sandboxed bots. A
    bot argument may end in its own limits, ``NAME=SPEC@move-time=0.5,memory-mb=512``
    (:mod:`harness.league.limits`). ``mixed_teams``: in a game of two teams, teams of
    different bots (:func:`harness.league.schedule.round_robin`). ``report``: keep the HTML
    report ``REPORT_FILE`` in the folder (True), no longer (False), or as the folder says (None).
    """
    from harness.league import schedule

    folder = ResultsFolder(out)
    stored = folder.stored_config()
    if resume and stored is None:
        raise LeagueError(f"{out} holds no league to resume (no {CONFIG_FILE}); drop --resume "
                          f"to start one")
    last = stored.schedule if stored is not None else {}
    if game is None:
        if stored is None:
            raise LeagueError("name the game to play, e.g. tourney league battleline random greedy")
        game = stored.game
        variants = variants or [f"{k}={v}" for k, v in stored.variant.items()]
    choice = choose_game(game, variants)
    refs, own, kind = _league_bots(bots, stored, kind)
    mixed = bool(last.get("mixed_teams", False)) if mixed_teams is None else mixed_teams
    seats = _league_sides(choice, mixed, kind)
    default = DEFAULT_GAMES if len(seats) == 2 else schedule.set_size(len(seats))
    if mixed:
        default = 2 * len(schedule.team_splits(range(2 * len(seats[0])), len(seats[0])))
    n = games if games is not None else int(last.get("games", default))
    lim = limits.over(stored.limits if stored is not None else None)
    config = folder.new_config(
        choice, kind=kind, games_per_pair=n, bots=refs, seed=seed, stored=stored, limits=lim,
        challenger=refs[0].name if kind == "gauntlet" else "",
        schedule={"kind": kind, "bots": [r.name for r in refs], "games": n,
                  **({"mixed_teams": True} if mixed else {})},
        bot_limits=own)
    try:
        legacy_seed = config.seed if config.seed is not None else 0
        if kind == "gauntlet":
            schedule.check_bots(refs)
            specs = schedule.gauntlet(choice.name, choice.variant, refs[0], refs[1:], n,
                                      legacy_seed, players=choice.players, league=config.name,
                                      limits=lim, key=config.key_bytes)
        else:
            specs = schedule.round_robin(choice.name, choice.variant, refs, n, legacy_seed,
                                         players=choice.players, league=config.name,
                                         limits=lim, key=config.key_bytes, mixed_teams=mixed)
    except schedule.ScheduleError as exc:
        raise LeagueError(str(exc)) from None
    if own:
        specs = _with_seat_limits(specs, lim, own)
    # once asked for, isolation is required on every resume of the folder too
    required = require_isolation or (stored is not None and bool(stored.isolation.get("required")))
    made = _hidden_ahead(folder, refs)
    try:
        config.isolation = isolation_record(refs, required)
    except LeagueError:
        for path in made:  # (empty: nothing was stored)
            with contextlib.suppress(OSError):
                path.rmdir()
        raise
    config.report = ((stored.report if stored is not None else "") if report is None else
                     (REPORT_FILE if report else ""))
    return Plan(out, config, specs, f"tourney league --resume --out {shlex.quote(str(out))}")


def _league_bots(bots: Sequence[str], stored: LeagueConfig | None,
                 kind: str) -> tuple[list[BotRef], dict[str, dict[str, float]], str]:
    """The league's bots, the limits of those with their own, and its kind: as the command
    names them (a bot argument may end in its own limits), or, named by none, as the stored
    league had them."""
    from harness.league import limits as bot_limits

    last = stored.schedule if stored is not None else {}
    own: dict[str, dict[str, float]] = {}
    if not bots and stored is not None and last:
        refs = [_stored_ref(stored, name) for name in last.get("bots", [])]
        kind = str(last.get("kind", kind))
        own = {r.name: stored.bot_limits[r.name] for r in refs if r.name in stored.bot_limits}
    else:
        refs = []
        for text in bots:
            spec_text, overrides = bot_limits.split_limits(text)
            refs.append(bot_ref(spec_text))
            if overrides:
                own[refs[-1].name] = dict(overrides)
    return refs, own, kind


def _league_sides(choice: GameChoice, mixed: bool, kind: str) -> list[list[int]]:
    """The seats of each side of the league's games; a :class:`LeagueError` when mixed teams
    cannot be made (no teams, or a gauntlet)."""
    from harness.league import schedule

    try:
        seats = schedule.sides(choice.name, choice.players)
        if mixed:
            schedule.check_mixed(seats, choice.name, choice.players)
            if kind == "gauntlet":
                raise schedule.ScheduleError("mixed teams are for a round robin; leave out "
                                             "--mixed-teams or --challenger")
    except schedule.ScheduleError as exc:
        raise LeagueError(str(exc)) from None
    return seats


def _with_seat_limits(specs: list[GameSpec], base: Limits,
                      own: dict[str, dict[str, float]]) -> list[GameSpec]:
    """The games with every seat's limits spelled out, as some bots have their own."""
    from harness.league.limits import apply_overrides

    per_bot: dict[str, Limits] = {}
    for spec in specs:
        for ref in spec.seats:
            if ref.name not in per_bot:
                per_bot[ref.name] = apply_overrides(base, own.get(ref.name, {}))
    return [dataclasses.replace(s, seat_limits=tuple(per_bot[r.name] for r in s.seats))
            for s in specs]


def _hidden_ahead(folder: ResultsFolder, refs: Sequence[BotRef]) -> list[Path]:
    """For a league with sandboxed bots: make its folder (empty) and hide it from bots before
    the isolation probe starts the bots' start-up server, which then hides it already and
    serves the preflight and the first worker's games (:func:`harness.bots.sandbox.offer_starter`)
    rather than being replaced once the folder is made; the folders made here, deepest first."""
    from harness.bots.spec import is_sandboxed

    if not any(is_sandboxed(ref.spec) for ref in refs):
        return []
    made = [path for path in (folder.root, *folder.root.parents) if not path.exists()]
    try:
        folder.root.mkdir(parents=True, exist_ok=True)
    except OSError:  # said where it is written to (nothing is lost here)
        return []
    folder.hide_from_bots()
    return made


def isolation_record(refs: Sequence[BotRef], required: bool) -> dict[str, Any]:
    """What confines this league's sandboxed bots (recorded in its configuration, with ``required``
    when the folder demands it); with ``required``, a :class:`LeagueError` naming what is
    missing."""
    from harness.bots import isolation, sandbox
    from harness.bots.spec import is_sandboxed

    if not any(is_sandboxed(ref.spec) for ref in refs) and not required:
        return {"sandboxed_bots": False}
    state = sandbox.report()
    missing = isolation.missing(state)
    if required and missing:
        raise LeagueError(f"--require-isolation: this machine does not give bots "
                          f"{'; '.join(missing)} ({isolation.describe(state)}); run as root on "
                          f"a Linux host that allows namespaces and cgroups, or drop "
                          f"--require-isolation (a league started with it keeps it)")
    return {**state, "missing": missing, "required": required}


def _stored_ref(config: LeagueConfig, name: str) -> BotRef:
    ref = config.bot(name)
    if ref is None:
        raise LeagueError(f"{CONFIG_FILE} names bot {name!r} but does not describe it; "
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
    stopped: bool = False  # the gate had its answer before the schedule ran out
    quarantined: list[str] = field(default_factory=list)
    void: int = 0  # games stored void: harness failures, no bot to blame, not rated
    forfeits: Forfeits = field(default_factory=Forfeits)  # of the games played in this run
    clock_cuts: ClockCuts = field(default_factory=ClockCuts)  # decisions at the safety net
    strict_stop: str = ""  # why --strict stopped the league (empty: it was not stopped)
    capped: bool = False  # a gate stops the run: ``scheduled`` is a cap, not a plan


class Gate(Protocol):
    """Decides which finished games go to the store and when the league may stop early (the
    SPRT of :mod:`harness.league.sequential`); without one every game is stored at once."""

    @property
    def done(self) -> bool:
        """The league can stop: the answer is known."""

    def admit(self, record: Finished) -> list[Finished]:
        """Take a finished game; return the games to store now."""

    def release(self) -> list[Finished]:
        """The games taken but not stored yet, to keep when the run ends early (Ctrl-C, an
        error); none once ``done``: games past the answer are not the league's."""

    def postfix(self) -> str:
        """The progress bar's text."""

    def eta(self, eta: Eta) -> str:
        """The progress bar's time to the answer (``eta`` has the measured game times), which
        for a league that may stop early is not the time to play every scheduled game."""


class _Leader:
    """Points per bot (win 1, draw 1/2) for the progress bar's postfix."""

    def __init__(self) -> None:
        self.points: dict[str, list[float]] = {}
        self._waiting: dict[tuple[tuple[str, ...], tuple[float, ...], tuple[int, ...]], int] = {}

    def add(self, bots: Sequence[str], result: Sequence[float],
            teams: Sequence[int] | None = None) -> None:
        """Count a game (scored when the text is next asked for: a league has few outcomes);
        ``teams``: the team of each seat, as the game declares them (none: a side a seat)."""
        key = (tuple(bots), tuple(result), tuple(teams or ()))
        self._waiting[key] = self._waiting.get(key, 0) + 1

    def _score(self) -> None:
        from harness.stats.outcome import Result, sides_of

        worth = {"win": 1.0, "draw": 0.5, "loss": 0.0}
        for (bots, result, teams), games in self._waiting.items():
            game = Result.from_seats(bots, result, teams=sides_of(teams) if teams else None)
            for name in dict.fromkeys(bots):
                side = game.side_of(name)
                assert side is not None
                acc = self.points.setdefault(name, [0.0, 0.0])
                acc[0] += games * worth[game.placing(side)]
                acc[1] += games
        self._waiting.clear()

    def text(self) -> str:
        self._score()
        if not self.points:
            return "-"
        name, (pts, n) = max(self.points.items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0]))
        return f"{name} {100 * pts / n:.0f}%"


def _progress(total: int, initial: int, enabled: bool, capped: bool = False) -> Any:
    """The progress bar; ``capped``: ``total`` is a cap the run stops before (an SPRT's), shown
    as such, with no bar filling towards it."""
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread: workers are forked
    # tqdm's own remaining time assumes one rate for every game: the postfix carries ours
    shape = ("{n_fmt} games (cap {total_fmt}) [{elapsed}, {rate_fmt}{postfix}]" if capped else
             "{l_bar}{bar}| {n_fmt}/{total_fmt} games [{elapsed}, {rate_fmt}{postfix}]")
    return tqdm(total=total, initial=initial, unit="game", disable=not enabled,
                dynamic_ncols=True, smoothing=0.1, file=sys.stderr, bar_format=shape)


def run_league(
    plan: Plan,
    executor: Executor,
    *,
    progress: bool = True,
    batch_size: int = BATCH_SIZE,
    flush_seconds: float = 10.0,
    on_record: Callable[[GameRecord], None] | None = None,
    gate: Gate | None = None,
    preflight: bool = True,
    strict: bool = False,
) -> RunSummary:
    """Play every scheduled game not stored yet and store each record exactly once.

    ``preflight``: first start every bot of the league once and stop, having written nothing,
    when one cannot start (:mod:`harness.league.preflight`). ``strict``: stop at the first
    forfeit (the finished games are stored). On Ctrl-C (or any error while playing) the
    finished games are flushed before the exception propagates; a StoreError (full disk,
    unwritable folder) leaves no partial file. A ``gate`` chooses when a finished game is
    stored, and stops the run (the same way as Ctrl-C, without the interruption) once it is
    ``done``.
    """
    from harness.league import store

    if preflight:
        from harness.league.preflight import require_bots_start

        names = plan.config.schedule.get("bots") or [b.name for b in plan.config.bots]
        refs = [ref for ref in map(plan.config.bot, names) if ref is not None]
        require_bots_start(plan.config, refs)

    st = store.ResultsStore.open(plan.out, plan.config, batch_size=batch_size,
                                 flush_seconds=flush_seconds)
    try:
        _require_same_deals(plan, st)
        _require_writable_logs(ResultsFolder(plan.out).logs)
        return _run_open(plan, st, executor, progress, on_record, gate, strict)
    finally:
        st.close()


def _require_writable_logs(logs: Path) -> None:
    """Stop before the first game when the bots' logs cannot be written: every game would
    otherwise end void (the harness failing with no bot to blame) and be played for nothing."""
    import tempfile

    try:
        logs.mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=logs, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise LeagueError(f"cannot write the bots' logs to {logs} ({exc.strerror or exc}); make "
                          f"it a folder you may write (nothing was played)") from None


def _require_same_deals(plan: Plan, st: ResultsStore) -> None:
    """Refuse a folder whose configuration no longer describes its stored games: game ids are
    keyed hashes, so under a removed, changed or public key (or another deal scheme) the
    schedule names none of the games already played by its bots, and a resume would play them
    all again under deals that are not the league's."""
    from harness.league import store

    if not st.finished or st.finished & {s.game_id for s in plan.specs}:
        return
    groups = {frozenset(ref.name for ref in s.seats) for s in plan.specs}
    stored = store.load_games([plan.out]).games.select(["game_id", "bots"]).to_pylist()
    theirs = [row for row in stored if frozenset(row["bots"]) in groups]
    if theirs:
        raise LeagueError(
            f"{ResultsFolder(plan.out).config_path} does not describe the games stored there: "
            f"{len(theirs)} stored games of these bots, none of them in the schedule its key "
            f"and deal scheme give (were they changed or removed?); restore {CONFIG_FILE} from "
            f"a backup (nothing was played), or play into a new --out folder")


def _run_open(plan: Plan, st: ResultsStore, executor: Executor, progress: bool,
              on_record: Callable[[GameRecord], None] | None,
              gate: Gate | None = None, strict: bool = False) -> RunSummary:
    from harness.league import store

    ResultsFolder(plan.out).hide_from_bots()  # its key would let a bot rebuild the deals
    todo = [s for s in plan.specs if s.game_id not in st.finished]
    summary = RunSummary(len(plan.specs), len(plan.specs) - len(todo),
                         quarantined=list(st.report.quarantined), capped=gate is not None)
    leader = _Leader()
    if summary.already:
        wanted = {s.game_id for s in plan.specs}
        games = store.load_games([plan.out]).games
        stored = games.select([c for c in ("game_id", "bots", "result", "rated", "teams")
                               if c in games.column_names])
        for row in stored.to_pylist():
            if row["game_id"] in wanted and row["rated"]:
                leader.add(row["bots"], row["result"], row.get("teams"))
    bar = _progress(len(plan.specs), summary.already, progress, summary.capped)
    eta = Eta(todo)
    spec_of = {s.game_id: s for s in todo}
    t0 = time.perf_counter()
    last_shown, shown = t0, 0  # the bar is redrawn a few times a second, not per game

    def keep(records: Sequence[Finished]) -> None:
        for record in records:
            if st.add(record):
                summary.stored += 1
                if not is_void(record):
                    leader.add(record.seats, record.returns, record.teams)
                else:
                    summary.void += 1

    try:
        with executor:
            for record in records_of(executor, todo):
                summary.played += 1
                keep(gate.admit(record) if gate is not None else (record,))
                forfeit = summary.forfeits.add_record(record)
                if record.game_id in spec_of:
                    summary.clock_cuts.add_record(record, spec_of[record.game_id])
                eta.add(record.seats, record_field(record, "duration"),
                        record_field(record, "think_time"), time.perf_counter())
                if on_record is not None:
                    on_record(record if isinstance(record, GameRecord) else record.record())
                if gate is not None and gate.done:
                    summary.stopped = True
                    bar.set_postfix_str(gate.postfix(), refresh=False)
                    break
                if forfeit and strict:
                    summary.strict_stop = f"--strict: stopped at the first forfeit, " \
                                          f"{summary.forfeits.first}"
                    break
                now = time.perf_counter()
                if now - last_shown > 0.25:
                    if gate is not None:
                        when, text = gate.eta(eta), gate.postfix()
                    else:
                        when, text = f"ETA {clock(eta.seconds_left())}", f"leader {leader.text()}"
                    bar.set_postfix_str(f"{when}, {text}, {summary.forfeits.progress_text()}",
                                        refresh=False)
                    bar.update(summary.played - shown)
                    last_shown, shown = now, summary.played
    except KeyboardInterrupt:
        summary.interrupted = True
        if gate is not None:
            keep(gate.release())
    except BaseException as exc:
        with contextlib.suppress(StoreError):  # keep what finished, report the cause
            if gate is not None:
                keep(gate.release())
            st.flush()
        if isinstance(exc, StoreError):  # a batch could not be written (full disk)
            raise LeagueError(f"{exc}; then resume with: {plan.resume_command}") from exc
        raise
    finally:
        bar.update(summary.played - shown)
        bar.close()
        summary.seconds = time.perf_counter() - t0
    try:
        st.flush()
    except StoreError as exc:
        raise LeagueError(f"{exc}; then resume with: {plan.resume_command}") from exc
    return summary


def records_of(executor: Executor, todo: list[GameSpec]) -> Iterator[GameRecord | PackedRecord]:
    """The executor's records, in whichever form it has them (stored as they are)."""
    if not todo:
        return iter(())
    return executor.records(todo)


def make_executor(workers: int | None, out: Path, cluster: str | None,
                  game_timeout: float | None = None,
                  require_isolation: bool = False, persistent: bool = False) -> Executor:
    """The back end a command asked for: a Dask cluster, in-process (0) or worker processes.

    ``game_timeout``: the watchdog's limit per game in worker processes (default: every seat's
    worst-case time plus a minute, see :func:`harness.run.base.game_deadline`).
    ``require_isolation``: every Dask worker checks, before its first game, that it gives bots
    every protection (local workers share this machine, which :func:`prepare_league` checked).
    ``persistent``: local workers outlive each run of games (a living league's waves).
    """
    if cluster:
        from harness.run import dask

        dask.require_dask()
        from harness.run.dask.executor import DaskExecutor

        return DaskExecutor(cluster, log_dir=ResultsFolder(out).logs,
                            require_isolation=require_isolation)
    from harness.match.placement import cpu_count
    from harness.run import base, local

    if workers is not None and workers < 0:
        raise LeagueError(f"--workers must be 0 (in this process) or more (got {workers})")
    if game_timeout is not None and game_timeout <= 0:
        raise LeagueError(f"--game-timeout must be positive (got {game_timeout})")
    if game_timeout is not None and workers == 0:
        raise LeagueError("--game-timeout needs worker processes: use --workers 1 or more")
    folder = ResultsFolder(out)
    play = base.default_play(folder.logs, hide=folder.cover())
    n = workers if workers is not None else cpu_count()
    return local.make_executor(n, play, deadline=game_timeout, persistent=persistent)


def _summary_lines(plan: Plan, summary: RunSummary) -> list[str]:
    lines = [f"quarantined {q}" for q in summary.quarantined]
    rate = summary.played / summary.seconds if summary.seconds > 0 else 0.0
    total = summary.already + summary.stored
    stored = (f"{total} games stored in {plan.out} (cap {summary.scheduled})" if summary.capped
              else f"{total} of {summary.scheduled} scheduled games stored in {plan.out}")
    lines.append(f"{plan.config.name}: played {summary.played} games in {summary.seconds:.1f} s "
                 f"({rate:.1f} games/s); {stored}")
    lines.extend(summary.forfeits.summary_lines())
    lines.extend(summary.clock_cuts.summary_lines())
    if summary.strict_stop:
        lines.append(f"{summary.strict_stop}; resume with: {plan.resume_command}")
    if summary.void:
        lines.append(f"WARNING: {summary.void} of the games played are void (the harness failed "
                     f"with no bot to blame; they are not rated): see their reason column and "
                     f"{plan.out / 'logs'}")
    return lines


def _summary_json(plan: Plan, summary: RunSummary) -> dict[str, Any]:
    """The run's summary for ``--json`` (its shape is documented in docs/results.md)."""
    return {
        "league": plan.config.name, "out": str(plan.out), "scheduled": summary.scheduled,
        "already_stored": summary.already, "played": summary.played, "stored": summary.stored,
        "seconds": round(summary.seconds, 3), "void": summary.void,
        "interrupted": summary.interrupted, "stopped": summary.strict_stop,
        "quarantined": summary.quarantined, "forfeits": summary.forfeits.to_json(),
        "clock_cuts": summary.clock_cuts.to_json(),
        "resume_command": plan.resume_command,
    }


def stored_games(folders: Sequence[Path], purpose: str = "rate") -> tuple[list[LeagueConfig],
                                                                          store.Loaded]:
    """The configurations and stored games of ``folders``, which must hold one game under one
    rules version (``purpose`` names what for in the error: "cannot rate ... together")."""
    from harness.league import store

    folders = list(folders)
    configs = [load_config(f) for f in folders]
    kinds = {(c.game, c.rules_version) for c in configs}
    if len(kinds) > 1:
        listed = ", ".join(f"{f} ({c.game} rules {c.rules_version})"
                           for f, c in zip(folders, configs, strict=True))
        raise LeagueError(f"cannot {purpose} different games or rules versions together: "
                          f"{listed}")
    return configs, store.load_games(folders)


@dataclass(frozen=True)
class RatedFolders:
    """The ratings of the games stored in some folders (the model every format of ``tourney
    ratings`` and the Python API render), what a reader must know besides, files skipped."""

    rated: Rated
    notes: list[str]
    skipped: list[str]


def rate_folders(folders: Sequence[Path], *, draw_probability: float | None = None,
                 anchor: str | None = None, level: float = 0.95, interval: str = "curvature",
                 show: Collection[str] | None = None) -> RatedFolders:
    """The ratings (Elo fit beside TrueSkill, the pairs) of the games stored in ``folders``;
    see :mod:`harness.league.verdicts`. ``show``: the bots to list (the fit is still of every
    game), e.g. a living league's latest versions."""
    from harness.league import verdicts
    from harness.league.identity import versions

    configs, loaded = stored_games(folders)
    if loaded.games.num_rows == 0:
        where = ", ".join(str(f) for f in folders)
        raise LeagueError(f"no finished games stored in {where} yet; run `tourney league` first")
    rename, notes = versions(configs)  # a name with two versions of code: rated apart
    from harness.league.store import SPRT_FILE

    notes = notes + [
        f"{folder} holds an SPRT, stopped when its test decided: the figures here are "
        "fixed-sample and lean away from 0; the stopping-aware Elo and interval are those its "
        "verdict printed (run the same gauntlet command again to see it)"
        for folder in folders if (folder / SPRT_FILE).exists()]
    rows = _rows_by_version(folders, rename) if rename else \
        loaded.games.select(verdicts.COLUMNS).to_pylist()
    try:
        rated = verdicts.rate(rows, anchor=anchor, level=level,
                              interval=verdicts.interval(interval),
                              draw_probability=draw_probability)
    except verdicts.RatingsInputError as exc:
        raise LeagueError(str(exc)) from None
    if show is not None:
        rated = verdicts.only(rated, set(show))
    return RatedFolders(rated, notes, loaded.skipped)


def _rows_by_version(folders: Sequence[Path], rename: dict[tuple[int, str], str]
                     ) -> list[dict[str, Any]]:
    """The rows to rate, each bot under the name of its version in its folder."""
    from harness.league import store, verdicts

    rows = []
    for k, folder in enumerate(folders):
        for row in store.load_games([folder]).games.select(verdicts.COLUMNS).to_pylist():
            for col in ("bots", "offender_bot", "winner"):
                if col in row and row[col] is not None:
                    row[col] = ([rename.get((k, b), b) for b in row[col]] if col == "bots"
                                else rename.get((k, row[col]), row[col]))
            rows.append(row)
    return rows


def find_game(folder: Path, game_id: str) -> dict[str, Any]:
    """The games-table row of game ``game_id`` (or a unique prefix of it) stored in ``folder``."""
    from harness.league import store

    load_config(folder)
    table = store.load_games([folder]).games
    ids = table.column("game_id").to_pylist()
    hits = [i for i, gid in enumerate(ids) if gid == game_id] or [
        i for i, gid in enumerate(ids) if game_id and gid.startswith(game_id)]
    if not hits:
        raise LeagueError(f"no game {game_id!r} stored in {folder}; `tourney games-list "
                          f"{folder}` lists the ids")
    candidates = sorted({ids[i] for i in hits})
    if len(candidates) > 1:
        shown = ", ".join(candidates[:CANDIDATES])
        more = f" and {len(candidates) - CANDIDATES} more" if len(candidates) > CANDIDATES else ""
        raise LeagueError(f"{game_id!r} matches {len(candidates)} games: {shown}{more}; give "
                          f"more of the id")
    row: dict[str, Any] = table.slice(hits[0], 1).to_pylist()[0]
    return row


def replay_lines(folder: Path, game_id: str, boards: bool = True) -> Iterator[str]:
    """A stored game move by move, rebuilt from its seed, variant and moves."""
    from games import registry
    from games.protocol import GameError
    from harness.league import store
    from harness.league.schema import record_from_row

    row = record_from_row(find_game(folder, game_id))
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
    if len({row.teams[s] for s in row.winners}) > 1:  # free-for-all seats level at the top
        outcome = f"first place shared by {', '.join(names)} (seats {won})"
    elif names:
        outcome = f"won by {' + '.join(names)} (seat{plural} {won})"
    else:
        outcome = "void (not rated)" if is_void(row) else "draw"
    yield f"result: {outcome}; {row.termination.value}: {row.reason}"


# ----------------------------------------------------------------------------- the service


class League:
    """A league in its results folder: what the command line, the tests and the benchmark use.

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "demo"
    >>> league = League.prepare("battleline", ["random", "other=random"], out=out, games=2)
    >>> league.run(workers=0, progress=False).stored
    2
    >>> League.resume(out).run(workers=0, progress=False).already
    2
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    @classmethod
    def prepare(cls, game: str | None, bots: Sequence[str], *, out: Path,
                games: int | None = None, seed: int | None = None,
                variants: Sequence[str] = (), limits: LimitChoice = NO_LIMITS,
                resume: bool = False, kind: str = "round-robin",
                require_isolation: bool = False, mixed_teams: bool | None = None,
                report: bool | None = None) -> League:
        """A round robin (or gauntlet) of ``bots`` on ``game`` stored in ``out``; options left
        out come from the folder's configuration when it exists (see :func:`prepare_league`).
        ``limits``: the limit options given, as one object."""
        return cls(prepare_league(game, bots, out=out, games=games, seed=seed,
                                  variants=variants, limits=limits, resume=resume, kind=kind,
                                  require_isolation=require_isolation,
                                  mixed_teams=mixed_teams, report=report))

    @classmethod
    def resume(cls, out: Path) -> League:
        """The league stored in ``out``, as it was configured."""
        return cls.prepare(None, [], out=out, resume=True)

    @property
    def out(self) -> Path:
        return self.plan.out

    @property
    def config(self) -> LeagueConfig:
        return self.plan.config

    @property
    def specs(self) -> list[GameSpec]:
        return self.plan.specs

    def executor(self, workers: int | None = None, cluster: str | None = None,
                 game_timeout: float | None = None) -> Executor:
        """The back end to run on (see :func:`make_executor`), bot logs under ``out/logs``."""
        return make_executor(workers, self.out, cluster, game_timeout,
                             bool(self.config.isolation.get("required")))

    def run(self, executor: Executor | None = None, *, workers: int | None = None,
            progress: bool = True, batch_size: int = BATCH_SIZE,
            on_record: Callable[[GameRecord], None] | None = None,
            gate: Gate | None = None, preflight: bool = True,
            strict: bool = False) -> RunSummary:
        """Play every scheduled game not stored yet (see :func:`run_league`); without an
        ``executor``, on ``workers`` local worker processes (0: in this process)."""
        if executor is None:
            executor = self.executor(workers)
        return run_league(self.plan, executor, progress=progress, batch_size=batch_size,
                          on_record=on_record, gate=gate, preflight=preflight,
                          strict=strict)

    def summary_lines(self, summary: RunSummary) -> list[str]:
        return _summary_lines(self.plan, summary)

    def summary_json(self, summary: RunSummary) -> dict[str, Any]:
        return _summary_json(self.plan, summary)

    def ratings(self, **options: Any) -> RatedFolders:
        """The ratings of the games stored so far (see :func:`rate_folders` for the
        ``options``; :func:`harness.figures.verdicts.render` shows them)."""
        return rate_folders([self.out], **options)

    def replay(self, game_id: str, boards: bool = True) -> Iterator[str]:
        """A stored game move by move (see :func:`replay_lines`)."""
        return replay_lines(self.out, game_id, boards)
