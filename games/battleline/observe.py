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
from games.battleline.codec import (
    face_up,
    finish_restore,
    public_fields,
    restore_common,
    set_side,
)
from games.battleline.notation import DECKS, NUM_FLAGS
from games.battleline.state import (
    GAME_NAME,
    P_CLAIM,
    RULES_VERSION,
    BattleLineState,
)
from games.protocol import JSON, GameError


def observe(state: BattleLineState, seat: int) -> JSON:
    """What ``seat`` may know: the board, discards, counts, its own hand and what it
    learnt through Scout (returned cards on deck tops, cards seen going into other hands).

    Every per-seat list has one entry per seat. With three players each flag also names the
    two ``seats`` facing each other there (the third seat's side stays empty), and three more
    keys say exactly who knows what: ``known_in_hands`` (per seat, the cards of that hand this
    seat knows), ``known_by`` (per seat, the cards of this seat's hand that seat knows) and
    ``deck_tops_by`` (per deck, the seat that put back each returned card, top first).
    """
    names = CARD_NAMES
    n = state.n
    seats = range(n)
    hands = state.hands
    known = state.known
    flags = []
    for f in range(NUM_FLAGS):
        flag: JSON = {
            "flag": f + 1,
            "claimed": state.claimed[f],
            "fog": state.fog[f],
            "mud": state.mud[f],
            "sides": [
                [[names[c], state.placed[c]] for c in state.sides[s * NUM_FLAGS + f]]
                for s in seats
            ],
        }
        if n > 2:
            flag["seats"] = list(state.layout.seats_at[f])
        flags.append(flag)
    mine_known = 0  # cards of this hand some opponent knows
    for o in state.layout.opponents[seat]:
        mine_known |= known[o] & hands[seat]
    obs: JSON = {
        "game": GAME_NAME,
        "seat": seat,
        "current_player": state.current_player,
        "variant": dict(state.variant),
        "rules_version": RULES_VERSION,
        "decisions": state.ply,
        "flags": flags,
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
        "known_by_opponent": names_of(mine_known),
        **public_fields(state),
        "claimable": [f + 1 for f in state._claims] if state.phase == P_CLAIM else [],
        "events": [
            {"seat": s, "action": a, "auto": auto} for s, a, auto in state.log[state.seen[seat]:]
        ],
    }
    if n > 2:
        obs["known_in_hands"] = [
            names_of(known[seat] & hands[s]) if s != seat else [] for s in seats
        ]
        obs["known_by"] = [names_of(known[o] & hands[seat]) if o != seat else [] for o in seats]
        obs["deck_tops_by"] = {
            DECKS[d]: [k.bit_length() - 1 for _, k in reversed(state.tops[d])] for d in (0, 1)
        }
    return obs


def sample(obs: JSON, rng: random.Random) -> BattleLineState:
    """A full state consistent with ``obs``: the hidden cards dealt at random.

    The observing seat's hand, the cards it knows in other hands and the deck tops it knows
    stay where they are; every other unseen card is shuffled into the opponents' hands
    (keeping their public troop/tactic counts), the unknown deck tops and the rest of the decks.
    """
    seat = int(obs["seat"])
    state = BattleLineState(0, dict(obs["variant"]))
    opponents = state.layout.opponents[seat]
    three = state.n > 2
    restore_common(state, obs)
    ids = CARD_IDS
    for f, flag in enumerate(obs["flags"]):
        state.claimed[f] = int(flag["claimed"])
        state.fog[f] = int(flag["fog"])
        state.mud[f] = int(flag["mud"])
        for s, cards in enumerate(flag["sides"]):
            set_side(state, s * NUM_FLAGS + f, [(ids[n], int(p)) for n, p in cards])
    state.discards = [[ids[n] for n in pile] for pile in obs["discards"]]
    own = 0
    for n in obs["hand"]:
        own |= 1 << ids[n]
    def mask(cards: list[str]) -> int:
        return sum(1 << ids[n] for n in cards)

    # per opponent: the cards of its hand this seat knows
    known_in = {o: mask(obs["known_in_hands"][o] if three else obs["opponent_known"])
                for o in opponents}
    known = mask(obs["opponent_known"])
    seen = own | known | face_up(state)
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
    state.hands[seat] = own
    state.known[seat] = known
    for opp in opponents:
        counts = obs["hand_counts"][opp]
        opp_hand = known_in[opp]
        for d in (0, 1):
            kind = ALL_TROOPS if d == 0 else ALL_TACTICS
            missing = int(counts[d]) - (opp_hand & kind).bit_count()
            for _ in range(missing):
                opp_hand |= 1 << pools[d].pop()
        state.hands[opp] = opp_hand
        # what this opponent knows of this seat's hand (of the third hand: nothing this seat
        # could tell, so nothing)
        state.known[opp] = mask(obs["known_by"][opp] if three else obs["known_by_opponent"])
    for d in (0, 1):
        size = int(obs["decks"][DECKS[d]])
        named = list(reversed(tops_named[d]))  # bottom-most returned card first
        by = (list(reversed(obs["deck_tops_by"][DECKS[d]])) if three
              else [seat if n != "?" else opponents[0] for n in named])
        top_cards: list[list[int]] = []
        for n, owner in zip(named, by, strict=True):
            if n == "?":
                top_cards.append([pools[d].pop(), 1 << owner])
            else:
                top_cards.append([ids[n], 1 << seat])
        rest = size - len(top_cards)
        body = [pools[d].pop() for _ in range(rest)]
        if pools[d]:
            raise GameError("observation is inconsistent: unseen cards left over after dealing")
        state.decks[d] = body + [c for c, _ in top_cards]
        state.tops[d] = top_cards
    state.history = []
    state.log = [(int(e["seat"]), str(e["action"]), bool(e["auto"])) for e in obs["events"]]
    finish_restore(state)
    return state
