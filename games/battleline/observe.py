"""What one seat of a Battle Line game may know, and states sampled back from that view.

:func:`observe` is ``state.observation(seat)``: the board, discards, public counts, the seat's
own hand and what it learnt through Scout. :func:`sample` is the game's ``sample_state``: a
full state consistent with an observation, the hidden cards dealt at random.
"""

from __future__ import annotations

import random

from games.battleline.cards import (
    ALL_TACTICS,
    ALL_TROOPS,
    CARD_IDS,
    CARD_NAMES,
    FOG,
    MUD,
    iter_bits,
    names_of,
)
from games.battleline.codec import finish_restore, restore_common, set_side
from games.battleline.notation import DECKS, NUM_FLAGS
from games.battleline.state import (
    GAME_NAME,
    P_CLAIM,
    PHASE_NAMES,
    RULES_VERSION,
    BattleLineState,
)
from games.protocol import JSON, GameError


def observe(state: BattleLineState, seat: int) -> JSON:
    """What ``seat`` may know: the board, discards, counts, its own hand and what it
    learnt through Scout (returned cards on deck tops, cards seen going into the other
    hand)."""
    names = CARD_NAMES
    flags = []
    for f in range(NUM_FLAGS):
        flags.append({
            "flag": f + 1,
            "claimed": state.claimed[f],
            "fog": state.fog[f],
            "mud": state.mud[f],
            "sides": [
                [[names[c], state.placed[c]] for c in state.sides[s * NUM_FLAGS + f]]
                for s in (0, 1)
            ],
        })
    return {
        "game": GAME_NAME,
        "seat": seat,
        "current_player": state.current_player,
        "variant": dict(state.variant),
        "rules_version": RULES_VERSION,
        "decisions": state.ply,
        "phase": PHASE_NAMES[state.phase],
        "turn": state.turn,
        "flags": flags,
        "fog_ply": state.placed[FOG],
        "mud_ply": state.placed[MUD],
        "discards": [[names[c] for c in d] for d in state.discards],
        "decks": {"troops": len(state.decks[0]), "tactics": len(state.decks[1])},
        "deck_tops": {
            DECKS[d]: [names[c] if k >> seat & 1 else "?" for c, k in reversed(state.tops[d])]
            for d in (0, 1)
        },
        "hand": names_of(state.hands[seat]),
        "hand_sizes": [h.bit_count() for h in state.hands],
        "hand_counts": [
            [(h & ALL_TROOPS).bit_count(), (h & ALL_TACTICS).bit_count()] for h in state.hands
        ],
        "opponent_known": names_of(state.known[seat]),
        # cards of this hand the opponent knows (it put them back with Scout, then this
        # seat drew them): this seat saw the "?" it drew, so it knows this too
        "known_by_opponent": names_of(state.known[1 - seat]),
        "tactics_played": list(state.tactics_played),
        "leader_played": list(state.leader_played),
        "passes": state.passes,
        "passed": state.passed,
        "scouted": state.scouted,
        "scout_draws": state.scout_draws,
        "scout_returns": state.scout_returns,
        "claimable": [f + 1 for f in state._claims] if state.phase == P_CLAIM else [],
        "end": state.end_kind,
        "winner": state.winner,
        "reason": state.reason,
    }


def sample(obs: JSON, rng: random.Random) -> BattleLineState:
    """A full state consistent with ``obs``: the hidden cards dealt at random.

    The observing seat's hand, the cards it knows in the other hand and the deck tops it knows
    stay where they are; every other unseen card is shuffled into the opponent's hand (keeping
    its public troop/tactic counts), the unknown deck tops and the rest of the decks.
    """
    seat = int(obs["seat"])
    opp = 1 - seat
    state = BattleLineState(0, dict(obs["variant"]))
    restore_common(state, obs)
    ids = CARD_IDS
    for f, flag in enumerate(obs["flags"]):
        state.claimed[f] = int(flag["claimed"])
        state.fog[f] = int(flag["fog"])
        state.mud[f] = int(flag["mud"])
        for s in (0, 1):
            set_side(state, s * NUM_FLAGS + f, [(ids[n], int(p)) for n, p in flag["sides"][s]])
    state.discards = [[ids[n] for n in pile] for pile in obs["discards"]]
    own = 0
    for n in obs["hand"]:
        own |= 1 << ids[n]
    known = 0
    for n in obs["opponent_known"]:
        known |= 1 << ids[n]
    seen = own | known
    for side in state.sides:
        for c in side:
            seen |= 1 << c
    for pile in state.discards:
        for c in pile:
            seen |= 1 << c
    for f in range(NUM_FLAGS):
        if state.fog[f] >= 0:
            seen |= 1 << FOG
        if state.mud[f] >= 0:
            seen |= 1 << MUD
    tops_named = [obs["deck_tops"][DECKS[d]] for d in (0, 1)]
    for d in (0, 1):
        for n in tops_named[d]:
            if n != "?":
                seen |= 1 << ids[n]
    everything = state.troop_all | (ALL_TACTICS if state.tactics_on else 0)
    unseen = everything & ~seen
    pools = [list(iter_bits(unseen & ALL_TROOPS)), list(iter_bits(unseen & ALL_TACTICS))]
    rng.shuffle(pools[0])
    rng.shuffle(pools[1])
    counts = obs["hand_counts"][opp]
    opp_hand = known
    for d in (0, 1):
        kind = ALL_TROOPS if d == 0 else ALL_TACTICS
        missing = int(counts[d]) - (known & kind).bit_count()
        for _ in range(missing):
            opp_hand |= 1 << pools[d].pop()
    state.hands[seat] = own
    state.hands[opp] = opp_hand
    state.known[seat] = known
    state.known[opp] = sum(1 << ids[n] for n in obs["known_by_opponent"])
    for d in (0, 1):
        size = int(obs["decks"][DECKS[d]])
        named = list(reversed(tops_named[d]))  # bottom-most returned card first
        top_cards: list[list[int]] = []
        for n in named:
            if n == "?":
                top_cards.append([pools[d].pop(), 1 << opp])
            else:
                top_cards.append([ids[n], 1 << seat])
        rest = size - len(top_cards)
        body = [pools[d].pop() for _ in range(rest)]
        if pools[d]:
            raise GameError("observation is inconsistent: unseen cards left over after dealing")
        state.decks[d] = body + [c for c, _ in top_cards]
        state.tops[d] = top_cards
    state.history = []
    finish_restore(state)
    return state
