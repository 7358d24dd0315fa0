"""The conformance suite every game and variant must pass.

``check_game(game)`` plays random games and checks the protocol rules of
:mod:`games.protocol` at every step. It fails loudly: a :class:`ConformanceError` whose message
names the broken rule, the seed and the ply, never a warning.

Each rule is one named function below; :data:`EVERY_PLY` run at every ply, :data:`DEEP` (the
expensive ones: every legal action tried on a copy, replay, codecs, sampling) every few plies
and at the end. The rules, by the name a failure carries:

* ``end``, ``history``, ``returns``, ``scores``, ``terminal``, ``current``, ``legal``: the
  status of a position agrees with itself;
* ``invalid``, ``illegal``: malformed and no-longer-legal strings are refused with the right
  error and leave the state as it was;
* ``clone``: a clone is equal, and changing it leaves the original alone;
* ``clone-shares``: a clone shares no mutable object with its original (a slot a hand-written
  ``clone()`` forgot to copy);
* ``legal``/``history``: every legal action applies and is recorded;
* ``distinct``: no two legal actions of a position lead to equal positions (the same decision
  offered under two strings over-weights it for random and search bots), unless the game
  names the rule that makes them different decisions (:class:`ExplainsSameResults`);
* ``replay``, ``json``, ``pickle``, ``sample``: replay, round trips and sampling.

>>> from games.registry import get
>>> report = check_game(get("battleline"), seeds=range(2))
>>> report.games
2
"""

from __future__ import annotations

import dataclasses
import enum
import json
import pickle
import random
import types
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from games.protocol import (
    JSON,
    Game,
    GameEnd,
    IllegalAction,
    InvalidAction,
    State,
)


class ConformanceError(AssertionError):
    """A game broke a rule of the protocol."""


@dataclass
class Report:
    games: int = 0
    decisions: int = 0
    samples: int = 0


def _fail(rule: str, seed: int, ply: int, detail: str, state: State | None = None) -> None:
    board = f"\n{state}" if state is not None else ""
    raise ConformanceError(f"[{rule}] seed={seed} ply={ply}: {detail}{board}")


def _same(a: State, b: State) -> bool:
    return a.to_json() == b.to_json()


def position_of(state: State) -> JSON:
    """The position a state holds: its full JSON without the list of actions that led there
    (the history, and the public log of the latest ones that observations show as events).

    Two actions that reach equal positions are the same decision (``distinct``).
    """
    data = state.to_json()
    data.pop("history", None)
    data.pop("log", None)
    return data


# ---------------------------------------------------------------------- shared mutable objects

#: Values that cannot change, so a clone may share them with its original.
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), range, enum.Enum, type,
              types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType)


def _children(obj: object) -> Iterator[tuple[str, object]]:
    """``(path suffix, child)`` of every object ``obj`` holds directly."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield f"[{k!r}]", v
        return
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield f"[{i}]", v
        return
    if isinstance(obj, (set, frozenset)):
        for v in obj:
            yield "{...}", v
        return
    for name in attribute_names(obj):
        if hasattr(obj, name):
            yield f".{name}", getattr(obj, name)


def attribute_names(obj: object) -> list[str]:
    """The data attributes an object may hold: its ``__dict__`` and the ``__slots__`` of its
    classes, or a mypyc-compiled class's attribute list (``__mypyc_attrs__``; see
    :mod:`games.native`), which has no ``__slots__`` to read."""
    names: list[str] = list(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
        names += klass.__dict__.get("__mypyc_attrs__", ())
    return [n for n in dict.fromkeys(names) if not n.startswith("__")]


def mutable_objects(root: object, path: str = "state") -> dict[int, str]:
    """Every mutable object reachable from ``root``: ``id -> path`` (the first path found).

    Containers (list, dict, set, bytearray) and instances of ordinary classes count as
    mutable; numbers, strings, enums, functions and instances of frozen dataclasses (declared
    immutable, e.g. a board's precomputed tables shared by every game) do not. Tuples and
    frozensets are not mutable themselves but are searched, since they may hold a list.
    """
    found: dict[int, str] = {}
    seen: set[int] = set()
    stack: list[tuple[object, str]] = [(root, path)]
    while stack:
        obj, where = stack.pop()
        if isinstance(obj, _IMMUTABLE) or (
            dataclasses.is_dataclass(obj) and obj.__dataclass_params__.frozen  # type: ignore[union-attr]
        ):
            continue
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if not isinstance(obj, (tuple, frozenset)):
            found[id(obj)] = where
        stack.extend((child, where + suffix) for suffix, child in _children(obj))
    return found


def shared_mutables(original: object, copy: object) -> list[str]:
    """The paths (in ``copy``) of mutable objects that ``copy`` shares with ``original``."""
    mine = mutable_objects(original)
    return sorted(where for key, where in mutable_objects(copy).items() if key in mine)


# ---------------------------------------------------------------------- one ply, rule by rule


@dataclass
class Ply:
    """What the rules of one ply look at."""

    game: Game
    state: State
    seed: int
    ply: int
    rng: random.Random
    seen_actions: list[str]
    report: Report
    samples_per_seat: int
    before: JSON = field(default_factory=dict)  # state.to_json() when the checks began
    _successors: dict[str, State] | None = None

    @property
    def terminal(self) -> bool:
        return self.state.is_terminal()

    def fail(self, rule: str, detail: str, show: bool = True) -> None:
        _fail(rule, self.seed, self.ply, detail, self.state if show else None)

    def successors(self) -> dict[str, State]:
        """Each legal action applied to its own clone (computed once per ply)."""
        if self._successors is None:
            out: dict[str, State] = {}
            for action in self.state.legal_actions():
                probe = self.state.clone()
                try:
                    probe.apply(action)
                except Exception as exc:
                    self.fail("legal", f"legal {action!r} failed: {exc!r}")
                out[action] = probe
            self._successors = out
        return self._successors


Rule = Callable[[Ply], None]


def rule_end(p: Ply) -> None:
    """is_terminal() and end() agree; the history counts the plies."""
    ended = p.state.end()
    if p.terminal != (ended is not None):
        p.fail("end", f"is_terminal()={p.terminal} but end()={ended}")
    if len(p.state.history) != p.ply:
        p.fail("history", f"history has {len(p.state.history)} actions")


def rule_returns(p: Ply) -> None:
    """One return in [-1, 1] and one score per seat; no result before the end."""
    n = p.state.num_players
    returns = p.state.returns()
    if len(returns) != n or any(not -1.0 <= r <= 1.0 for r in returns):
        p.fail("returns", f"returns {returns} out of bounds for {n} players")
    if len(p.state.scores()) != n:
        p.fail("scores", f"scores {p.state.scores()} not one per seat")
    if not p.terminal and any(r != 0 for r in returns):
        p.fail("returns", f"returns {returns} before the end")


def rule_terminal(p: Ply) -> None:
    """An ended game has no mover and no action, and a result that matches how it ended."""
    if not p.terminal:
        return
    state = p.state
    returns = state.returns()
    ended = state.end()
    assert ended is not None
    if state.current_player != -1:
        p.fail("terminal", "current_player must be -1 once the game is over", show=False)
    if state.legal_actions():
        p.fail("terminal", "legal actions offered after the end")
    if ended[0] is not GameEnd.NORMAL and any(r != 0 for r in returns):
        p.fail("returns", f"{ended[0].value} must be a draw, returns {returns}", show=False)
    if ended[0] is GameEnd.NORMAL and all(r == returns[0] for r in returns):
        p.fail("returns", "a normal end needs a winner")
    if not isinstance(ended[1], str) or not ended[1]:
        p.fail("end", "the end needs a readable reason", show=False)


def rule_running(p: Ply) -> None:
    """A running game has a mover and a sorted, unique, non-empty list of trimmed strings."""
    if p.terminal:
        return
    state = p.state
    if not 0 <= state.current_player < state.num_players:
        p.fail("current", f"current_player {state.current_player}")
    legal = state.legal_actions()
    if not legal:
        p.fail("legal", "no legal action while the game runs")
    if legal != sorted(set(legal)):
        p.fail("legal", f"legal actions not sorted and unique: {legal}")
    if any(not isinstance(a, str) or not a or a != a.strip() for a in legal):
        p.fail("legal", f"legal actions must be non-empty trimmed strings: {legal}", show=False)


def rule_malformed_refused(p: Ply) -> None:
    """A malformed string raises InvalidAction."""
    for junk in ("", "???", "\x00"):
        try:
            p.state.apply(junk)
        except InvalidAction:
            pass
        except Exception as exc:
            p.fail("invalid", f"apply({junk!r}) raised {type(exc).__name__}: {exc}", show=False)
        else:
            p.fail("invalid", f"apply({junk!r}) was accepted")


def rule_stale_refused(p: Ply) -> None:
    """An action legal earlier but not now raises IllegalAction with a message."""
    legal_set = set(p.state.legal_actions())
    stale = [a for a in p.seen_actions[-12:] if a not in legal_set]
    for action in stale[:3]:
        try:
            p.state.apply(action)
        except IllegalAction as exc:
            if not str(exc):
                p.fail("illegal", f"IllegalAction for {action!r} has no message", show=False)
        except InvalidAction:
            p.fail("illegal", f"{action!r} parsed once, now called malformed")
        else:
            p.fail("illegal", f"illegal {action!r} was accepted")


def rule_refusals_change_nothing(p: Ply) -> None:
    """The refused actions above left the state as it was."""
    if p.state.to_json() != p.before:
        p.fail("illegal", "a rejected action changed the state")


def rule_clone_equal(p: Ply) -> None:
    """A clone is equal to its original."""
    if not _same(p.state.clone(), p.state):
        p.fail("clone", "clone differs from the original")


#: Known, reported exceptions to ``clone-shares``, by game: paths of objects that game's
#: ``clone()`` still shares (never mutated in place today, but nothing enforces it). Each entry
#: is an open defect of that game, not a permission: ``tests/test_conformance.py`` fails once
#: an entry is no longer needed, so it is deleted when the game is fixed.
def rule_clone_shares_nothing(p: Ply) -> None:
    """A clone shares no mutable object with its original."""
    shared = shared_mutables(p.state, p.state.clone())
    if shared:
        p.fail("clone-shares", "the clone shares mutable objects with its original: "
               + ", ".join(shared[:6]) + (" ..." if len(shared) > 6 else ""), show=False)


def rule_legal_actions_apply(p: Ply) -> None:
    """Every legal action applies (on a clone) and is recorded in the history."""
    if p.terminal:
        return
    for action, probe in p.successors().items():
        if len(probe.history) != p.ply + 1 or probe.history[-1] != action:
            p.fail("history", f"apply({action!r}) not recorded in history")


@runtime_checkable
class ExplainsSameResults(Protocol):
    """A state that can say why two of its legal actions are different decisions of the rules
    although they reach the same position (optional: a game without it may have no such pair).
    """

    def same_result_reason(self, a: str, b: str) -> str | None: ...


def rule_distinct_results(p: Ply) -> None:
    """No two legal actions lead to equal positions, unless the game names the rule that makes
    them different decisions (:class:`ExplainsSameResults`): one string per distinct decision.
    """
    if p.terminal:
        return
    explains = p.state if isinstance(p.state, ExplainsSameResults) else None
    seen: dict[str, list[str]] = {}
    for action, probe in p.successors().items():
        key = json.dumps(position_of(probe), sort_keys=True)
        for other in seen.setdefault(key, []):
            if explains is None or not explains.same_result_reason(other, action):
                p.fail("distinct", f"{other!r} and {action!r} lead to the same position")
        seen[key].append(action)


def rule_clone_independent(p: Ply) -> None:
    """Playing on a clone leaves the original unchanged."""
    if p.terminal:
        return
    clone = p.state.clone()
    clone.apply(p.state.legal_actions()[0])
    if p.state.to_json() != p.before:
        p.fail("clone", "changing a clone changed the original")


def rule_replay(p: Ply) -> None:
    """new_game(seed, **variant) plus the history rebuilds an equal state."""
    replay = p.game.new_game(p.state.seed, **p.state.variant)
    for a in p.state.history:
        replay.apply(a)
    if not _same(replay, p.state):
        p.fail("replay", "replaying the history gives a different state")


def _check_json(p: Ply, obj: JSON, what: str) -> None:
    try:
        text = json.dumps(obj, sort_keys=True)
    except (TypeError, ValueError) as exc:
        p.fail("json", f"{what} is not JSON-serialisable: {exc}", show=False)
        return
    if json.loads(text) != obj:
        p.fail("json", f"{what} does not survive a JSON round trip", show=False)


def rule_codecs(p: Ply) -> None:
    """JSON and pickle round trips give equal states that play on identically."""
    state = p.state
    data = state.to_json()
    _check_json(p, data, "to_json()")
    restored = p.game.state_from_json(json.loads(json.dumps(data)))
    if not _same(restored, state):
        p.fail("json", "state_from_json(to_json()) differs")
    pickled = pickle.loads(pickle.dumps(state))
    if not _same(pickled, state):
        p.fail("pickle", "pickle round trip differs")
    if not p.terminal:
        follow = p.rng.choice(state.legal_actions())
        played = [state.clone(), pickled, restored]
        for each in played:
            each.apply(follow)
        if not (_same(played[0], played[1]) and _same(played[0], played[2])):
            p.fail("pickle", f"round-tripped states diverge after {follow!r}")


def rule_observations(p: Ply) -> None:
    """Observations are JSON; a state sampled from one gives that seat the same view."""
    state = p.state
    for seat in range(state.num_players):
        obs = state.observation(seat)
        _check_json(p, obs, f"observation({seat})")
        for k in range(p.samples_per_seat):
            sampled = p.game.sample_state(json.loads(json.dumps(obs)), random.Random(p.seed + k))
            p.report.samples += 1
            if sampled.observation(seat) != obs:
                p.fail("sample", f"a state sampled from seat {seat}'s observation shows that "
                       "seat a different observation")
            if sampled.current_player != state.current_player:
                p.fail("sample", "sampled state has another current player", show=False)
            if sampled.is_terminal() != p.terminal:
                p.fail("sample", "sampled state disagrees on the end", show=False)
            if (
                not p.terminal
                and sampled.current_player == seat
                and sorted(sampled.legal_actions()) != state.legal_actions()
            ):
                p.fail("sample", "the deciding seat's legal actions changed", show=False)


#: Rules checked at every ply, in order.
EVERY_PLY: tuple[Rule, ...] = (
    rule_end, rule_returns, rule_terminal, rule_running, rule_malformed_refused,
    rule_stale_refused, rule_refusals_change_nothing,
)
#: The expensive rules, checked every few plies and at the end.
DEEP: tuple[Rule, ...] = (
    rule_clone_equal, rule_clone_shares_nothing, rule_legal_actions_apply, rule_distinct_results,
    rule_clone_independent, rule_replay, rule_codecs, rule_observations,
)


# ---------------------------------------------------------------------- games


def check_game(
    game: Game,
    variant: Mapping[str, str] | None = None,
    seeds: Iterable[int] = range(20),
    deep_every: int = 7,
    samples_per_seat: int = 2,
) -> Report:
    """Play one random game per seed and check every protocol rule along the way.

    ``deep_every``: the expensive checks (:data:`DEEP`) run every that many plies, ten times
    more sparsely after the first ``10 * deep_every`` plies (replaying the history costs the
    length of the game, so long, stalled random games would otherwise cost the square of
    their length), and at the end.
    """
    info = game.info
    var = info.resolve_variant(variant)
    report = Report()
    for seed in seeds:
        _check_one(game, var, seed, deep_every, samples_per_seat, report)
        report.games += 1
    return report


def _check_one(
    game: Game,
    var: dict[str, str],
    seed: int,
    deep_every: int,
    samples_per_seat: int,
    report: Report,
) -> None:
    info = game.info
    state = game.new_game(seed, **var)
    twin = game.new_game(seed, **var)
    if not _same(state, twin):
        _fail("same-seed", seed, 0, "two games from the same seed differ")
    if state.seed != seed or state.variant != var or state.history:
        _fail("fresh", seed, 0, "a new game must carry its seed and variant and an empty history")
    if state.num_players not in info.players:
        _fail("players", seed, 0, f"{state.num_players} players, info says {info.players}")
    rng = random.Random(seed * 7919 + 17)
    seen_actions: list[str] = []
    ply = 0
    while True:
        deep = ply % (deep_every if ply < 10 * deep_every else 10 * deep_every) == 0
        _check_ply(Ply(game, state, seed, ply, rng, seen_actions, report, samples_per_seat),
                   deep)
        if state.is_terminal():
            break
        if ply >= info.max_decisions:
            _fail("cap", seed, ply, f"game still running past the cap of {info.max_decisions}")
        action = rng.choice(state.legal_actions())
        seen_actions.append(action)
        state.apply(action)
        ply += 1
        report.decisions += 1
    # terminal state: full check once more
    _check_ply(Ply(game, state, seed, ply, rng, seen_actions, report, samples_per_seat), True)
    # the twin replays to the same end
    for a in state.history:
        twin.apply(a)
    if not _same(state, twin):
        _fail("same-seed", seed, ply, "replaying the same actions from the same seed diverged")


def _check_ply(p: Ply, deep: bool) -> None:
    p.before = p.state.to_json()
    for rule in EVERY_PLY + (DEEP if deep else ()):
        rule(p)


__all__: list[str] = [
    "DEEP", "EVERY_PLY", "ConformanceError", "ExplainsSameResults", "Ply",
    "Report", "check_game", "mutable_objects", "position_of", "shared_mutables",
]
