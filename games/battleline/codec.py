"""Battle Line states as JSON: the referee's full view, hidden cards included.

:func:`to_json` and :func:`from_json` round-trip every field of a state; the derived fields
(face-up troops, free and complete sides, the claim list) are recomputed on the way in.
:func:`restore_common` and :func:`finish_restore` are shared with :mod:`observe`, whose sampler
rebuilds a state from an observation.

>>> from games.battleline import GAME
>>> state = GAME.new_game(3)
>>> state.apply(state.legal_actions()[0])
>>> from_json(to_json(state)) == state
True
"""

from __future__ import annotations

from games.battleline.cards import ALL_TROOPS, FOG, MUD, iter_bits
from games.battleline.state import GAME_NAME, P_CLAIM, PHASE_NAMES, BattleLineState
from games.protocol import JSON


def public_fields(state: BattleLineState) -> JSON:
    """The public facts of the turn and of the end, alike in :func:`to_json` and in every
    observation (and read back by :func:`restore_common`)."""
    return {
        "phase": PHASE_NAMES[state.phase],
        "turn": state.turn,
        "fog_ply": state.placed[FOG],
        "mud_ply": state.placed[MUD],
        "tactics_played": list(state.tactics_played),
        "leader_played": list(state.leader_played),
        "passes": state.passes,
        "passed": state.passed,
        "scouted": state.scouted,
        "scout_draws": state.scout_draws,
        "scout_returns": state.scout_returns,
        "end": state.end_kind,
        "winner": state.winner,
        "reason": state.reason,
    }


def to_json(state: BattleLineState) -> JSON:
    """The full state as JSON (hidden cards included: this is the referee's view)."""
    return {
        "game": GAME_NAME,
        "seed": state.seed,
        "variant": dict(state.variant),
        "history": list(state.history),
        "ply": state.ply,
        "sides": [[[c, state.placed[c]] for c in side] for side in state.sides],
        "fog": list(state.fog),
        "mud": list(state.mud),
        "claimed": list(state.claimed),
        "hands": [sorted(iter_bits(h)) for h in state.hands],
        "decks": [list(d) for d in state.decks],
        "tops": [[list(e) for e in t] for t in state.tops],
        "known": [sorted(iter_bits(k)) for k in state.known],
        "discards": [list(d) for d in state.discards],
        "log": [list(e) for e in state.log],
        "seen": list(state.seen),
        **public_fields(state),
    }


def restore_common(state: BattleLineState, data: JSON) -> None:
    """Fill the public part of a state from a to_json() or observation() dict."""
    state.ply = int(data["decisions"] if "decisions" in data else data["ply"])
    state.phase = PHASE_NAMES.index(data["phase"])
    state.turn = int(data["turn"])
    state.tactics_played = [int(x) for x in data["tactics_played"]]
    state.leader_played = [bool(x) for x in data["leader_played"]]
    state.passes = int(data["passes"])
    state.passed = bool(data["passed"])
    state.scouted = bool(data["scouted"])
    state.scout_draws = int(data["scout_draws"])
    state.scout_returns = int(data["scout_returns"])
    state.end_kind = data["end"]
    state.winner = int(data["winner"])
    state.reason = str(data["reason"])
    if data["fog_ply"] is not None:
        state.placed[FOG] = int(data["fog_ply"])
    if data["mud_ply"] is not None:
        state.placed[MUD] = int(data["mud_ply"])


def face_up(state: BattleLineState) -> int:
    """The mask of every card beside a flag (in a slot) or in a discard pile."""
    cards = 0
    for side in state.sides:
        for c in side:
            cards |= 1 << c
    for pile in state.discards:
        for c in pile:
            cards |= 1 << c
    return cards


def finish_restore(state: BattleLineState) -> None:
    """Recompute the derived fields (face-up troops, the claim list) after a restore."""
    state.gone = face_up(state) & ALL_TROOPS
    state.refresh_all()
    if state.phase == P_CLAIM:
        state._claims = state.claimable(state.turn)


def set_side(state: BattleLineState, side: int, cards: list[tuple[int, int]]) -> None:
    state.sides[side] = tuple(c for c, _ in cards)
    mask = 0
    for c, ply in cards:
        mask |= 1 << c
        state.placed[c] = ply
        state.where[c] = side
    state.smask[side] = mask


def from_json(data: JSON) -> BattleLineState:
    """Rebuild a state from :meth:`BattleLineState.to_json`."""
    state = BattleLineState(int(data["seed"]), dict(data["variant"]))
    state.history = list(data["history"])
    restore_common(state, data)
    for side, cards in enumerate(data["sides"]):
        set_side(state, side, [(int(c), int(p)) for c, p in cards])
    state.fog = [int(x) for x in data["fog"]]
    state.mud = [int(x) for x in data["mud"]]
    state.claimed = [int(x) for x in data["claimed"]]
    state.hands = [sum(1 << int(c) for c in h) for h in data["hands"]]
    state.decks = [[int(c) for c in d] for d in data["decks"]]
    state.tops = [[[int(c), int(k)] for c, k in t] for t in data["tops"]]
    state.known = [sum(1 << int(c) for c in k) for k in data["known"]]
    state.discards = [[int(c) for c in d] for d in data["discards"]]
    # states saved before the public log existed have none
    state.log = [(int(s), str(a), bool(auto)) for s, a, auto in data.get("log", [])]
    state.seen = [int(x) for x in data.get("seen", [0] * state.n)]
    finish_restore(state)
    return state
