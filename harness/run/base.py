"""Where a league's games run: the contract every back end keeps.

The executor interface
======================

Every back end (:class:`~harness.run.local.InlineExecutor` and
:class:`~harness.run.local.ProcessExecutor`, and the Dask back end in :mod:`harness.run.dask`)
implements :class:`Executor`::

    class Executor(Protocol):
        @property
        def workers(self) -> int: ...            # games it can play at once (for display)
        def run(self, specs: Iterable[GameSpec]) -> Generator[GameRecord, None, None]: ...
        def close(self) -> None: ...             # release workers; safe to call twice
        def __enter__(self) -> Self: ...         # ``with executor:`` closes on the way out
        def __exit__(self, *exc) -> None: ...

The contract of ``run``:

* it yields **exactly one** :class:`~harness.records.GameRecord` per spec, in *completion*
  order (any order; the caller matches records to specs by ``game_id``);
* it never loses a game: a game that cannot be played (its worker died too often, it hung past
  the watchdog) still yields a record, a *void* one (:func:`void_record`: termination ``crash``
  or ``timeout``, no offender, no winner, the reason in ``reason``) that the results store keeps
  and the ratings skip;
* it never yields a game twice, even when a game was re-run after a worker died;
* the caller may stop iterating at any time (``KeyboardInterrupt``, ``break``, an error while
  storing): closing the generator or the executor cancels the games still running, and their
  results are discarded, so the caller stores only what it received.

Records are plain picklable dataclasses, so a back end may play the games anywhere; worker
processes send them packed (:class:`harness.records.PackedRecord`). How a game is played is
:func:`harness.match.referee.play_game`; back ends take it as the ``play`` argument so tests can
substitute a misbehaving player. How long a game may run before a watchdog stops it is one rule
for every back end: :class:`Deadlines`.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Generator, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Protocol, Self

from harness.records import GameRecord, GameSpec, Limits, PackedRecord, Termination

PlayFn = Callable[[GameSpec], GameRecord]
DeadlineFn = Callable[[GameSpec], float]

GRACE_SECONDS = 60.0  # added to a game's worst-case bot time before the watchdog steps in


class Executor(Protocol):
    """GameSpecs in, GameRecords out (see the module docstring for the contract)."""

    @property
    def workers(self) -> int: ...

    def run(self, specs: Iterable[GameSpec]) -> Generator[GameRecord, None, None]: ...

    def records(self, specs: Iterable[GameSpec]
                ) -> Generator[GameRecord | PackedRecord, None, None]:
        """:meth:`run`, each record in whichever form the executor has it (a worker process's
        packed record is stored as it is); what a league stores from."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...


class DefaultPlay:
    """The referee, with bot logs written under ``log_dir`` and the folders ``hide`` names
    hidden from sandboxed bots (the results folder played into)."""

    def __init__(self, log_dir: Path | None = None, hide: Sequence[Path] = ()) -> None:
        self.log_dir = log_dir
        self.hide = tuple(hide)

    def prepare(self) -> None:
        """In the process that will play, before its first game's bots are made ahead of it
        (:mod:`harness.bots.spares`): hide the outputs now, so those bots come from a start-up
        server that hides them already, not one replaced at that game."""
        from harness.match.referee import hide_outputs

        hide_outputs(self.log_dir, self.hide, make=False)

    def before_fork(self) -> None:
        """In a league's own process, just before it forks a worker: that worker takes over
        the start-up server this process has, if any (started for the league's isolation probe
        and preflight: :func:`harness.bots.sandbox.offer_starter`). Called by a pool that ends
        with its run only: a persistent pool's process plays games of its own meanwhile."""
        sandbox = sys.modules.get("harness.bots.sandbox")
        if sandbox is not None:
            sandbox.offer_starter()

    def __call__(self, spec: GameSpec) -> GameRecord:
        from harness.match.referee import play_game

        return play_game(spec, log_dir=self.log_dir, hide=self.hide)


def default_play(log_dir: Path | None = None, hide: Sequence[Path] = ()) -> PlayFn:
    """The referee, with bot logs written under ``log_dir`` and the folders ``hide`` names
    hidden from sandboxed bots (the results folder played into): a :class:`DefaultPlay`."""
    return DefaultPlay(log_dir, hide)


def void_record(spec: GameSpec, termination: Termination, reason: str,
                duration: float = 0.0) -> GameRecord:
    """The record of a game the harness could not finish: no winner, no bot to blame."""
    from games import registry

    players = len(spec.seats)
    try:
        info = registry.get(spec.game).info
        rules_version, teams = info.rules_version, list(info.teams_of(players))
    except Exception:  # an unknown game cannot have been scheduled, but never lose the record
        rules_version, teams = "", list(range(players))
    return GameRecord(
        game_id=spec.game_id, game=spec.game, variant=dict(spec.variant),
        rules_version=rules_version, seed=spec.seed, seats=[b.name for b in spec.seats],
        returns=[0.0] * players, scores=[0.0] * players, winners=[], termination=termination,
        reason=reason, decisions=0, duration=duration, think_time=[0.0] * players,
        pair_id=spec.pair_id, league=spec.league, offender=None, finished_at=time.time(),
        teams=teams,
    )


def safe_play(play: PlayFn, spec: GameSpec) -> GameRecord:
    """``play(spec)``, turning an exception of the harness itself into a void record."""
    t0 = time.perf_counter()
    try:
        return play(spec)
    except Exception as exc:
        tail = traceback.format_exception_only(exc)[-1].strip()
        return void_record(spec, Termination.CRASH, f"the referee raised {tail}",
                           time.perf_counter() - t0)


def game_deadline(spec: GameSpec) -> float:
    """Seconds a game may take before the watchdog kills it: every bot's worst case plus grace.

    Per seat: start-up time, the overage bank and ``move_time`` for each of the game's maximum
    number of decisions (shared by the seats).
    """
    from games import registry

    try:
        max_decisions = registry.get(spec.game).info.max_decisions
    except Exception:
        max_decisions = 1000
    limits = [spec.limits_of(seat) for seat in range(len(spec.seats))] or [spec.limits]
    return (sum(lim.startup_time + lim.overage for lim in limits)
            + max_decisions * max(lim.move_time for lim in limits) + GRACE_SECONDS)


class Deadlines:
    """The watchdog's limit per game, the one rule every back end applies: ``deadline`` None
    gives :func:`game_deadline` (cached per game, seat count and limits), a number is a fixed
    limit, a function is asked per game (tests)."""

    def __init__(self, deadline: DeadlineFn | float | None = None) -> None:
        self._deadline = deadline
        self._cache: dict[tuple[str, int, Limits, tuple[Limits, ...]], float] = {}

    def __call__(self, spec: GameSpec) -> float:
        if self._deadline is None:
            key = (spec.game, len(spec.seats), spec.limits, spec.seat_limits)
            if key not in self._cache:
                self._cache[key] = game_deadline(spec)
            return self._cache[key]
        if callable(self._deadline):
            return self._deadline(spec)
        return float(self._deadline)
