"""Build Battle Line positions compactly for tests.

>>> s = position([(0, 3, "r3 r4 r5"), (1, 3, "y8 r8 g8")], hands=("b1", "b2"))
>>> s.can_claim(0, 2)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from games.battleline.cards import (
    ALL_TACTICS,
    ALL_TROOPS,
    CARD_IDS,
    GUILE,
    LEADER_MASK,
    NUM_TROOPS,
    iter_bits,
)
from games.battleline.notation import NUM_FLAGS
from games.battleline.state import P_CLAIM, PHASE_NAMES, BattleLineState

Placement = tuple[int, int, str]  # (seat, flag 1..9, "card card ...")


def ids(text: str) -> list[int]:
    """Card ids of a space-separated list of names: ``ids("r7 alexander")``."""
    return [CARD_IDS[n] for n in text.split()]


def mask(text: str) -> int:
    """Bit mask of a space-separated list of names."""
    out = 0
    for c in ids(text):
        out |= 1 << c
    return out


def position(
    board: Iterable[Placement] = (),
    *,
    hands: Sequence[str] = ("", ""),
    env: Iterable[tuple[str, int, int]] = (),
    discards: Sequence[str] = ("", ""),
    claimed: dict[int, int] | None = None,
    turn: int = 0,
    rules: str = "standard",
    tactics_played: Sequence[int] | None = None,
    leader_played: Sequence[bool] | None = None,
    troop_deck: str | None = None,
    tactics_deck: str | None = None,
    seed: int = 0,
    fill: bool = False,
    players: int = 2,
) -> BattleLineState:
    """A position at the start of ``turn``'s turn.

    ``board``: placements in the order they happened (each card gets the next decision number,
    so the order decides who completed a side later); ``env``: (``"fog"``/``"mud"``, owner
    seat, flag 1..9); ``claimed``: flag 1..9 -> seat. Every card not mentioned goes into the
    decks (shuffled with ``seed``), unless ``troop_deck``/``tactics_deck`` list the decks
    (top card last); with ``fill`` the cards mentioned nowhere go beneath the listed ones,
    otherwise they are left out of the game. Tactics played default to the tactics each seat
    has on the board, as environment cards and (guile cards) in its discard pile. With
    ``players=3``, ``hands`` and ``discards`` take three entries (missing ones are empty).
    """
    variant = {"rules": rules} if players == 2 else {"players": str(players), "rules": rules}
    state = BattleLineState(seed, variant)
    seats = range(players)
    hands = [*hands, *[""] * (players - len(hands))]
    discards = [*discards, *[""] * (players - len(discards))]
    used = 0
    ply = 0
    for seat, flag, text in board:
        for c in ids(text):
            state._place(seat, c, flag - 1)
            state.placed[c] = ply
            ply += 1
            used |= 1 << c
    played = [0] * players
    for seat in seats:
        for side in range(NUM_FLAGS):
            played[seat] += sum(1 for c in state.sides[seat * NUM_FLAGS + side] if c >= NUM_TROOPS)
    for kind, owner, flag in env:
        card = CARD_IDS[kind]
        (state.fog if kind == "fog" else state.mud)[flag - 1] = owner
        state.placed[card] = ply
        ply += 1
        used |= 1 << card
        played[owner] += 1
    for seat in seats:
        state.discards[seat] = ids(discards[seat])
        for c in state.discards[seat]:
            used |= 1 << c
            if c in GUILE:
                played[seat] += 1
            if c < NUM_TROOPS:
                state.gone |= 1 << c
        state.hands[seat] = mask(hands[seat])
        used |= state.hands[seat]
    for flag, seat in (claimed or {}).items():
        state.claimed[flag - 1] = seat
    everything = state.troop_all | (ALL_TACTICS if state.tactics_on else 0)
    rest = everything & ~used
    rng = random.Random(seed)
    decks = ((ALL_TROOPS, troop_deck), (ALL_TACTICS, tactics_deck))
    for d, (kind_mask, listed) in enumerate(decks):
        on_top = ids(listed) if listed is not None else []
        cards = [c for c in iter_bits(rest & kind_mask) if c not in on_top]
        rng.shuffle(cards)
        state.decks[d] = on_top if listed is not None and not fill else cards + on_top
    state.tactics_played = list(tactics_played) if tactics_played is not None else played
    if leader_played is not None:
        state.leader_played = list(leader_played)
    else:
        state.leader_played = [
            any(state.where[c] // NUM_FLAGS == s for c in iter_bits(LEADER_MASK)
                if state.where[c] >= 0)
            for s in seats
        ]
    state.ply = ply
    state.turn = turn
    state.refresh_all()
    state.start_turn()
    return state


def after_play(state: BattleLineState) -> BattleLineState:
    """Move a position built by :func:`position` into its claim phase (as after a play)."""
    state._after_play()
    return state


def phase(state: BattleLineState) -> str:
    """The phase name of a state."""
    return PHASE_NAMES[state.phase]


def claims(state: BattleLineState) -> list[int]:
    """Flags (1..9) the player to move may claim now, per the claim phase."""
    assert state.phase == P_CLAIM, phase(state)
    return [f + 1 for f in state._claims]
