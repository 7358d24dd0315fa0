"""Is a bot fit to enter? Its start-up in the sandbox, what it may read and write, and games
against random in every seat: what ``tourney validate`` prints and a living league's entry check
(:mod:`harness.arena`) runs.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.records import BotRef, GameSpec, Limits

if TYPE_CHECKING:
    from games.protocol import Game


@dataclass
class Validation:
    """The outcome of ``tourney validate``: report lines and whether the bot passed."""

    lines: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    timeouts: int = 0  # games the bot lost on time
    slowest: float = 0.0  # its slowest answer in those games, in seconds (0: none in time)
    stopped_early: bool = False  # the games left were not played: they would time out too
    hint: str = ""  # after games lost on time: the move time the bot would need, as an option

    @property
    def passed(self) -> bool:
        return not self.failures

    def say(self, line: str) -> None:
        self.lines.append(line)

    def problem(self, line: str) -> None:
        self.lines.append(f"FAIL {line}")
        self.failures.append(line)


def check_startup_report(spec: str, game: Game, variant: dict[str, str], limits: Limits,
                   report: Validation) -> None:
    """Launch the bot once in the sandbox and time its start-up."""
    from harness.match.startup import check_startup

    started = check_startup(spec, game, variant, limits)
    if not started.ok:
        report.problem(f"start-up: {started.reason}")
        return
    box = started.sandbox
    where = (f"uid {box.get('uid', '?')}, network {'off' if box.get('network') else 'on'}, "
             f"own PID namespace {'yes' if box.get('pid_namespace') else 'no'}, "
             f"file system {box.get('filesystem', '?')}")
    report.say(f"ok   start-up in {started.seconds:.2f} s (limit {limits.startup_time:g} s; "
               f"answered start in {started.answered:.2f} s; sandbox: {where})")
    report.say(f"     isolation in force: {isolation_line(limits)}")
    for line in missing_lines():
        report.say(f"     {line}")
    _report_access(spec, box, limits, report)


def _report_access(spec: str, box: dict[str, Any], limits: Limits, report: Validation) -> None:
    """What the bot may read and write, as its runner reported its confinement (``box``)."""
    from harness.bots.isolation import access
    from harness.bots.sandbox import FILE_SIZE_LIMIT
    from harness.bots.spec import parse_spec

    reads, writes = access(parse_spec(spec), box, limits.scratch_bytes, FILE_SIZE_LIMIT)
    report.say(f"     may read: {reads}")
    report.say(f"     may write: {writes}")


def isolation_line(limits: Limits) -> str:
    """What confines sandboxed bots here (harness.bots.isolation), with the per-bot limits."""
    from harness.bots import isolation, sandbox

    state = sandbox.report()
    if state["cgroups"]:
        per = (f"per bot: {limits.memory_bytes >> 20} MB, {limits.max_processes} processes, "
               f"{limits.cpu_seconds} s CPU")
    else:  # rlimits bound each process alone: say so rather than claim a per-bot limit
        per = (f"per process only, not per bot: {limits.memory_bytes >> 20} MB of address space "
               f"and {limits.cpu_seconds} s CPU each")
        per += (f"; per bot: {limits.max_processes} processes (counted in its own user namespace)"
                if state.get("processes_per_bot") else ", no count of processes")
    return f"{isolation.describe(state)}; {per}, {limits.scratch_bytes >> 20} MB scratch /tmp"


def missing_lines() -> list[str]:
    """One line per protection not in force here, with how to get it."""
    from harness.bots import isolation, sandbox

    return [f"NOT in force: {what} ({how})"
            for what, how in isolation.missing_with_fixes(sandbox.report())]


def unguessable_seed() -> int:
    """A deal seed no bot can find by search: 62 random bits. A bot gets only a one-way hash of
    the deal seed (its ``rng_seed``), which it could invert for a small seed by trying them all,
    and then deal the game itself; a seed you choose (``--seed 7``) is as guessable as it is
    small."""
    return secrets.randbits(62)


#: Games lost on time after which the check stops: the games left would be lost the same way.
TIMEOUTS_TO_STOP = 2


def validate(boxed: str, label: str, game: Game, variant: dict[str, str], games_per_seat: int,
             limits: Limits, seed: int, name: str | None = None) -> Validation:
    """Check a bot (``boxed``: its spec as the sandbox runs it) is fit to enter: it starts in
    time, and plays legal moves in time against random in every seat. ``name``: what the
    lines call the bot (default ``label``). After :data:`TIMEOUTS_TO_STOP` games lost on time
    the check stops, with the slowest answer (:attr:`Validation.slowest`)."""
    report = Validation()
    report.say(f"validating {label} on {game.info.name} {variant} "
               f"(move time {limits.move_time:g} s, overage {limits.overage:g} s)")
    check_startup_report(boxed, game, variant, limits, report)
    if not report.passed:
        return report
    players = game.new_game(seed, **variant).num_players
    games = [(seat, k) for seat in range(players) for k in range(games_per_seat)]
    for done, (seat, k) in enumerate(games):
        _validation_game(boxed, name or label, game, variant, limits, seed, seat, k, report)
        if report.timeouts >= TIMEOUTS_TO_STOP and done + 1 < len(games):
            report.stopped_early = True
            slowest = (f"its slowest answer took {report.slowest:.2f} s" if report.slowest
                       else "it answered no decision in time")
            report.problem(f"stopped after {report.timeouts} games lost on time, "
                           f"{len(games) - done - 1} not played: {slowest}, against a move "
                           f"time of {limits.move_time:g} s (and {limits.overage:g} s of "
                           f"overage a game)")
            break
    report.hint = raise_hint(report, limits.move_time)
    return report


def raise_hint(report: Validation, move_time: float) -> str:
    """After games lost on time: the move time the bot's slowest answer needs, as an option.

    >>> raise_hint(Validation(timeouts=2, slowest=2.0), 1.0)
    'if the bot needs that long, raise the limit: --move-time 2.5 (its slowest answer: 2.00 s)'
    """
    if not report.timeouts:
        return ""
    if not report.slowest:
        return (f"it answered no decision within {move_time:g} s: look for a loop or a slow "
                f"start in its log, or raise the limit (--move-time)")
    needed = max(math.ceil(report.slowest * 1.25 * 10) / 10, move_time)
    return (f"if the bot needs that long, raise the limit: --move-time {needed:g} (its slowest "
            f"answer: {report.slowest:.2f} s)")


def _validation_game(boxed: str, name: str, game: Game, variant: dict[str, str],
                     limits: Limits, seed: int, seat: int, k: int, report: Validation) -> None:
    """Play game ``k`` of the check with the bot in ``seat`` against random, and report it."""
    from harness.match.referee import play_game
    from harness.records import Termination

    players = game.new_game(seed, **variant).num_players
    refs = tuple(BotRef(name, boxed) if s == seat else
                 BotRef(f"random{s}" if f"random{s}" != name else f"opponent{s}", "random")
                 for s in range(players))
    game_seed = seed + 1000 * seat + k
    record = play_game(GameSpec(f"validate-{seat}-{k}", game.info.name, variant, game_seed,
                                refs, limits=limits))
    think = [m.think_time for m in record.moves if m.seat == seat]
    slowest = max(think, default=0.0)
    line = (f"seat {seat} game {k + 1} (seed {game_seed}): {record.decisions} decisions, "
            f"slowest answer {slowest * 1000:.1f} ms")
    if record.offender is not None and record.offender == seat:
        report.problem(f"{line}; {record.termination.value}: {record.reason}")
        if record.logs[seat]:
            report.say("     bot output (tail): " + record.logs[seat][-300:].strip())
        if record.termination is Termination.TIMEOUT:
            report.timeouts += 1
            report.slowest = max(report.slowest, slowest)
    elif record.termination.is_forfeit:
        report.problem(f"{line}; the opponent forfeited unexpectedly: {record.reason}")
    else:
        outcome = outcome_in_words(record.returns, seat)
        report.say(f"ok   {line}; {outcome} ({record.termination.value})")


def outcome_in_words(returns: list[float], seat: int) -> str:
    """How a finished game went for ``seat``: won, lost, a draw (every seat level), or, between
    the two with three seats, its score on the scale from 1 (first) to -1 (last).

    >>> outcome_in_words([0.5, 1.0, -1.0], 0), outcome_in_words([0.0, 0.0], 1)
    ('placed between first and last (score +0.5)', 'draw')
    """
    score = returns[seat]
    if all(r == score for r in returns):
        return "draw"
    if score in (1.0, -1.0):
        return "won" if score > 0 else "lost"
    return f"placed between first and last (score {score:+g})"
