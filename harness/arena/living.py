"""A league that never ends: ``tourney arena run``.

One process plays duplicate pairs until it is stopped, in **waves** of a few pairs per worker:

1. **The field.** The registry (:mod:`harness.arena.registry`) is read again, and the watched
   folder scanned (:class:`harness.arena.entries.Inbox`): versions added, updated, retired or
   reinstated from another terminal take effect here, without a restart.
2. **Entry checks.** A version waiting for its check gets the checks of ``tourney validate``
   (start-up in the sandbox, one game against random from every seat) and one **self-play**
   game (as Kaggle's validation episode): it is ``active`` once it passes, ``failed`` with the
   reason otherwise, and never plays a rated game before.
3. **The wave.** The matchmaker (:mod:`harness.arena.matchmaking`) chooses the next pairs
   (:meth:`~harness.arena.matchmaking.Matchmaker.choose_many`); each is recorded in the
   registry as an *assignment* (the pairing and its next deal index) before any of its games
   is played. A pair's two games have the ids and the secret deal a round robin of the same
   bots and key would give them (:func:`harness.league.schedule.deal_set`).
4. **The games** run on the executor of a league (worker processes, in this process, or a Dask
   cluster with ``--cluster``); each finished game is stored exactly once
   (:class:`harness.league.store.ResultsStore`), and each finished pair updates the ratings.
   A version that forfeits ``suspend_after`` games in a row is **suspended** with the reason.

Stopping: Ctrl-C stores every finished game and exits; after a ``kill -9`` the next start plays
the assignments whose games are not all stored, under the same ids and deals, so nothing is lost
and nothing is played twice. The ratings are rebuilt from the stored games at every start.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.arena.entries import Inbox
from harness.arena.fairshare import FairShare
from harness.arena.registry import DB_FILE, INBOX_DIR, ArenaError, Assignment, Registry, Version
from harness.league.config import LeagueConfig, StoreError, describe_variant
from harness.league.folder import ResultsFolder
from harness.records import BotRef, GameRecord, GameSpec, Limits, PackedRecord, is_void

if TYPE_CHECKING:
    from harness.arena.matchmaking import Matchmaker
    from harness.league.store import ResultsStore
    from harness.run.base import Executor

KIND = "arena"
SUSPEND_AFTER = 3  # forfeits in a row before an admitted version is suspended
PAIRS_PER_WORKER = 8  # a wave's pairs per worker
IDLE_SECONDS = 1.0  # how often an arena with fewer than two active bots looks again
SCAN_SECONDS = 2.0  # how often the field is read again between waves


def create(folder: Path, game: str, *, variants: Sequence[str] = (), seed: int | None = None,
           limits: Limits | None = None, require_isolation: bool = False) -> LeagueConfig:
    """Make ``folder`` a living league of ``game`` (or return its configuration when it is one
    already, refusing another game)."""
    from harness.league import schedule
    from harness.league.service import LeagueError, choose_game, isolation_record
    from harness.league.store import ResultsStore

    results = ResultsFolder(folder)
    if results.holds_league():
        config = load_arena(folder)
        try:
            asked = choose_game(game, variants)
        except LeagueError as exc:
            raise ArenaError(str(exc)) from None
        if (asked.name, asked.variant) != (config.game, config.variant):
            raise ArenaError(f"{folder} is a living league of {config.game} "
                             f"({describe_variant(config.variant)}), not {asked.name} "
                             f"({describe_variant(asked.variant)}); leave out --game to run "
                             f"it, or choose another folder")
        return config
    try:
        choice = choose_game(game, variants)
    except LeagueError as exc:
        raise ArenaError(str(exc)) from None
    if len(schedule.sides(choice.name, choice.players)) != 2:
        raise ArenaError(f"a living league pairs two bots a game (or two teams): the "
                         f"{choice.players}-player {choice.name} is a free-for-all, which is for "
                         f"tourney league; choose players=2")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ArenaError(f"{folder} is not empty and is not a living league; choose a new or "
                         f"empty folder")
    try:
        isolation = isolation_record([BotRef("x", "sandbox:random")], require_isolation)
    except LeagueError as exc:
        raise ArenaError(str(exc)) from None
    config = results.new_config(choice, kind=KIND, games_per_pair=2, seed=seed, limits=limits,
                                isolation=isolation)
    try:
        ResultsStore.open(folder, config).close()
    except StoreError as exc:
        raise ArenaError(str(exc)) from None
    Registry.create(folder).close()
    (folder / INBOX_DIR).mkdir(exist_ok=True)  # the watched folder, there to drop bots into
    return config


def load_arena(folder: Path) -> LeagueConfig:
    """The configuration of the living league in ``folder``; :class:`ArenaError` otherwise."""
    results = ResultsFolder(folder)
    if not (folder / DB_FILE).is_file() or not results.holds_league():
        if results.holds_league():
            raise ArenaError(f"{folder} holds a league, not a living league; `tourney arena` "
                             f"works on folders made by `tourney arena run FOLDER --game GAME`")
        raise ArenaError(f"{folder} is not a living league (no {DB_FILE}); start one with "
                         f"tourney arena run {folder} --game GAME")
    try:
        config = results.read_config()
    except StoreError as exc:
        raise ArenaError(str(exc)) from None
    if config.kind != KIND:
        raise ArenaError(f"{folder} holds a {config.kind} league, not a living league")
    return config


# ----------------------------------------------------------------------------- entry check


def entry_check(config: LeagueConfig, version: Version, *, seed: int | None = None
                ) -> tuple[bool, str, list[str]]:
    """The build step of a bot in another language (:mod:`harness.arena.build`, once), the
    checks of ``tourney validate`` (one game against random from every seat) and one
    self-play game: (passed, the first problem, the report's lines)."""
    from games import registry as games
    from harness.arena.build import build_once
    from harness.bots.spec import parse_spec
    from harness.match.referee import play_game
    from harness.match.validation import unguessable_seed, validate

    built = build_once(version.spec)  # a bot in another language: its build step, once
    if built is not None and not built.ok:
        return False, built.reason, built.lines
    seed = unguessable_seed() if seed is None else seed
    game = games.get(config.game)
    limits = config.limits_for(version.bot)
    source = parse_spec(version.spec)
    boxed = version.spec if source.sandboxed else str(source.in_sandbox())
    report = validate(boxed, version.bot, game, config.variant, 1, limits, seed)
    if built is not None:
        report.lines[:0] = built.lines
    if not report.passed:
        return False, report.failures[0], report.lines
    players = game.new_game(seed, **config.variant).num_players
    seats = tuple(BotRef(f"{version.bot}#{s}", version.spec) for s in range(players))
    record = play_game(GameSpec(f"entry-{version.bot}", config.game, config.variant, seed + 7,
                                seats, limits=limits))
    line = (f"self-play game (seed {seed + 7}): {record.decisions} decisions, "
            f"{record.termination.value}")
    if record.termination.is_forfeit:
        report.problem(f"{line}: {record.reason}")
        return False, f"self-play game: {record.termination.value}: {record.reason}", \
            report.lines
    report.say(f"ok   {line}")
    return True, "", report.lines


def record_check(registry: Registry, config: LeagueConfig, version: Version
                 ) -> tuple[bool, str] | None:
    """Run the entry check of a version whose check this process claimed
    (:meth:`Registry.claim_check`), and record its outcome: the status (``active`` or ``failed``
    with the first problem) and the report. None when the version stopped waiting meanwhile
    (its entrant retired)."""
    try:
        ok, reason, lines = entry_check(config, version)
    except Exception as exc:  # a check that cannot run is the bot's failure, not ours
        ok, reason, lines = False, f"the entry check could not run: {exc}", []
    current = registry.version(version.bot)
    if current is None or current.status != "validating":
        return None
    registry.set_report(version.bot, lines)
    registry.set_status(version.bot, "active" if ok else "failed", "" if ok else reason)
    return ok, reason


# ----------------------------------------------------------------------------- the loop


@dataclass
class RunOptions:
    workers: int | None = None
    cluster: str | None = None
    game_timeout: float | None = None
    stop_after: int | None = None  # games to play in this run, then stop (None: until stopped)
    stop_when_idle: bool = False  # stop when fewer than two bots can play (tests, scripts)
    suspend_after: int = SUSPEND_AFTER
    pairs_per_worker: int = PAIRS_PER_WORKER
    report: Path | None = None
    report_interval: float = 60.0
    progress: bool = True
    seed: int | None = None  # of the matchmaker's tie-breaks (default: random)
    batch_size: int | None = None  # games per Parquet batch (default: the store's)
    flush_seconds: float | None = None  # the longest a finished game waits to be written
    fair_share: bool = True  # each entrant a fair share of worker time (harness.arena.fairshare)
    say: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr))


@dataclass
class RunSummary:
    played: int = 0  # games played in this run (including repeats of already stored ones)
    stored: int = 0  # games stored in this run
    replayed_pairs: int = 0  # assignments of an earlier run played again (not all stored)
    admitted: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    suspended: list[str] = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0


class _Pending:
    """The games of an assignment still to come, and what its stored games scored."""

    def __init__(self, assignment: Assignment, ids: Sequence[str]) -> None:
        self.assignment = assignment
        self.waiting = set(ids)
        self.games = 0
        self.points = 0.0  # of the assignment's first bot in sorted order


class Arena:
    """A living league folder, open to run (one process at a time: the store's lock)."""

    def __init__(self, folder: Path, options: RunOptions | None = None) -> None:
        self.folder = folder
        self.options = options or RunOptions()
        self.config = load_arena(folder)
        self.registry = Registry.open(folder)
        self.inbox = Inbox(folder)
        self.rng = random.Random(self.options.seed if self.options.seed is not None
                                 else secrets.randbits(64))
        self.refs: dict[str, BotRef] = {}
        self.streak: dict[str, int] = {}
        self.summary = RunSummary()
        self.mm: Matchmaker | None = None
        self._store: ResultsStore | None = None
        self._bar: Any = None
        self._last_seq = 0  # the last assignment made before this run
        self._stopping = False  # Ctrl-C or SIGTERM: stop at the next game
        # (assignment seq, games stored in this run) at the end of each wave that finished
        # every pair chosen so far, until those games are written (_finished_through)
        self._played_through: list[tuple[int, int]] = []
        self.fair = FairShare()

    # -- the field

    def _say(self, line: str) -> None:
        if self._bar is not None:
            self._bar.write(line, file=sys.stderr)
        else:
            self.options.say(line)

    def _ref(self, version: Version) -> BotRef:
        ref = self.refs.get(version.bot)
        if ref is None:
            ref = self.refs[version.bot] = BotRef(version.bot, version.spec, version.sha256)
        return ref

    def _named(self, bot: str) -> BotRef:
        """The BotRef of a version by its rated name (KeyError if the registry has none)."""
        if bot not in self.refs:
            for version in self.registry.versions():
                self._ref(version)
        return self.refs[bot]

    def _sync(self) -> None:
        """Read the field again: the inbox, retirements and reinstatements, entry checks."""
        assert self.mm is not None
        for line in self.inbox.scan(self.registry):
            self._say(line)
        for version in self.registry.versions(status="validating"):
            if self._stopping:
                return
            self._check(version)
        admitted = self.registry.versions(status="active")
        for version in admitted:  # admitted by another process (tourney serve's own check)
            if self.config.bot(version.bot) is None:
                self._admit(version)
        active = {v.bot for v in admitted}
        for name in self.mm.bots:
            if name not in active:
                self.mm.remove_bot(name)
        for name in active - set(self.mm.bots):
            self.mm.add_bot(name)
            self.streak.pop(name, None)

    def _check(self, version: Version) -> None:
        if not self.registry.claim_check(version.bot):
            return  # another process (tourney serve) is checking it
        self._say(f"checking {version.bot} ({version.entrant}, version {version.version}) ...")
        outcome = record_check(self.registry, self.config, version)
        if outcome is None:  # retired meanwhile
            return
        ok, reason = outcome
        if ok:
            self._admit(version)
            self.summary.admitted.append(version.bot)
            self._say(f"{version.bot} admitted")
        else:
            self.summary.failed.append(version.bot)
            self._say(f"{version.bot} failed its entry check: {reason}")

    def _admit(self, version: Version) -> None:
        """The version joins the configuration's bots (what `tourney ratings` reads of it)."""
        assert self._store is not None
        ref = self._ref(version)
        config = self._store.config
        if config.bot(ref.name) is None:
            config = dataclasses.replace(config, bots=[*config.bots, ref])
            self._store.config = config
            self.config = config
            ResultsFolder(self.folder).write_config(config)

    # -- results

    def _suspend_check(self, record: GameRecord | PackedRecord) -> None:
        seats = list(record.seats)
        offender = record.offender
        blamed = seats[offender] if offender is not None and record.termination.is_forfeit \
            else None
        for name in set(seats):
            if name == blamed:
                self.streak[name] = self.streak.get(name, 0) + 1
            elif not is_void(record):
                self.streak[name] = 0
        if blamed is None or self.streak.get(blamed, 0) < self.options.suspend_after:
            return
        current = self.registry.version(blamed)
        if current is None or current.status != "active":
            return
        from harness.league.forfeits import record_field

        reason = (f"{self.streak[blamed]} forfeits in a row; the last: "
                  f"{record.termination.value}: {record_field(record, 'reason')}")
        self.registry.set_status(blamed, "suspended", reason)
        self.summary.suspended.append(blamed)
        assert self.mm is not None
        self.mm.remove_bot(blamed)
        self._say(f"{blamed} suspended: {reason} (tourney arena reinstate {self.folder} "
                  f"{current.entrant} lets it play again)")

    def _score(self, pending: _Pending, record: GameRecord | PackedRecord) -> None:
        from harness.stats.outcome import points

        if is_void(record):
            return
        seats = list(record.seats)
        returns = list(record.returns)
        lo = min(pending.assignment.a, pending.assignment.b)
        mine = [r for s, r in zip(seats, returns, strict=True) if s == lo]
        theirs = [r for s, r in zip(seats, returns, strict=True) if s != lo]
        if not mine or not theirs:
            return
        pending.games += 1
        pending.points += points(mine[0], theirs[0])

    # -- running

    def _specs(self, assignment: Assignment) -> list[GameSpec]:
        from harness.league import schedule
        from harness.league.service import _with_seat_limits

        x, y = self._named(assignment.a), self._named(assignment.b)
        specs = schedule.deal_set(self.config.game, self.config.variant, x, y, assignment.deal,
                                  players=self.config.players, league=self.config.name,
                                  limits=self.config.limits, key=self.config.key_bytes)
        if self.config.bot_limits:
            specs = _with_seat_limits(specs, self.config.limits, self.config.bot_limits)
        return specs

    def _load_ratings(self) -> None:
        from harness.arena.standings import fit, read_totals

        versions = self.registry.versions()
        active = [v.bot for v in versions if v.status == "active"]
        self.mm = fit(read_totals(self.folder), [v.bot for v in versions], active)

    def run(self, executor: Executor | None = None) -> RunSummary:
        """Play until stopped (Ctrl-C), ``stop_after`` games, or (``stop_when_idle``) until
        fewer than two bots can play; every finished game is stored."""
        from harness.league.service import make_executor
        from harness.league.store import ResultsStore

        opts = self.options
        own_executor = executor is None
        try:
            sizes: dict[str, Any] = {}
            if opts.batch_size is not None:
                sizes["batch_size"] = opts.batch_size
            if opts.flush_seconds is not None:
                sizes["flush_seconds"] = opts.flush_seconds
            self._store = ResultsStore.open(self.folder, self.config, must_exist=True,
                                            indexed=True, **sizes)
        except StoreError as exc:
            raise ArenaError(str(exc)) from None
        ResultsFolder(self.folder).hide_from_bots()
        if opts.progress:
            from tqdm import tqdm

            tqdm.monitor_interval = 0  # no monitor thread: workers are forked
            self._bar = tqdm(unit="game", file=sys.stderr, dynamic_ncols=True,
                             initial=len(self._store.finished), desc=self.config.name,
                             bar_format="{desc}: {n_fmt} games stored [{elapsed}, {rate_fmt}"
                                        "{postfix}]")
        t0 = time.perf_counter()
        handlers = self._catch_signals()
        updater = None
        if opts.report is not None:
            from harness.arena.report import ArenaReport

            updater = ArenaReport(self.folder, opts.report, opts.report_interval)
        try:
            self.config = self._store.config
            self._load_ratings()
            self.inbox.know(self.registry)
            self._last_seq = self.registry.last_seq()
            todo = self._unfinished()
            if todo:
                self._say(f"{len(todo)} duplicate pairs chosen before the last stop have games "
                          f"not stored yet: they are played first, under the same ids and deals")
            last_scan = 0.0
            while not self._stopping:
                if time.monotonic() - last_scan >= SCAN_SECONDS or not todo:
                    self._sync()
                    last_scan = time.monotonic()
                if opts.stop_after is not None and self.summary.played >= opts.stop_after:
                    break
                assert self.mm is not None
                if not todo and len(self.mm.bots) < 2:
                    if opts.stop_when_idle:
                        break
                    if updater is not None:
                        updater.tick()
                    time.sleep(IDLE_SECONDS)
                    continue
                if executor is None:
                    executor = make_executor(opts.workers, self.folder, opts.cluster,
                                             opts.game_timeout,
                                             bool(self.config.isolation.get("required")),
                                             persistent=True)
                wave = self._wave(executor)
                chosen = self._next_pairs(todo, wave)
                if chosen is None:  # fewer than two bots can play now
                    todo = []
                    continue
                played, todo = chosen[:wave], chosen[wave:]
                self._play(executor, played)
                if not todo and not self._stopping and played:
                    # every pair chosen so far is played (or its bot left): once its games
                    # are written, the next start need not look at them again (at 500,000
                    # pairs that look took 20 s)
                    self._finished_through(max(t.seq for t in played))
                if updater is not None:
                    updater.tick()
        except KeyboardInterrupt:
            self._stopping = True
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            self.summary.interrupted = self._stopping
            try:
                self._store.flush()
                self._finished_through(None)
            finally:
                self._store.close()
                if executor is not None and own_executor:
                    executor.close()
                if self._bar is not None:
                    self._bar.close()
                self.summary.seconds = time.perf_counter() - t0
        if updater is not None:
            updater.write()
        return self.summary

    def _catch_signals(self) -> dict[signal.Signals, Any]:
        """Ctrl-C and SIGTERM set a flag the loop looks at after every game (in the main
        thread; the handlers they replace are returned). A KeyboardInterrupt could be lost: one
        raised while a worker is forked is swallowed by the at-fork hooks (an "Exception
        ignored" message), and the arena forks workers at every wave."""
        handlers = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                handlers[signum] = signal.signal(signum, self._stop)
        return handlers

    def _wave(self, executor: Executor) -> int:
        """How many pairs to play at once: every worker busy, no more than ``stop_after``
        still needs."""
        opts = self.options
        wave = max(1, executor.workers * opts.pairs_per_worker)
        if opts.stop_after is not None:
            wave = min(wave, max(1, -(-(opts.stop_after - self.summary.played) // 2)))
        return wave

    def _next_pairs(self, todo: list[Assignment], wave: int) -> list[Assignment] | None:
        """The pairs to play next: those chosen before whose bots still play, or else a new
        ``wave`` chosen by the matchmaker and assigned in the registry; None when fewer than
        two bots can play. A pair chosen before one of its bots left (retired, replaced,
        suspended) is not played: none of its games was stored, so nothing is lost."""
        assert self.mm is not None
        opts = self.options
        playing = set(self.mm.bots)
        todo = [t for t in todo if t.a in playing and t.b in playing]
        if todo:
            return todo
        if len(playing) < 2:
            return None
        bots = self.mm.bots
        gate = self.fair.gate(bots) if opts.fair_share else None
        pairs = self.mm.choose_many(self.rng, wave, gate)
        if opts.fair_share:  # the most costly first: no worker idles at the end
            pairs = [pairs[i] for i in self.fair.order(pairs, bots)]
        return self.registry.assign(pairs)

    def _finished_through(self, seq: int | None) -> None:
        """Every assignment up to ``seq`` (None: none more) has had its games played: move the
        registry's mark of complete assignments to the newest such ``seq`` whose games are all
        written. A game still in the store's buffer is lost to a ``kill -9``, and the next start
        must find its pair unfinished and play it again: a mark set when the wave ends would
        hide it (the buffer is written every ``batch_size`` games, not at a wave's end, and a
        wave's games are seldom a multiple of it)."""
        assert self._store is not None
        if seq is not None:
            self._played_through.append((seq, self.summary.stored))
        written = self.summary.stored - self._store.pending  # this run's games on disk
        done = [s for s, stored in self._played_through if stored <= written]
        if done:
            self.registry.set_complete_through(max(done))
            self._played_through = [(s, n) for s, n in self._played_through if n > written]

    def _stop(self, signum: int, frame: object) -> None:
        self._stopping = True

    def _unfinished(self) -> list[Assignment]:
        """Assignments of earlier runs whose games are not all stored, between bots that may
        still play."""
        assert self._store is not None and self.mm is not None
        from harness.league.store import IndexedIds

        playing = set(self.mm.bots)
        wanted: list[tuple[Assignment, list[str]]] = []
        for assignment in self.registry.assignments_since(self.registry.complete_through()):
            if assignment.a not in playing or assignment.b not in playing:
                continue  # a bot left before the pair was played: it never will be
            wanted.append((assignment, [s.game_id for s in self._specs(assignment)]))
        finished = self._store.finished
        every = [i for _, ids in wanted for i in ids]
        done = finished.among(every) if isinstance(finished, IndexedIds) else finished
        out = [assignment for assignment, ids in wanted if not all(i in done for i in ids)]
        # what is complete now is not looked at again at the next start
        self.registry.set_complete_through(out[0].seq - 1 if out else self._last_seq)
        return out

    def _play(self, executor: Executor, wave: list[Assignment]) -> None:
        from harness.league.service import records_of

        assert self._store is not None and self.mm is not None
        pending: dict[str, _Pending] = {}
        specs: list[GameSpec] = []
        for assignment in wave:
            # a game stored before the last stop is not played again (its result is already
            # in the ratings, read from the store at the start)
            todo = [g for g in self._specs(assignment) if g.game_id not in self._store.finished]
            entry = _Pending(assignment, [g.game_id for g in todo])
            pending.update((g.game_id, entry) for g in todo)
            specs.extend(todo)
        if not specs:
            return
        try:
            self.summary.replayed_pairs += sum(t.seq <= self._last_seq for t in wave)
            records = records_of(executor, specs)
            try:
                self._take(records, pending)
            finally:  # a stop: the executor's games still running end here (workers killed)
                close = getattr(records, "close", None)
                if close is not None:
                    close()
        except StoreError as exc:
            raise ArenaError(f"{exc}; then run the arena again (nothing stored is lost)") \
                from exc
        if self._bar is not None and self.mm.bots:
            top = self.mm.ranking()[0]
            self._bar.set_postfix_str(f"{len(self.mm.bots)} active, leader {top}")

    def _take(self, records: Iterator[GameRecord | PackedRecord],
              pending: dict[str, _Pending]) -> None:
        """Store and score the wave's games as they finish, until it ends or a stop."""
        assert self._store is not None and self.mm is not None
        for record in records:
            self.summary.played += 1
            if self._store.add(record):
                self.summary.stored += 1
                if self._bar is not None:
                    self._bar.update(1)
            entry = pending[record.game_id]
            if not is_void(record):
                self.fair.charge(record, self.mm.bots)
            self._score(entry, record)
            entry.waiting.discard(record.game_id)
            self._suspend_check(record)
            if not entry.waiting and entry.games:
                a, b = sorted((entry.assignment.a, entry.assignment.b))
                if a in self.mm.index and b in self.mm.index:
                    self.mm.record(a, b, entry.points, games=entry.games)
            if self._stopping:
                return
