"""The referee: plays one game between bots and judges how it ended.

The referee alone holds the true state. At every decision it asks the seat whose decision it is
(``state.current_player``, which may be out of turn), gives it only its own observation and the
legal actions, checks the answer, applies it and records it with its think time. Whatever the
bots do, :func:`play_game` returns a :class:`GameRecord` with a typed termination: a bot that
crashes, times out, breaks the protocol or answers an illegal action forfeits (it scores -1,
everyone else +1; in a team game its whole team loses) and the reason says exactly what happened.

>>> from harness.records import BotRef, GameSpec
>>> spec = GameSpec("demo", "battleline", {}, 7, (BotRef("a", "random"), BotRef("b", "random")))
>>> record = play_game(spec)
>>> record.termination.value, len(record.moves) == record.decisions
('normal', True)
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games import registry
from games.protocol import JSON, GameError, State, winners
from harness.loader import BotSource, BotSpecError, InProcessAgent, open_agent, parse_spec
from harness.protocol import (
    PROTOCOL_VERSION,
    Agent,
    AgentCrash,
    AgentError,
    AgentProtocolError,
    AgentTimeout,
    clean,
)
from harness.records import GameRecord, GameSpec, Limits, MoveRecord, Termination

MoveHook = Callable[[State, MoveRecord], None]

_FORFEITS: dict[type[AgentError], Termination] = {
    AgentCrash: Termination.CRASH,
    AgentTimeout: Termination.TIMEOUT,
    AgentProtocolError: Termination.PROTOCOL,
}


@dataclass
class _Forfeit:
    seat: int
    termination: Termination
    reason: str


@dataclass
class _Table:
    """The seats of one game: agents, their clocks and their think time."""

    names: list[str]
    limits: Limits
    agents: list[Agent | None] = field(default_factory=list)
    bank: list[float] = field(default_factory=list)
    think: list[float] = field(default_factory=list)

    def who(self, seat: int) -> str:
        return f"seat {seat} ({self.names[seat]})"


def bot_seed(seed: int, seat: int) -> int:
    """The seed a bot gets for its own randomness: reproducible, but reveals nothing of the deal.

    A one-way hash of the deal seed and the seat, so a bot cannot rebuild the deal from it; in a
    league the deal seed is itself a keyed hash of the league's secret key
    (:mod:`harness.schedule`), so a bot cannot compute it either. Bots get no game id (a
    computable id would let a bot check a guessed league seed).
    """
    digest = hashlib.sha256(f"tourney-bot:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def play_game(
    spec: GameSpec, *, log_dir: Path | None = None, on_move: MoveHook | None = None
) -> GameRecord:
    """Play the game ``spec`` describes and return its record (see the module docstring).

    ``log_dir``: where each seat's captured output is written, as ``<game_id>.seat<i>.log``.
    ``on_move``: called after every applied move (``tourney play --show`` draws the board).
    Raises only for a spec that cannot be played at all, the caller's mistake rather than a
    bot's: ``games.registry.UnknownGame`` for an unknown game, ``ValueError`` for a bad variant
    or the wrong number of seats.
    """
    started = time.perf_counter()
    game, preset = registry.resolve(spec.game)
    info = game.info
    try:
        variant = info.resolve_variant({**preset, **spec.variant})
    except GameError as exc:
        raise ValueError(str(exc)) from None
    state = game.new_game(spec.seed, **variant)
    n = state.num_players
    if len(spec.seats) != n:
        raise ValueError(
            f"{info.name} {variant} is played by {n} bots, the spec has {len(spec.seats)}"
        )
    table = _Table([ref.name for ref in spec.seats], spec.limits, [None] * n,
                   [spec.limits.overage] * n, [0.0] * n)
    moves: list[MoveRecord] = []
    forfeit: _Forfeit | None = None
    try:
        forfeit = _seat_bots(spec, table, variant, n, info.rules_version, log_dir)
        if forfeit is None:
            forfeit = _play(state, table, moves, info.max_decisions, on_move)
        if forfeit is None:  # a limit of a bot's whole tree passed on its last turn
            forfeit = _suspend_all(table, range(n), final=True)
        record = _record(spec, state, table, moves, forfeit, variant, info.rules_version,
                         info.max_decisions, started)
        _tell_the_end(table, record)
    finally:
        for agent in table.agents:
            if agent is not None:
                agent.close()
    record.logs = [agent.logs() if agent is not None else "" for agent in table.agents]
    record.duration = time.perf_counter() - started
    if log_dir is not None:
        _write_logs(log_dir, spec.game_id, record.logs)
    return record


def _hide_outputs(log_dir: Path) -> None:
    """Bots see neither the logs folder nor, when it lies in one, the league's results folder
    (whose league.json holds the seed the deals derive from)."""
    from harness.sandbox import hide_from_bots

    log_dir.mkdir(parents=True, exist_ok=True)
    hide_from_bots(log_dir)
    if (log_dir.parent / "league.json").exists():
        hide_from_bots(log_dir.parent)


_BUILTIN_SOURCES: dict[str, BotSource] = {}


def _source(spec: str) -> BotSource:
    """The parsed spec; a built-in's (which names no user file) is parsed once per process."""
    source = _BUILTIN_SOURCES.get(spec)
    if source is None:
        source = parse_spec(spec)
        if source.builtin:
            _BUILTIN_SOURCES[spec] = source
    return source


def _seat_bots(
    spec: GameSpec, table: _Table, variant: dict[str, str], n: int, rules_version: str,
    log_dir: Path | None,
) -> _Forfeit | None:
    """Load and start every bot; the first seat that fails forfeits."""
    sources: list[BotSource] = []
    for seat, ref in enumerate(spec.seats):
        try:
            sources.append(_source(ref.spec))
        except BotSpecError as exc:
            return _Forfeit(seat, Termination.CRASH, f"{table.who(seat)} could not load: {exc}")
    if any(source.sandboxed for source in sources):
        from harness.sandbox import harden_referee

        harden_referee()
        if log_dir is not None:
            _hide_outputs(log_dir)
    for seat, source in enumerate(sources):
        try:
            table.agents[seat] = open_agent(source, spec.limits)
        except AgentError as exc:
            return _Forfeit(seat, _FORFEITS[type(exc)], f"{table.who(seat)} {exc.reason}")
    for seat, agent in enumerate(table.agents):
        assert agent is not None
        info: JSON = {
            "game": spec.game,
            "variant": variant,
            "seat": seat,
            "num_players": n,
            "rules_version": rules_version,
            "rng_seed": bot_seed(spec.seed, seat),
            "limits": {"move_time": spec.limits.move_time, "overage": spec.limits.overage},
            "protocol": PROTOCOL_VERSION,
        }
        try:
            agent.start(info, spec.limits.startup_time)
        except AgentError as exc:
            return _Forfeit(seat, _FORFEITS[type(exc)], f"{table.who(seat)} {exc.reason}")
    return None


class ObservationExpired(RuntimeError):
    """An in-process bot first read a lazy observation after its decision was over."""


class LazyObservation(Mapping[str, Any]):
    """A trusted (in-process) bot's observation, computed only if the bot reads it.

    A read-only mapping with exactly the content of ``state.observation(seat)``, which it
    computes on first access and keeps. Most built-ins (``random``) never look, so the referee
    does not pay for it. The first access must happen during the decision (before the referee
    applies the answer): a view first read later raises :class:`ObservationExpired` rather than
    showing a later position. A view read during its decision stays readable afterwards.
    ``dict(observation)`` gives a plain dict (e.g. for ``json.dumps``).
    """

    __slots__ = ("_data", "_decision", "_seat", "_state")

    def __init__(self, state: State, seat: int, decision: int) -> None:
        self._state = state
        self._seat = seat
        self._decision = decision
        self._data: JSON | None = None

    def _materialise(self) -> JSON:
        data = self._data
        if data is None:
            if len(self._state.history) != self._decision:
                raise ObservationExpired(
                    f"the observation of decision {self._decision} was first read after that "
                    "decision was over; read (or copy with dict(observation)) what you need "
                    "inside act()")
            data = self._data = self._state.observation(self._seat)
        return data

    def __getitem__(self, key: str) -> Any:
        return self._materialise()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._materialise())

    def __len__(self) -> int:
        return len(self._materialise())

    def __contains__(self, key: object) -> bool:
        return key in self._materialise()

    def get(self, key: str, default: Any = None) -> Any:
        return self._materialise().get(key, default)

    def __repr__(self) -> str:
        if self._data is None:
            return f"<LazyObservation seat={self._seat} decision={self._decision} (unread)>"
        return f"LazyObservation({self._data!r})"


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

    Trusted in-process bots are called directly with a :class:`LazyObservation`; every other
    agent gets the full observation dict through :meth:`Agent.act` (sandboxed bots get it as
    JSON on the wire).
    """
    move_time = table.limits.move_time
    agents = table.agents
    direct = [_in_process_act(agent) if isinstance(agent, InProcessAgent) else None
              for agent in agents]
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
            t0 = clock()
            try:
                answer = act(LazyObservation(state, seat, decision), legal)
            except Exception as exc:  # the bot's own code raised: judged as the loader does
                think_total[seat] += clock() - t0
                return _Forfeit(seat, Termination.CRASH,
                                f"{table.who(seat)} {_act_raised(exc).reason}")
        else:
            agent = agents[seat]
            assert agent is not None
            observation = state.observation(seat)
            t0 = clock()
            try:
                answer = agent.act(observation, legal, move_time + bank[seat])
            except AgentError as exc:
                think_total[seat] += clock() - t0
                return _Forfeit(seat, _FORFEITS[type(exc)], f"{table.who(seat)} {exc.reason}")
        think = clock() - t0
        think_total[seat] += think
        if think > move_time:
            bank[seat] = max(0.0, bank[seat] - (think - move_time))
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
            return _Forfeit(seat, _FORFEITS[type(exc)], f"{table.who(seat)} {exc.reason}")
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


def team_of(state: State) -> list[int]:
    """Team per seat: the game's optional ``teams`` (attribute or method), else one per seat."""
    teams = getattr(state, "teams", None)
    if callable(teams):
        teams = teams()
    if isinstance(teams, list | tuple) and len(teams) == state.num_players:
        return [int(t) for t in teams]
    return list(range(state.num_players))


def _record(
    spec: GameSpec,
    state: State,
    table: _Table,
    moves: list[MoveRecord],
    forfeit: _Forfeit | None,
    variant: dict[str, str],
    rules_version: str,
    cap: int,
    started: float,
) -> GameRecord:
    offender: int | None = None
    if forfeit is not None:
        teams = team_of(state)
        offender = forfeit.seat
        returns = [-1.0 if teams[s] == teams[offender] else 1.0 for s in range(state.num_players)]
        termination, reason = forfeit.termination, forfeit.reason
    else:
        ended = state.end()
        returns = [float(r) for r in state.returns()]
        if ended is None:  # the referee's own cap (the game should have ended itself)
            termination = Termination.MOVE_CAP
            reason = f"decision cap of {cap} reached: draw by adjudication"
            returns = [0.0] * state.num_players
        else:
            termination, reason = Termination(ended[0].value), ended[1]
    return GameRecord(
        game_id=spec.game_id,
        game=spec.game,
        variant=variant,
        rules_version=rules_version,
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
    )


def _tell_the_end(table: _Table, record: GameRecord) -> None:
    """Send every started bot the result (best effort: the game is already decided)."""
    grace = min(1.0, table.limits.move_time)
    for seat, agent in enumerate(table.agents):
        if agent is None or seat == record.offender:
            continue
        result: JSON = {
            "seat": seat,
            "returns": record.returns,
            "scores": record.scores,
            "winners": record.winners,
            "termination": record.termination.value,
            "reason": record.reason,
            "offender": record.offender,
            "decisions": record.decisions,
        }
        try:
            agent.end(result, grace)
        except AgentError:
            continue


def _write_logs(log_dir: Path, game_id: str, logs: list[str]) -> None:
    log_dir.mkdir(parents=True, exist_ok=True)
    for seat, text in enumerate(logs):
        if text:
            (log_dir / f"{game_id or 'game'}.seat{seat}.log").write_text(text)
