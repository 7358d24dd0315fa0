"""The conformance suite every game and variant must pass.

``check_game(game)`` plays random games and checks the protocol rules of
:mod:`games.protocol` at every step. It fails loudly: a :class:`ConformanceError` whose message
names the broken rule, the seed and the ply, never a warning.

>>> from games.registry import get
>>> report = check_game(get("battleline"), seeds=range(2))
>>> report.games
2
"""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

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


def _check_json(obj: JSON, what: str, seed: int, ply: int) -> None:
    try:
        text = json.dumps(obj, sort_keys=True)
    except (TypeError, ValueError) as exc:
        _fail("json", seed, ply, f"{what} is not JSON-serialisable: {exc}")
        return
    if json.loads(text) != obj:
        _fail("json", seed, ply, f"{what} does not survive a JSON round trip")


def check_game(
    game: Game,
    variant: Mapping[str, str] | None = None,
    seeds: Iterable[int] = range(20),
    deep_every: int = 7,
    samples_per_seat: int = 2,
) -> Report:
    """Play one random game per seed and check every protocol rule along the way.

    ``deep_every``: the expensive checks (every legal action applies on a clone, replay,
    pickle, JSON, sampling) run every that many plies, ten times more sparsely after the first
    ``10 * deep_every`` plies (replaying the history costs the length of the game, so long,
    stalled random games would otherwise cost the square of their length), and at the end.
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
        _check_step(game, state, seed, ply, deep, samples_per_seat, rng, seen_actions, report)
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
    _check_step(game, state, seed, ply, True, samples_per_seat, rng, seen_actions, report)
    # the twin replays to the same end
    for a in state.history:
        twin.apply(a)
    if not _same(state, twin):
        _fail("same-seed", seed, ply, "replaying the same actions from the same seed diverged")


def _check_step(
    game: Game,
    state: State,
    seed: int,
    ply: int,
    deep: bool,
    samples_per_seat: int,
    rng: random.Random,
    seen_actions: list[str],
    report: Report,
) -> None:
    terminal = state.is_terminal()
    ended = state.end()
    if terminal != (ended is not None):
        _fail("end", seed, ply, f"is_terminal()={terminal} but end()={ended}", state)
    if len(state.history) != ply:
        _fail("history", seed, ply, f"history has {len(state.history)} actions", state)
    n = state.num_players
    returns = state.returns()
    if len(returns) != n or any(not -1.0 <= r <= 1.0 for r in returns):
        _fail("returns", seed, ply, f"returns {returns} out of bounds for {n} players", state)
    if len(state.scores()) != n:
        _fail("scores", seed, ply, f"scores {state.scores()} not one per seat", state)
    if terminal:
        if state.current_player != -1:
            _fail("terminal", seed, ply, "current_player must be -1 once the game is over")
        if state.legal_actions():
            _fail("terminal", seed, ply, "legal actions offered after the end", state)
        assert ended is not None
        if ended[0] is not GameEnd.NORMAL and any(r != 0 for r in returns):
            _fail("returns", seed, ply, f"{ended[0].value} must be a draw, returns {returns}")
        if ended[0] is GameEnd.NORMAL and all(r == returns[0] for r in returns):
            _fail("returns", seed, ply, "a normal end needs a winner", state)
        if not isinstance(ended[1], str) or not ended[1]:
            _fail("end", seed, ply, "the end needs a readable reason")
    else:
        if any(r != 0 for r in returns):
            _fail("returns", seed, ply, f"returns {returns} before the end", state)
        if not 0 <= state.current_player < n:
            _fail("current", seed, ply, f"current_player {state.current_player}", state)
        legal = state.legal_actions()
        if not legal:
            _fail("legal", seed, ply, "no legal action while the game runs", state)
        if legal != sorted(set(legal)):
            _fail("legal", seed, ply, f"legal actions not sorted and unique: {legal}", state)
        if any(not isinstance(a, str) or not a or a != a.strip() for a in legal):
            _fail("legal", seed, ply, f"legal actions must be non-empty trimmed strings: {legal}")

    # malformed and illegal actions raise and leave the state as it was
    before = state.to_json()
    for junk in ("", "???", "\x00"):
        try:
            state.apply(junk)
        except InvalidAction:
            pass
        except Exception as exc:
            _fail("invalid", seed, ply, f"apply({junk!r}) raised {type(exc).__name__}: {exc}")
        else:
            _fail("invalid", seed, ply, f"apply({junk!r}) was accepted", state)
    legal_set = set(state.legal_actions())
    stale = [a for a in seen_actions[-12:] if a not in legal_set]
    for action in stale[:3]:
        try:
            state.apply(action)
        except IllegalAction as exc:
            if not str(exc):
                _fail("illegal", seed, ply, f"IllegalAction for {action!r} has no message")
        except InvalidAction:
            _fail("illegal", seed, ply, f"{action!r} parsed once, now called malformed", state)
        else:
            _fail("illegal", seed, ply, f"illegal {action!r} was accepted", state)
    if state.to_json() != before:
        _fail("illegal", seed, ply, "a rejected action changed the state", state)

    if not deep:
        return

    # clone: equal and independent
    clone = state.clone()
    if not _same(clone, state):
        _fail("clone", seed, ply, "clone differs from the original", state)
    if not terminal:
        legal = state.legal_actions()
        for action in legal:
            probe = state.clone()
            try:
                probe.apply(action)
            except Exception as exc:
                _fail("legal", seed, ply, f"legal {action!r} failed: {exc!r}", state)
            if len(probe.history) != ply + 1 or probe.history[-1] != action:
                _fail("history", seed, ply, f"apply({action!r}) not recorded in history")
        clone.apply(legal[0])
        if state.to_json() != before:
            _fail("clone", seed, ply, "changing a clone changed the original", state)

    # replay rebuilds an equal state
    replay = game.new_game(state.seed, **state.variant)
    for a in state.history:
        replay.apply(a)
    if not _same(replay, state):
        _fail("replay", seed, ply, "replaying the history gives a different state", state)

    # JSON and pickle round trips play on identically
    data = state.to_json()
    _check_json(data, "to_json()", seed, ply)
    restored = game.state_from_json(json.loads(json.dumps(data)))
    if not _same(restored, state):
        _fail("json", seed, ply, "state_from_json(to_json()) differs", state)
    pickled = pickle.loads(pickle.dumps(state))
    if not _same(pickled, state):
        _fail("pickle", seed, ply, "pickle round trip differs", state)
    if not terminal:
        follow = rng.choice(state.legal_actions())
        played = [state.clone(), pickled, restored]
        for each in played:
            each.apply(follow)
        if not (_same(played[0], played[1]) and _same(played[0], played[2])):
            _fail("pickle", seed, ply, f"round-tripped states diverge after {follow!r}", state)

    # observations: JSON, and sampling keeps the seat's view
    for seat in range(state.num_players):
        obs = state.observation(seat)
        _check_json(obs, f"observation({seat})", seed, ply)
        for k in range(samples_per_seat):
            sampled = game.sample_state(json.loads(json.dumps(obs)), random.Random(seed + k))
            report.samples += 1
            if sampled.observation(seat) != obs:
                _fail(
                    "sample",
                    seed,
                    ply,
                    f"a state sampled from seat {seat}'s observation shows that seat a "
                    "different observation",
                    state,
                )
            if sampled.current_player != state.current_player:
                _fail("sample", seed, ply, "sampled state has another current player")
            if sampled.is_terminal() != terminal:
                _fail("sample", seed, ply, "sampled state disagrees on the end")
            if (
                not terminal
                and sampled.current_player == seat
                and sorted(sampled.legal_actions()) != state.legal_actions()
            ):
                _fail("sample", seed, ply, "the deciding seat's legal actions changed")
