"""What one seat of a Battle Line game may know, and states sampled back from that view.

:func:`observe` is ``state.observation(seat)``: the board, discards, public counts, the seat's
own hand and what it learnt through Scout. :func:`sample` is the game's ``sample_state``: a
full state consistent with an observation, the hidden cards dealt at random.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

from games.battleline.cards import (
    ALL_TACTICS,
    ALL_TROOPS,
    CARD_IDS,
    CARD_NAMES,
    FOG,
    MUD,
    iter_bits,
    shuffle,
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
    P_PLAY,
    P_SCOUT_RETURN,
    RULES_VERSION,
    BattleLineState,
)
from games.protocol import JSON, GameError

#: An observation as a bot holds it: a dict, or the referee's lazy mapping (a compiled
#: function would refuse anything but a dict under the dict type).
Observation = Mapping[str, Any]


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
    hands = state.hands
    known = state.known
    claimed = state.claimed
    fogs = state.fog
    muds = state.mud
    sides = state.sides
    placed = state.placed
    flags = []
    # (plain loops and no comprehension for an empty side: this runs in every search rollout)
    if n == 2:
        for f in range(NUM_FLAGS):
            a = sides[f]
            b = sides[f + NUM_FLAGS]
            flags.append({
                "flag": f + 1,
                "claimed": claimed[f],
                "fog": fogs[f],
                "mud": muds[f],
                "sides": [
                    [[names[c], placed[c]] for c in a] if a else [],
                    [[names[c], placed[c]] for c in b] if b else [],
                ],
            })
    else:
        seats_at = state.layout.seats_at
        for f in range(NUM_FLAGS):
            per_seat = []
            for s in range(n):
                side = sides[s * NUM_FLAGS + f]
                per_seat.append([[names[c], placed[c]] for c in side] if side else [])
            flags.append({
                "flag": f + 1,
                "claimed": claimed[f],
                "fog": fogs[f],
                "mud": muds[f],
                "sides": per_seat,
                "seats": list(seats_at[f]),
            })
    mine = hands[seat]
    mine_known = 0  # cards of this hand some opponent knows
    for o in state.opponents[seat]:
        mine_known |= known[o] & mine
    tops = state.tops
    decks = state.decks
    obs: JSON = {
        "game": GAME_NAME,
        "seat": seat,
        "current_player": state.current_player,
        "variant": dict(state.variant),
        "rules_version": RULES_VERSION,
        "decisions": state.ply,
        "flags": flags,
        "discards": [[names[c] for c in d] if d else [] for d in state.discards],
        "decks": {"troops": len(decks[0]), "tactics": len(decks[1])},
        "deck_tops": {
            "troops": _top_names(tops[0], seat),
            "tactics": _top_names(tops[1], seat),
        },
        "hand": _names(mine),
        "hand_sizes": [h.bit_count() for h in hands],
        "hand_counts": [
            [(h & ALL_TROOPS).bit_count(), (h & ALL_TACTICS).bit_count()] for h in hands
        ],
        "opponent_known": _names(known[seat]),
        # cards of this hand the opponent knows (it put them back with Scout, then this
        # seat drew them): this seat saw the "?" it drew, so it knows this too
        "known_by_opponent": _names(mine_known),
        **public_fields(state),
        "claimable": [f + 1 for f in state._claims] if state.phase == P_CLAIM else [],
        "events": [
            {"seat": s, "action": a, "auto": auto} for s, a, auto in state.log[state.seen[seat]:]
        ],
    }
    if n > 2:
        obs["known_in_hands"] = [
            _names(known[seat] & hands[s]) if s != seat else [] for s in range(n)
        ]
        obs["known_by"] = [_names(known[o] & mine) if o != seat else [] for o in range(n)]
        obs["deck_tops_by"] = {
            DECKS[d]: [k.bit_length() - 1 for _, k in reversed(tops[d])] for d in (0, 1)
        }
    return obs


def _names(mask: int) -> list[str]:
    """The sorted names of the cards in a mask (:func:`names_of`, without a generator)."""
    if not mask:
        return []
    names = CARD_NAMES
    out = []
    while mask:
        low = mask & -mask
        out.append(names[low.bit_length() - 1])
        mask ^= low
    out.sort()
    return out


def _top_names(tops: list[list[int]], seat: int) -> list[str]:
    """The returned cards on a deck, top first: their names where ``seat`` knows them."""
    if not tops:
        return []
    names = CARD_NAMES
    return [names[c] if k >> seat & 1 else "?" for c, k in reversed(tops)]


def sample(obs: Observation, rng: random.Random) -> BattleLineState:
    """A full state consistent with ``obs``: the hidden cards dealt at random.

    The observing seat's hand, the cards it knows in other hands and the deck tops it knows
    stay where they are; every other unseen card is shuffled into the opponents' hands
    (keeping their public troop/tactic counts), the unknown deck tops and the rest of the decks.

    A search samples the same observation many times, so the work that depends only on the
    observation (the public position, what is unseen, who gets how many cards) is done once
    and kept with a copy of the observation: a later call with an equal observation only
    shuffles and deals (the same draws from ``rng`` as a fresh start, so the same state).
    """
    data = obs if type(obs) is dict else dict(obs)
    plan = _last_plan
    if plan is None or plan.snapshot != data:
        plan = _Plan(data)
        _remember(plan)
    return plan.deal(rng)


class _Plan:
    """Everything a sample of one observation needs but the random part: a template state
    (the public position, the observer's hand and knowledge, the opponents' knowledge), the
    unseen cards of each deck kind in id order, and how many of them go where."""

    __slots__ = ("decks", "hands", "pools", "seat_bit", "snapshot", "template")

    def __init__(self, obs: JSON) -> None:
        self.snapshot = _copy(obs)
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
                if cards:
                    set_side(state, s * NUM_FLAGS + f, [(ids[n], int(p)) for n, p in cards])
        state.discards = [[ids[n] for n in pile] for pile in obs["discards"]]

        def mask(cards: list[str]) -> int:
            return sum(1 << ids[n] for n in cards)

        own = mask(obs["hand"])
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
        self.pools = (list(iter_bits(unseen & ALL_TROOPS)), list(iter_bits(unseen & ALL_TACTICS)))
        state.hands[seat] = own
        state.known[seat] = known
        # per opponent: (seat, the cards of its hand this seat knows, troops and tactics to add)
        hands: list[tuple[int, int, int, int]] = []
        for opp in opponents:
            counts = obs["hand_counts"][opp]
            opp_hand = known_in[opp]
            missing = [int(counts[d]) - (opp_hand & kind).bit_count()
                       for d, kind in ((0, ALL_TROOPS), (1, ALL_TACTICS))]
            hands.append((opp, opp_hand, missing[0], missing[1]))
            # what this opponent knows of this seat's hand (of the third hand: nothing this
            # seat could tell, so nothing)
            state.known[opp] = mask(obs["known_by"][opp] if three else obs["known_by_opponent"])
        self.hands = tuple(hands)
        # per deck: the returned cards on top, bottom-most first, as (card or -1 when this
        # seat does not know it, the bit of the seat that put it back), and the cards below
        decks = []
        for d in (0, 1):
            size = int(obs["decks"][DECKS[d]])
            named = list(reversed(tops_named[d]))  # bottom-most returned card first
            by = (list(reversed(obs["deck_tops_by"][DECKS[d]])) if three
                  else [seat if n != "?" else opponents[0] for n in named])
            tops = tuple((-1 if n == "?" else ids[n], 1 << owner)
                         for n, owner in zip(named, by, strict=True))
            decks.append((tops, size - len(tops)))
        self.decks = tuple(decks)
        self.seat_bit = 1 << seat
        state.history = []
        state.log = [(int(e["seat"]), str(e["action"]), bool(e["auto"])) for e in obs["events"]]
        finish_restore(state)
        if state.turn == seat or state.phase not in (P_PLAY, P_SCOUT_RETURN):
            # the legal actions depend on nothing hidden from this seat (the decks only by
            # their sizes): the same in every sample
            state.decks = [[-1] * (len(tops) + rest) for tops, rest in self.decks]
            state.legal_actions()
            state.decks = [[], []]
        self.template = state

    def deal(self, rng: random.Random) -> BattleLineState:
        """A copy of the template with the unseen cards shuffled and dealt."""
        pools = [self.pools[0].copy(), self.pools[1].copy()]
        shuffle(rng, pools[0])
        shuffle(rng, pools[1])
        state = self.template.clone()
        for opp, opp_hand, *missing in self.hands:
            for d in (0, 1):
                pool = pools[d]
                for _ in range(missing[d]):
                    opp_hand |= 1 << pool.pop()
            state.hands[opp] = opp_hand
        seat_bit = self.seat_bit
        for d in (0, 1):
            pool = pools[d]
            tops, rest = self.decks[d]
            top_cards = [[pool.pop() if card < 0 else card, by if card < 0 else seat_bit]
                         for card, by in tops] if tops else []
            body = [pool.pop() for _ in range(rest)]
            if pool:
                raise GameError("observation is inconsistent: unseen cards left over after dealing")
            if top_cards:
                body += [c for c, _ in top_cards]
            state.decks[d] = body
            state.tops[d] = top_cards
        return state


_last_plan: _Plan | None = None


def _remember(plan: _Plan) -> None:
    global _last_plan
    _last_plan = plan


def _copy(value: object) -> object:
    """A deep copy of JSON data (dicts, lists, tuples; the leaves are immutable and shared)."""
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) for k, v in value.items()}  # type: ignore[attr-defined]
    if kind is list:
        return [_copy(v) for v in value]  # type: ignore[attr-defined]
    if kind is tuple:
        return tuple(_copy(v) for v in value)  # type: ignore[attr-defined]
    if kind in (str, int, bool, float) or value is None:
        return value
    return copy.deepcopy(value)
