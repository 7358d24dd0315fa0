"""The referee: plays one game between bots and judges how it ended.

The referee alone holds the true state. At every decision it asks the seat whose decision it is
(``state.current_player``, which may be out of turn), gives it only its own observation and the
legal actions, checks the answer, applies it and records it with its think time. Whatever the
bots do, :func:`play_game` returns a :class:`GameRecord` with a typed termination: a bot that
crashes, times out, breaks the protocol or answers an illegal action forfeits and the reason
says exactly what happened. A forfeit ends the game, whatever the number of players: the
offender's side (its whole team in a team game) ranks last and every other side shares the first
rank, so by the ranking formula ``(sides below - sides above) / (sides - 1)`` the offender scores
-1 and every other seat +1 with two sides, +0.5 in a three-player free-for-all.

>>> from harness.records import BotRef, GameSpec
>>> spec = GameSpec("demo", "battleline", {}, 7, (BotRef("a", "random"), BotRef("b", "random")))
>>> record = play_game(spec)
>>> record.termination.value, len(record.moves) == record.decisions
('normal', True)
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games import registry
from games.protocol import JSON, GameError, GameInfo, State, winners
from harness.bots import open_agent
from harness.bots.inprocess import InProcessAgent, calling, capture_logs
from harness.bots.protocol import (
    PROTOCOL_VERSION,
    Agent,
    AgentCrash,
    AgentError,
    AgentProtocolError,
    AgentTimeout,
    clean,
)
from harness.bots.spec import BotSpec, BotSpecError, parse_spec
from harness.match.observation import LazyObservation
from harness.records import GameRecord, GameSpec, Limits, MoveRecord, Termination

MoveHook = Callable[[State, MoveRecord], None]

_FORFEITS: dict[type[AgentError], Termination] = {
    AgentCrash: Termination.CRASH,
    AgentTimeout: Termination.TIMEOUT,
    AgentProtocolError: Termination.PROTOCOL,
}


def forfeit_kind(exc: AgentError) -> Termination:
    """How a game ends when a bot fails with ``exc``."""
    return _FORFEITS[type(exc)]


def forfeit_returns(teams: Sequence[int], offender: int) -> list[float]:
    """Every seat's return when ``offender`` forfeits: its side -1, every other side shares
    first place (1 with one other side)."""
    shared_first = 1.0 / (len(set(teams)) - 1)  # the offender's side alone ranks below
    return [-1.0 if teams[s] == teams[offender] else shared_first for s in range(len(teams))]


def end_message(seat: int, returns: Sequence[float], scores: Sequence[float],
                termination: Termination, reason: str, offender: int | None,
                decisions: int) -> JSON:
    """The result a bot in ``seat`` is told at the end of a game (``end``)."""
    return {"seat": seat, "returns": list(returns), "scores": list(scores),
            "winners": winners(returns), "termination": termination.value, "reason": reason,
            "offender": offender, "decisions": decisions}


@dataclass
class _Forfeit:
    seat: int
    termination: Termination
    reason: str


@dataclass
class _Table:
    """The seats of one game: agents, their clocks and their think time."""

    names: list[str]
    limits: list[Limits]  # per seat
    agents: list[Agent | None] = field(default_factory=list)
    bank: list[float] = field(default_factory=list)
    think: list[float] = field(default_factory=list)

    def who(self, seat: int) -> str:
        return f"seat {seat} ({self.names[seat]})"


def bot_seed(seed: int, seat: int) -> int:
    """The seed a bot gets for its own randomness: reproducible, but reveals nothing of the deal.

    A one-way hash of the deal seed and the seat, so a bot cannot rebuild the deal from it; in a
    league the deal seed is itself a keyed hash of the league's secret key
    (:mod:`harness.league.schedule`), so a bot cannot compute it either. Bots get no game id (a
    computable id would let a bot check a guessed league seed).
    """
    digest = hashlib.sha256(f"tourney-bot:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def start_info(spec: GameSpec, variant: dict[str, str], seat: int, players: int,
               rules_version: str) -> JSON:
    """What a bot's ``start(info)`` receives (``docs/protocol.md``): the game, its variant, the
    bot's seat, its own random seed, and its time limits."""
    return {
        "game": spec.game,
        "variant": variant,
        "seat": seat,
        "num_players": players,
        "rules_version": rules_version,
        "rng_seed": bot_seed(spec.seed, seat),
        "limits": {"move_time": spec.limits_of(seat).move_time,
                   "overage": spec.limits_of(seat).overage},
        "protocol": PROTOCOL_VERSION,
    }


def play_game(
    spec: GameSpec, *, log_dir: Path | None = None, on_move: MoveHook | None = None,
    hide: Sequence[Path] = (),
) -> GameRecord:
    """Play the game ``spec`` describes and return its record (see the module docstring).

    ``log_dir``: where each seat's captured output is written, as ``<game_id>.seat<i>.log``.
    ``hide``: folders sandboxed bots must not see besides ``log_dir`` (the results folder the
    game is played into, whose configuration holds the league's key).
    ``on_move``: called after every applied move (``tourney play --show`` draws the board).
    Raises only for a spec that cannot be played at all, the caller's mistake rather than a
    bot's: ``games.registry.UnknownGame`` for an unknown game, ``ValueError`` for a bad variant
    or the wrong number of seats.
    """
    started = time.perf_counter()
    try:
        game, variant = registry.choose(spec.game, spec.variant)
    except registry.UnknownGame:
        raise
    except GameError as exc:
        raise ValueError(str(exc)) from None
    info = game.info
    state = game.new_game(spec.seed, **variant)
    n = state.num_players
    if len(spec.seats) != n:
        raise ValueError(
            f"{info.name} {variant} is played by {n} bots, the spec has {len(spec.seats)}"
        )
    seat_limits = [spec.limits_of(seat) for seat in range(len(spec.seats))]
    table = _Table([ref.name for ref in spec.seats], seat_limits, [None] * n,
                   [lim.overage for lim in seat_limits], [0.0] * n)
    moves: list[MoveRecord] = []
    forfeit: _Forfeit | None = None
    try:
        with capture_logs():  # an in-process bot's log records go to its seat's log
            forfeit = _seat_bots(spec, table, variant, n, info.rules_version, log_dir, hide)
            if forfeit is None:
                forfeit = _play(state, table, moves, info.max_decisions, on_move)
            if forfeit is None:  # a limit of a bot's whole tree passed on its last turn
                forfeit = _suspend_all(table, range(n), final=True)
            record = _record(spec, state, table, moves, forfeit, variant, info, started)
            _tell_the_end(table, record)
    finally:
        for agent in table.agents:
            if agent is not None:
                agent.close()
    record.logs = [agent.logs() if agent is not None else "" for agent in table.agents]
    record.duration = time.perf_counter() - started
    if log_dir is not None:
        write_logs(log_dir, record)
    return record


def hide_outputs(log_dir: Path | None, hide: Sequence[Path], make: bool = True) -> None:
    """Bots see neither the logs folder (made here unless ``make`` is false) nor the folders the
    caller names (the league's results folder, whose configuration holds the key the deals
    derive from). Done at each game with a sandboxed bot, and before any game by
    :meth:`harness.run.base.DefaultPlay.prepare`."""
    from harness.bots.sandbox import hide_from_bots

    if log_dir is not None:
        if make:
            log_dir.mkdir(parents=True, exist_ok=True)
        hide_from_bots(log_dir)
    for folder in hide:
        hide_from_bots(folder)


_BUILTIN_SOURCES: dict[str, BotSpec] = {}


def _source(spec: str) -> BotSpec:
    """The parsed spec; a built-in's (which names no user file) is parsed once per process."""
    source = _BUILTIN_SOURCES.get(spec)
    if source is None:
        source = parse_spec(spec)
        if source.builtin:
            _BUILTIN_SOURCES[spec] = source
    return source


def _seat_bots(
    spec: GameSpec, table: _Table, variant: dict[str, str], n: int, rules_version: str,
    log_dir: Path | None, hide: Sequence[Path] = (),
) -> _Forfeit | None:
    """Load and start every bot; the first seat that fails forfeits."""
    sources: list[BotSpec] = []
    for seat, ref in enumerate(spec.seats):
        try:
            sources.append(_source(ref.spec))
        except BotSpecError as exc:
            return _Forfeit(seat, Termination.CRASH, f"{table.who(seat)} could not load: {exc}")
    if any(source.sandboxed for source in sources):
        from harness.bots.sandbox import harden_referee

        harden_referee()
        hide_outputs(log_dir, hide)
    for seat, source in enumerate(sources):
        try:
            table.agents[seat] = open_agent(source, table.limits[seat])
        except AgentError as exc:
            return _Forfeit(seat, forfeit_kind(exc), f"{table.who(seat)} {exc.reason}")
    for seat, agent in enumerate(table.agents):
        assert agent is not None
        info = start_info(spec, variant, seat, n, rules_version)
        try:
            agent.start(info, table.limits[seat].startup_time)
        except AgentError as exc:
            return _Forfeit(seat, forfeit_kind(exc), f"{table.who(seat)} {exc.reason}")
    return None


def _in_process_act(agent: InProcessAgent) -> Callable[[Any, list[str]], object] | None:
    """The bot's own ``act`` for a trusted in-process agent (called without the wrapper)."""
    if type(agent) is not InProcessAgent or agent.bot is None:
        return None
    act: Callable[[Any, list[str]], object] = agent.bot.act
    return act


def _play(
    state: State, table: _Table, moves: list[MoveRecord], cap: int, on_move: MoveHook | None
) -> _Forfeit | None:
    """Ask, check and apply until the game ends or a bot forfeits.

    Trusted in-process bots are called directly with a :class:`LazyObservation` (their log
    records going to their own log, as :meth:`InProcessAgent.act` would send them); every other
    agent gets the full observation dict through :meth:`Agent.act` (sandboxed bots get it as
    JSON on the wire).
    """
    move_times = [lim.move_time for lim in table.limits]
    agents = table.agents
    direct = [_in_process_act(agent) if isinstance(agent, InProcessAgent) else None
              for agent in agents]
    tails = [agent.log_tail if isinstance(agent, InProcessAgent) else None for agent in agents]
    calls = calling()
    bank, think_total = table.bank, table.think
    clock = time.perf_counter
    # bound once: the loop runs ~100 times a game and each lookup costs as much as a check
    legal_actions, apply, is_terminal, record = state.legal_actions, state.apply, \
        state.is_terminal, moves.append
    boxed = [seat for seat, agent in enumerate(agents) if hasattr(agent, "suspend")]
    running: int | None = None  # the sandboxed seat not stopped (the last one asked)
    while (decision := len(state.history)) < cap and not is_terminal():
        seat = state.current_player
        legal = legal_actions()
        if running is not None and running != seat:  # the opponent's turn is not its time
            forfeit = _suspend_all(table, (running,))
            if forfeit is not None:
                return forfeit
            running = None
        if seat in boxed:
            running = seat
        act = direct[seat]
        if act is not None:
            calls.tail = tails[seat]
            t0 = clock()
            try:
                answer = act(LazyObservation(state, seat, decision), legal)
            except Exception as exc:  # the bot's own code raised: judged as the loader does
                think_total[seat] += clock() - t0
                return _Forfeit(seat, Termination.CRASH,
                                f"{table.who(seat)} {_act_raised(exc).reason}")
            finally:
                calls.tail = None
        else:
            agent = agents[seat]
            assert agent is not None
            observation = state.observation(seat)
            t0 = clock()
            try:
                answer = agent.act(observation, legal, move_times[seat] + bank[seat])
            except AgentError as exc:
                think_total[seat] += clock() - t0
                return _Forfeit(seat, forfeit_kind(exc), f"{table.who(seat)} {exc.reason}")
        think = clock() - t0
        think_total[seat] += think
        if think > move_times[seat]:
            bank[seat] = max(0.0, bank[seat] - (think - move_times[seat]))
        if not isinstance(answer, str):
            shown = _shown(answer)
            return _Forfeit(seat, Termination.PROTOCOL,
                            f"{table.who(seat)} answered {shown} ({type(answer).__name__}), "
                            "not an action string")
        if answer not in legal:
            shown = repr(answer) if len(answer) <= 80 else repr(answer[:80]) + "..."
            return _Forfeit(seat, Termination.ILLEGAL,
                            f"{table.who(seat)} played {shown}: {_why_illegal(state, answer)}")
        apply(answer)
        move = MoveRecord(len(moves), seat, answer, think)
        record(move)
        if on_move is not None:
            on_move(state, move)
    return None


def _shown(answer: object) -> str:
    """A bot's non-string answer, shown short (safely: it may be nested very deeply)."""
    try:
        return clean(repr(answer)[:80])
    except RecursionError:
        return f"a {type(answer).__name__} nested too deeply to show"


def _suspend_all(table: _Table, seats: Iterable[int], final: bool = False) -> _Forfeit | None:
    """Stop the sandboxed bots of ``seats`` between turns (``final``: at the end, checking
    every limit); the first whose whole process tree passed a limit (memory, CPU) forfeits."""
    for seat in seats:
        suspend = getattr(table.agents[seat], "final_check" if final else "suspend", None)
        if suspend is None:
            continue
        try:
            suspend()
        except AgentError as exc:
            return _Forfeit(seat, forfeit_kind(exc), f"{table.who(seat)} {exc.reason}")
    return None


def _act_raised(exc: Exception) -> AgentCrash:
    """The crash an in-process bot's raising ``act`` is judged as (as the loader words it)."""
    return AgentCrash(f"act raised {type(exc).__name__}: {exc}")


def _why_illegal(state: State, action: str) -> str:
    """The rules' own explanation of why ``action`` is not legal now."""
    try:
        state.clone().apply(action)
    except GameError as exc:
        return str(exc) or type(exc).__name__
    return "not among the legal actions"


def _record(
    spec: GameSpec,
    state: State,
    table: _Table,
    moves: list[MoveRecord],
    forfeit: _Forfeit | None,
    variant: dict[str, str],
    info: GameInfo,
    started: float,
) -> GameRecord:
    offender: int | None = None
    teams = info.teams_of(state.num_players)
    if forfeit is not None:
        offender = forfeit.seat
        returns = forfeit_returns(teams, offender)
        termination, reason = forfeit.termination, forfeit.reason
    else:
        ended = state.end()
        returns = [float(r) for r in state.returns()]
        if ended is None:  # the referee's own cap (the game should have ended itself)
            termination = Termination.MOVE_CAP
            reason = f"decision cap of {info.max_decisions} reached: draw by adjudication"
            returns = [0.0] * state.num_players
        else:
            termination, reason = Termination(ended[0].value), ended[1]
    return GameRecord(
        game_id=spec.game_id,
        game=spec.game,
        variant=variant,
        rules_version=info.rules_version,
        seed=spec.seed,
        seats=list(table.names),
        returns=returns,
        scores=[float(s) for s in state.scores()],
        winners=winners(returns),
        termination=termination,
        reason=reason,
        decisions=len(state.history),
        duration=time.perf_counter() - started,
        think_time=list(table.think),
        moves=moves,
        pair_id=spec.pair_id,
        league=spec.league,
        offender=offender,
        finished_at=time.time(),
        teams=list(teams),
    )


def _tell_the_end(table: _Table, record: GameRecord) -> None:
    """Send every started bot the result (best effort: the game is already decided)."""
    grace = min(1.0, min(lim.move_time for lim in table.limits))
    for seat, agent in enumerate(table.agents):
        if agent is None or seat == record.offender:
            continue
        try:
            agent.end(end_message(seat, record.returns, record.scores, record.termination,
                                  record.reason, record.offender, record.decisions), grace)
        except AgentError:
            continue


def write_logs(log_dir: Path, record: GameRecord) -> None:
    """Each seat's captured output as ``<game_id>.seat<i>.log`` under ``log_dir``: the one log
    writer (the referee calls it when given a folder; the Dask back end for records that come
    back from its workers)."""
    for seat, text in enumerate(record.logs):
        if text:
            log_dir.mkdir(parents=True, exist_ok=True)
            (log_dir / f"{record.game_id or 'game'}.seat{seat}.log").write_text(text)
