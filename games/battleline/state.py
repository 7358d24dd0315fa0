"""The Battle Line position and its rules.

A :class:`BattleLineState` holds everything about one game: the nine flags with both sides
(cards in placement order, each card remembering the decision at which it arrived), the
environment cards, the claimed flags, both hands (bit masks), both decks (lists, top last), the
discard piles, the tactics counters and the phase of the current turn.

A turn is a sequence of decisions made by the player whose turn it is:

* standard timing: ``play`` (or a tactic, or ``pass``) → any ``claim``\\s, ended by ``done`` →
  ``draw``;
* advanced timing: ``claim``\\s (ended by ``done``) → ``play`` → ``draw``.

Decisions with a single possible answer are taken automatically: the claim phase is skipped when
no flag can be claimed, and a draw (or Scout draw) happens by itself when only one deck has
cards. Everything else is an explicit action string (see :mod:`games.battleline.notation`).

Board layout: side ``seat * NUM_FLAGS + flag`` holds a seat's cards at a flag, and every
per-flag fact (environment, claim, free slots) is a list or mask over flags. A three-player
variant (rulebook 003) would keep this layout and add, per flag, the pair of seats facing each
other there plus a flag adjacency list for breakthroughs; the places that now take the opponent
as ``1 - seat`` would ask the flag instead.
"""

from __future__ import annotations

import random

from games.battleline import formations as fm
from games.battleline.cards import (
    ALL_TACTICS,
    ALL_TROOPS,
    CARD_IDS,
    CARD_NAMES,
    COLOUR_LETTERS,
    DESERTER,
    FOG,
    LEADER_MASK,
    MORALE,
    MORALE_MASK,
    MUD,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_TROOPS,
    NUM_VALUES,
    REDEPLOY,
    SCOUT,
    TRAITOR,
    VALUE_BITS,
    iter_bits,
    names_of,
    troop_mask,
)
from games.battleline.notation import (
    ACTION_STRINGS,
    CLAIM,
    DECKS,
    DESERTER_A,
    DISCARD,
    DONE,
    DRAW,
    FOG_A,
    KIND_CARD,
    KIND_NAMES,
    MUD_A,
    NUM_FLAGS,
    PARSE,
    PASS,
    PLAY,
    REDEPLOY_A,
    SCOUT_A,
    SCOUT_DRAW,
    SCOUT_RETURN,
    TRAITOR_A,
    parse,
)
from games.protocol import JSON, GameEnd, GameError, IllegalAction

GAME_NAME = "battleline"
RULES_VERSION = "bl-1"
MAX_DECISIONS = 1000

# Phases of a turn.
P_PLAY, P_CLAIM, P_DRAW, P_SCOUT_DRAW, P_SCOUT_RETURN, P_OVER = range(6)
PHASE_NAMES = ("play", "claim", "draw", "scout-draw", "scout-return", "over")

RULES = ("standard", "no-tactics", "advanced", "schotten-totten")

# Per rules choice: (uses tactics, hand size, advanced claim timing, highest troop value).
RULE_TABLE: dict[str, tuple[bool, int, bool, int]] = {
    "standard": (True, 7, False, 10),
    "no-tactics": (False, 6, False, 10),
    "advanced": (True, 7, True, 10),
    "schotten-totten": (False, 6, True, 9),
}

# --- precomputed action strings, indexed for speed ---------------------------------------
_PLAY_STR = [[ACTION_STRINGS.get((PLAY, c, f), "") for f in range(NUM_FLAGS)]
             for c in range(NUM_CARDS)]
_TRAITOR_STR = [[ACTION_STRINGS.get((TRAITOR_A, c, f), "") for f in range(NUM_FLAGS)]
                for c in range(NUM_CARDS)]
_REDEPLOY_STR = [[ACTION_STRINGS.get((REDEPLOY_A, c, f), "") for f in range(NUM_FLAGS)]
                 for c in range(NUM_CARDS)]
_REDEPLOY_DISCARD_STR = [ACTION_STRINGS.get((REDEPLOY_A, c, DISCARD), "")
                         for c in range(NUM_CARDS)]
_DESERTER_STR = [ACTION_STRINGS.get((DESERTER_A, c, -1), "") for c in range(NUM_CARDS)]
_FOG_STR = [ACTION_STRINGS[(FOG_A, FOG, f)] for f in range(NUM_FLAGS)]
_MUD_STR = [ACTION_STRINGS[(MUD_A, MUD, f)] for f in range(NUM_FLAGS)]
_CLAIM_STR = [ACTION_STRINGS[(CLAIM, -1, f)] for f in range(NUM_FLAGS)]
_RETURN_STR = [ACTION_STRINGS[(SCOUT_RETURN, c, -1)] for c in range(NUM_CARDS)]
_DRAW_BOTH = sorted([ACTION_STRINGS[(DRAW, -1, 0)], ACTION_STRINGS[(DRAW, -1, 1)]])
_SCOUT_DRAW_BOTH = sorted(
    [ACTION_STRINGS[(SCOUT_DRAW, -1, 0)], ACTION_STRINGS[(SCOUT_DRAW, -1, 1)]]
)
_PARSE_GET = PARSE.get
_DONE = ACTION_STRINGS[(DONE, -1, -1)]
_PASS = ACTION_STRINGS[(PASS, -1, -1)]
_SCOUT = ACTION_STRINGS[(SCOUT_A, SCOUT, -1)]


def _play_rows() -> list[list[tuple[str, ...]]]:
    """_PLAY_ROWS[card][free-flag mask]: the ``play`` strings of a card onto those flags."""
    rows = []
    for c in range(NUM_CARDS):
        names = _PLAY_STR[c]
        rows.append([
            tuple(names[f] for f in range(NUM_FLAGS) if m >> f & 1) if names[0] else ()
            for m in range(1 << NUM_FLAGS)
        ])
    return rows


_PLAY_ROWS = _play_rows()

_COLOUR_SHIFT = tuple(c * NUM_VALUES for c in range(NUM_COLOURS))


def _troops_by_name() -> list[list[tuple[int, ...]]]:
    """_TROOPS_BY_NAME[colour][value mask]: those troops in the order of their names
    (``b1 < b10 < b2 < ...``), so play actions come out sorted without sorting."""
    table = []
    for colour in range(NUM_COLOURS):
        row = []
        for m in range(1 << NUM_VALUES):
            cards = [colour * NUM_VALUES + v for v in range(NUM_VALUES) if m >> v & 1]
            cards.sort(key=lambda c: CARD_NAMES[c] + " ")
            row.append(tuple(cards))
        table.append(row)
    return table


def _play_segments() -> tuple[tuple[int, int], ...]:
    """The play section in name order: (colour, -1) for a colour's troops, (-1, card) for a
    morale card (alexander < b... < companion < darius < g... < ... < shield < y...)."""
    keys = [(COLOUR_LETTERS[c], (c, -1)) for c in range(NUM_COLOURS)]
    keys += [(CARD_NAMES[card], (-1, card)) for card in MORALE]
    keys.sort()
    return tuple(seg for _, seg in keys)


_TROOPS_BY_NAME = _troops_by_name()
_PLAY_SEGMENTS = _play_segments()
_TROOP_SEGMENTS = tuple(seg for seg in _PLAY_SEGMENTS if seg[0] >= 0)


def _popcount(x: int) -> int:
    return x.bit_count()


class BattleLineState:
    """One Battle Line game in progress (see the module docstring for the turn structure)."""

    __slots__ = (
        "_claims",
        "_legal",
        "advanced",
        "claimed",
        "decks",
        "discards",
        "end_kind",
        "fog",
        "free",
        "full",
        "gone",
        "hand_size",
        "hands",
        "history",
        "known",
        "leader_played",
        "max_value",
        "mud",
        "passed",
        "passes",
        "phase",
        "placed",
        "ply",
        "reason",
        "scout_draws",
        "scout_returns",
        "scouted",
        "seed",
        "sides",
        "smask",
        "tactics_on",
        "tactics_played",
        "tops",
        "troop_all",
        "turn",
        "variant",
        "where",
        "winner",
    )

    seed: int
    variant: dict[str, str]
    history: list[str]

    # ------------------------------------------------------------------ construction

    def __init__(self, seed: int, variant: dict[str, str]) -> None:
        rules = variant.get("rules", "standard")
        if rules not in RULE_TABLE:
            raise GameError(f"unknown Battle Line rules {rules!r}; choose one of {RULES}")
        self.seed = seed
        self.variant = dict(variant)
        self.history = []
        self.tactics_on, self.hand_size, self.advanced, self.max_value = RULE_TABLE[rules]
        self.troop_all = troop_mask(self.max_value)
        self.ply = 0
        self.phase = P_PLAY
        self.turn = 0
        self.sides: list[tuple[int, ...]] = [() for _ in range(2 * NUM_FLAGS)]
        self.smask = [0] * (2 * NUM_FLAGS)
        self.placed = [-1] * NUM_CARDS  # decision at which a card arrived where it lies
        self.where = [-1] * NUM_CARDS  # side index (seat * 9 + flag) of a card on the board
        self.fog = [-1] * NUM_FLAGS  # owner of the Fog card beside a flag, -1 if none
        self.mud = [-1] * NUM_FLAGS
        self.claimed = [-1] * NUM_FLAGS
        self.hands = [0, 0]
        self.decks: list[list[int]] = [[], []]  # troops, tactics; top of deck = last item
        self.tops: list[list[list[int]]] = [[], []]  # Scout returns on top: [card, knowers]
        self.known = [0, 0]  # known[s]: cards in the other hand that seat s knows
        self.discards: list[list[int]] = [[], []]
        self.tactics_played = [0, 0]
        self.leader_played = [False, False]
        self.passes = 0  # consecutive passing turns with no claim in between
        self.passed = False
        self.scouted = False
        self.scout_draws = 0
        self.scout_returns = 0
        self.end_kind: str | None = None
        self.winner = -1
        self.reason = ""
        self.gone = 0  # troops face up (board or discard): not available for completions
        self.free = [(1 << NUM_FLAGS) - 1] * 2  # per seat: unclaimed flags with a free slot
        self.full = [0, 0]  # per seat: unclaimed flags where that side is complete
        self._claims: list[int] = []
        self._legal: list[str] | None = None

    def deal(self) -> None:
        """Shuffle both decks from the seed and deal the opening hands (seat 0 starts)."""
        rng = random.Random(self.seed)
        troops = list(iter_bits(self.troop_all))
        rng.shuffle(troops)
        tactics = list(range(NUM_TROOPS, NUM_CARDS)) if self.tactics_on else []
        rng.shuffle(tactics)
        self.decks = [troops, tactics]
        for seat in (0, 1):
            for _ in range(self.hand_size):
                self.hands[seat] |= 1 << troops.pop()
        self._start_turn()

    # ------------------------------------------------------------------ protocol basics

    @property
    def num_players(self) -> int:
        return 2

    @property
    def current_player(self) -> int:
        return -1 if self.phase == P_OVER else self.turn

    def is_terminal(self) -> bool:
        return self.phase == P_OVER

    def returns(self) -> list[float]:
        if self.winner < 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def scores(self) -> list[float]:
        """Series points: 5 to the winner, one per claimed flag to the loser (and on a draw,
        one per claimed flag to each player)."""
        flags = [float(self.claimed.count(s)) for s in (0, 1)]
        if self.winner >= 0:
            flags[self.winner] = 5.0
        return flags

    def end(self) -> tuple[GameEnd, str] | None:
        if self.end_kind is None:
            return None
        return GameEnd(self.end_kind), self.reason

    # ------------------------------------------------------------------ flags

    def capacity(self, flag: int) -> int:
        """Cards in a complete side at this flag: 3, or 4 with Mud."""
        return 4 if self.mud[flag] >= 0 else 3

    def moment(self, side: int) -> int:
        """The decision at which a side got its latest card (its completion moment)."""
        placed = self.placed
        return max((placed[c] for c in self.sides[side]), default=-1)

    def available(self) -> int:
        """Troops that could still complete a formation: not face up anywhere."""
        return self.troop_all & ~self.gone

    def side_rank(self, seat: int, flag: int) -> int:
        """The rank of a complete side (see :mod:`formations`), or NO_COMPLETION if short."""
        side = seat * NUM_FLAGS + flag
        n = self.capacity(flag)
        if len(self.sides[side]) != n:
            return fm.NO_COMPLETION
        return fm.complete_rank(self.smask[side], n, self.fog[flag] >= 0)

    def can_claim(self, seat: int, flag: int) -> bool:
        """Does the claim proof for ``seat`` at ``flag`` succeed now?"""
        if self.claimed[flag] >= 0:
            return False
        mine = seat * NUM_FLAGS + flag
        n = 4 if self.mud[flag] >= 0 else 3
        if len(self.sides[mine]) != n:
            return False
        fog = self.fog[flag] >= 0
        rank = fm.complete_rank(self.smask[mine], n, fog)
        theirs = (1 - seat) * NUM_FLAGS + flag
        have = len(self.sides[theirs])
        if have == n:
            other = fm.complete_rank(self.smask[theirs], n, fog)
            if rank != other:
                return rank > other
            return self.moment(mine) < self.moment(theirs)
        return not fm.can_beat(
            self.smask[theirs], n - have, self.troop_all & ~self.gone, n, fog, rank,
            self.max_value,
        )

    def claimable(self, seat: int) -> list[int]:
        """Flags (0-based) ``seat`` could claim now."""
        # The same proof as can_claim, inlined: this runs after every play.
        sides = self.sides
        smask = self.smask
        mud = self.mud
        fogs = self.fog
        base = seat * NUM_FLAGS
        obase = NUM_FLAGS - base
        out: list[int] = []
        avail = -1
        full = self.full[seat]
        while full:
            low = full & -full
            full ^= low
            f = low.bit_length() - 1
            n = 4 if mud[f] >= 0 else 3
            fog = fogs[f] >= 0
            rank = fm.complete_rank(smask[base + f], n, fog)
            have = len(sides[obase + f])
            if have == n:
                other = fm.complete_rank(smask[obase + f], n, fog)
                if rank > other or (
                    rank == other and self.moment(base + f) < self.moment(obase + f)
                ):
                    out.append(f)
                continue
            if avail < 0:
                avail = self.troop_all & ~self.gone
            if not fm.can_beat(smask[obase + f], n - have, avail, n, fog, rank, self.max_value):
                out.append(f)
        return out

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[str]:
        """The actions the player to move may take now, sorted (cached until the next apply)."""
        legal = self._legal
        if legal is None:
            legal = self._generate()
            self._legal = legal
        return list(legal)

    def _generate(self) -> list[str]:
        """Build the legal action list of the current phase."""
        phase = self.phase
        if phase == P_PLAY:
            return self._play_actions()
        if phase == P_CLAIM:
            return [*(_CLAIM_STR[f] for f in self._claims), _DONE]
        if phase == P_DRAW:
            return list(_DRAW_BOTH)
        if phase == P_SCOUT_DRAW:
            return list(_SCOUT_DRAW_BOTH)
        if phase == P_SCOUT_RETURN:
            out = [_RETURN_STR[c] for c in iter_bits(self.hands[self.turn])]
            out.sort()
            return out
        return []

    def _free_flags(self, seat: int) -> list[int]:
        free = self.free[seat]
        return [f for f in range(NUM_FLAGS) if free >> f & 1]

    def _refresh(self, flag: int) -> None:
        """Recompute both seats' free/full bits at one flag after it changed."""
        bit = 1 << flag
        keep = ~bit
        free = self.free
        full = self.full
        if self.claimed[flag] >= 0:
            free[0] &= keep
            free[1] &= keep
            full[0] &= keep
            full[1] &= keep
            return
        cap = 4 if self.mud[flag] >= 0 else 3
        for seat in (0, 1):
            have = len(self.sides[seat * NUM_FLAGS + flag])
            free[seat] = free[seat] | bit if have < cap else free[seat] & keep
            full[seat] = full[seat] | bit if have == cap else full[seat] & keep

    def refresh_all(self) -> None:
        """Recompute every derived per-flag mask (after building a position by hand)."""
        for flag in range(NUM_FLAGS):
            self._refresh(flag)

    def _play_actions(self) -> list[str]:
        """The play-phase actions, generated directly in sorted order (no sort of the whole)."""
        me = self.turn
        opp = 1 - me
        hand = self.hands[me]
        free = self.free[me]
        troops = hand & ALL_TROOPS
        can_place = bool(troops and free)
        tactics = hand & ALL_TACTICS
        use_tactics = bool(tactics) and self.tactics_played[me] <= self.tactics_played[opp]
        placeable = troops if free else 0
        if use_tactics and free:
            morale = tactics & MORALE_MASK
            if self.leader_played[me]:
                morale &= ~LEADER_MASK
            placeable |= morale
        play: list[str] = []
        if placeable:
            rows = _PLAY_ROWS
            for colour, card in _PLAY_SEGMENTS if placeable & ALL_TACTICS else _TROOP_SEGMENTS:
                if colour >= 0:
                    m = (placeable >> _COLOUR_SHIFT[colour]) & VALUE_BITS
                    if m:
                        for c in _TROOPS_BY_NAME[colour][m]:
                            play += rows[c][free]
                elif placeable >> card & 1:
                    play += rows[card][free]
        if not use_tactics:
            if can_place:
                return play
            play.insert(0, _PASS)
            return play
        before, after = self._tactic_actions(me, tactics)
        if not can_place:
            before.append(_PASS)
        before += play
        before += after
        return before

    def _tactic_actions(self, me: int, tactics: int) -> tuple[list[str], list[str]]:
        """Fog/Mud and guile actions: those sorting before ``pass``/``play`` (deserter, fog,
        mud) and those sorting after them (redeploy, scout, traitor), each in sorted order."""
        opp = 1 - me
        claimed = self.claimed
        open_flags = [f for f in range(NUM_FLAGS) if claimed[f] < 0]
        free = self._free_flags(me)
        sides = self.sides
        deserter: list[str] = []
        fog: list[str] = []
        mud: list[str] = []
        redeploy: list[str] = []
        scout: list[str] = []
        traitor: list[str] = []
        if tactics >> FOG & 1:
            fog = [_FOG_STR[f] for f in open_flags]
        if tactics >> MUD & 1:
            mud = [_MUD_STR[f] for f in open_flags]
        if tactics >> SCOUT & 1 and (self.decks[0] or self.decks[1]):
            scout = [_SCOUT]
        if tactics >> REDEPLOY & 1:
            base = me * NUM_FLAGS
            for f in open_flags:
                for card in sides[base + f]:
                    redeploy.append(_REDEPLOY_DISCARD_STR[card])
                    row = _REDEPLOY_STR[card]
                    redeploy += [row[g] for g in free if g != f]
            redeploy.sort()
        if tactics >> DESERTER & 1:
            base = opp * NUM_FLAGS
            for f in open_flags:
                deserter += [_DESERTER_STR[card] for card in sides[base + f]]
                if self.fog[f] == opp:
                    deserter.append(_DESERTER_STR[FOG])
                if self.mud[f] == opp:
                    deserter.append(_DESERTER_STR[MUD])
            deserter.sort()
        if tactics >> TRAITOR & 1:
            base = opp * NUM_FLAGS
            for f in open_flags:
                for card in sides[base + f]:
                    if card < NUM_TROOPS:
                        row = _TRAITOR_STR[card]
                        traitor += [row[g] for g in free]
            traitor.sort()
        return deserter + fog + mud, redeploy + scout + traitor

    # ------------------------------------------------------------------ applying actions

    def apply(self, action: str) -> None:
        """Play one decision: InvalidAction if it does not parse, IllegalAction (with the
        reason) if it parses but is not legal now; the state is unchanged on either error."""
        parsed = _PARSE_GET(action)
        if parsed is None:
            parsed = parse(action)
        legal = self._legal
        if legal is None:
            legal = self._generate()
            self._legal = legal
        if action not in legal:
            text = ACTION_STRINGS[parsed]
            if text not in legal:
                raise IllegalAction(f"{action!r} is not legal now: {self._why_illegal(parsed)}")
            action = text
        self._legal = None
        self.history.append(action)
        kind, card, arg = parsed
        me = self.turn
        if kind == PLAY:
            self._play_card(me, card, arg)
        elif kind == CLAIM:
            self._claim(me, arg)
        elif kind == DONE:
            self._leave_claims()
        elif kind == DRAW:
            self._draw(me, arg)
            self._end_turn()
        elif kind == PASS:
            self.passes += 1
            self.passed = True
            self._after_play()
        elif kind == SCOUT_DRAW:
            self._draw(me, arg)
            self.scout_draws -= 1
            self._scout_continue()
        elif kind == SCOUT_RETURN:
            self._scout_return(me, card)
        else:
            self._play_tactic(me, kind, card, arg)
        self.ply += 1
        if self.phase != P_OVER and self.ply >= MAX_DECISIONS:
            self._finish(GameEnd.MOVE_CAP, -1, f"decision cap of {MAX_DECISIONS} reached: draw")

    def _play_card(self, me: int, card: int, flag: int) -> None:
        bit = 1 << card
        self.hands[me] ^= bit
        self.known[1 - me] &= ~bit
        self._place(me, card, flag)
        if card >= NUM_TROOPS:
            self.tactics_played[me] += 1
            if bit & LEADER_MASK:
                self.leader_played[me] = True
        self.passes = 0
        self._after_play()

    def _place(self, seat: int, card: int, flag: int) -> None:
        side = seat * NUM_FLAGS + flag
        self.sides[side] = (*self.sides[side], card)
        self.smask[side] |= 1 << card
        self.placed[card] = self.ply
        self.where[card] = side
        if card < NUM_TROOPS:
            self.gone |= 1 << card
        # only this seat's side grew: update its free/complete bits at this flag
        have = len(self.sides[side])
        cap = 4 if self.mud[flag] >= 0 else 3
        if have >= cap:
            bit = 1 << flag
            self.free[seat] &= ~bit
            if have == cap and self.claimed[flag] < 0:
                self.full[seat] |= bit

    def _lift(self, card: int) -> int:
        """Take a card off the board; returns the side index it came from."""
        side = self.where[card]
        self.sides[side] = tuple(c for c in self.sides[side] if c != card)
        self.smask[side] &= ~(1 << card)
        self.where[card] = -1
        self.placed[card] = -1
        self._refresh(side % NUM_FLAGS)
        return side

    def _play_tactic(self, me: int, kind: int, card: int, arg: int) -> None:
        opp = 1 - me
        bit = 1 << KIND_CARD[kind]
        self.hands[me] ^= bit
        self.known[opp] &= ~bit
        self.tactics_played[me] += 1
        self.passes = 0
        if kind == FOG_A:
            self.fog[arg] = me
            self.placed[FOG] = self.ply
        elif kind == MUD_A:
            self.mud[arg] = me
            self.placed[MUD] = self.ply
            self._refresh(arg)
        elif kind == SCOUT_A:
            self.discards[me].append(SCOUT)
            self.scouted = True
            self.scout_draws = 3
            self.phase = P_SCOUT_DRAW
            self._scout_continue()
            return
        elif kind == REDEPLOY_A:
            self.discards[me].append(REDEPLOY)
            self._lift(card)
            if arg == DISCARD:
                self.discards[me].append(card)
            else:
                self._place(me, card, arg)
        elif kind == DESERTER_A:
            self.discards[me].append(DESERTER)
            self._desert(opp, card)
        else:  # TRAITOR
            self.discards[me].append(TRAITOR)
            self._lift(card)
            self._place(me, card, arg)
        self._after_play()

    def _desert(self, victim: int, card: int) -> None:
        """Deserter: discard ``card`` from ``victim``'s side (Mud leaving trims 4-card sides)."""
        if card == FOG:
            flag = self.fog.index(victim)
            self.fog[flag] = -1
            self.placed[FOG] = -1
            self.discards[victim].append(FOG)
            return
        if card == MUD:
            flag = self.mud.index(victim)
            self.mud[flag] = -1
            self.placed[MUD] = -1
            self.discards[victim].append(MUD)
            self._refresh(flag)
            for seat in (0, 1):
                side = seat * NUM_FLAGS + flag
                if len(self.sides[side]) == 4:
                    last = max(self.sides[side], key=self.placed.__getitem__)
                    self._lift(last)
                    self.discards[seat].append(last)
            return
        self._lift(card)
        self.discards[victim].append(card)

    def _claim(self, me: int, flag: int) -> None:
        self.claimed[flag] = me
        self._refresh(flag)
        self.passes = 0
        self._claims.remove(flag)
        won = self._victory(me)
        if won:
            self._finish(GameEnd.NORMAL, me, won)
        elif not self._claims:
            self._leave_claims()

    def _victory(self, seat: int) -> str:
        """The reason text if ``seat`` has won, else an empty string."""
        owned = [f for f in range(NUM_FLAGS) if self.claimed[f] == seat]
        for f in range(NUM_FLAGS - 2):
            if f in owned and f + 1 in owned and f + 2 in owned:
                return f"seat {seat} breakthrough on flags {f + 1}-{f + 2}-{f + 3}"
        if len(owned) >= 5:
            listed = ", ".join(str(f + 1) for f in owned)
            return f"seat {seat} envelopment with {len(owned)} flags ({listed})"
        return ""

    def _finish(self, kind: GameEnd, winner: int, reason: str) -> None:
        self.phase = P_OVER
        self.end_kind = kind.value
        self.winner = winner
        self.reason = reason
        self._claims = []
        self._legal = None

    def _draw(self, seat: int, deck: int) -> None:
        card = self.decks[deck].pop()
        self.hands[seat] |= 1 << card
        tops = self.tops[deck]
        if tops:
            _, knowers = tops.pop()
            other = 1 - seat
            if knowers >> other & 1:
                self.known[other] |= 1 << card

    def _scout_continue(self) -> None:
        """Take the Scout draws that need no decision, then move on to the returns."""
        me = self.turn
        decks = self.decks
        while self.scout_draws > 0 and (decks[0] or decks[1]):
            if decks[0] and decks[1]:
                self.phase = P_SCOUT_DRAW
                return
            self._draw(me, 0 if decks[0] else 1)
            self.scout_draws -= 1
        self.scout_draws = 0
        self.scout_returns = max(0, _popcount(self.hands[me]) - self.hand_size)
        if self.scout_returns:
            self.phase = P_SCOUT_RETURN
        else:
            self._after_play()

    def _scout_return(self, me: int, card: int) -> None:
        self.hands[me] ^= 1 << card
        deck = 0 if card < NUM_TROOPS else 1
        # The opponent sees only which deck the card went to: any card of that kind it knew
        # in this hand may be the one put back, so it no longer knows any of them for sure.
        self.known[1 - me] &= ~(ALL_TROOPS if deck == 0 else ALL_TACTICS)
        self.decks[deck].append(card)
        self.tops[deck].append([card, 1 << me])
        self.scout_returns -= 1
        if not self.scout_returns:
            self._after_play()

    def _after_play(self) -> None:
        """The card (or pass) is down: standard timing claims now, then the draw."""
        if not self.advanced:
            claims = self.claimable(self.turn)
            if claims:
                self._claims = claims
                self.phase = P_CLAIM
                return
        self._to_draw()

    def _leave_claims(self) -> None:
        self._claims = []
        if self.advanced:
            self.phase = P_PLAY
        else:
            self._to_draw()

    def _to_draw(self) -> None:
        me = self.turn
        if not (self.passed or self.scouted) and _popcount(self.hands[me]) < self.hand_size:
            d0, d1 = self.decks
            if d0 and d1:
                self.phase = P_DRAW
                return
            if d0 or d1:
                self._draw(me, 0 if d0 else 1)
        self._end_turn()

    def _end_turn(self) -> None:
        if self.passes >= 2:
            self._finish(
                GameEnd.STALEMATE, -1,
                "stalemate: both players passed in a row without a claim between: draw",
            )
            return
        self.turn = 1 - self.turn
        self.passed = False
        self.scouted = False
        self._start_turn()

    def _start_turn(self) -> None:
        if self.advanced:
            claims = self.claimable(self.turn)
            if claims:
                self._claims = claims
                self.phase = P_CLAIM
                return
        self.phase = P_PLAY

    # ------------------------------------------------------------------ explanations

    def _why_illegal(self, parsed: tuple[int, int, int]) -> str:
        """Why a well-formed action is not legal now (slow path, for error messages only)."""
        kind, card, arg = parsed
        phase = PHASE_NAMES[self.phase]
        if self.phase == P_OVER:
            return "the game is over"
        me = self.turn
        expected = {
            P_PLAY: (PLAY, FOG_A, MUD_A, SCOUT_A, REDEPLOY_A, DESERTER_A, TRAITOR_A, PASS),
            P_CLAIM: (CLAIM, DONE),
            P_DRAW: (DRAW,),
            P_SCOUT_DRAW: (SCOUT_DRAW,),
            P_SCOUT_RETURN: (SCOUT_RETURN,),
        }[self.phase]
        if kind not in expected:
            verbs = ", ".join(KIND_NAMES[k] for k in expected)
            return f"seat {me} is in the {phase} phase, which takes: {verbs}"
        flag_word = f"flag {arg + 1}" if arg >= 0 else ""
        if kind == CLAIM:
            if self.claimed[arg] >= 0:
                return f"{flag_word} is already claimed by seat {self.claimed[arg]}"
            return f"the claim proof for {flag_word} does not succeed"
        if kind == PASS:
            return "a troop can still be placed, so passing is not allowed"
        if kind in (DRAW, SCOUT_DRAW):
            return f"the {DECKS[arg]} deck is empty"
        if card >= 0 and kind in (PLAY, FOG_A, MUD_A, SCOUT_A, REDEPLOY_A, DESERTER_A,
                                  TRAITOR_A, SCOUT_RETURN):
            held = card if kind in (PLAY, SCOUT_RETURN) else KIND_CARD[kind]
            if not (self.card_in_game(held)):
                return f"{CARD_NAMES[held]} is not used in the {self.variant['rules']} rules"
            if not self.hands[me] >> held & 1:
                return f"seat {me} does not hold {CARD_NAMES[held]}"
            if kind == SCOUT_RETURN:
                return "unexpected"
            if held >= NUM_TROOPS:
                if self.tactics_played[me] > self.tactics_played[1 - me]:
                    return (f"seat {me} has played more tactics ({self.tactics_played[me]}) "
                            f"than the opponent ({self.tactics_played[1 - me]})")
                if held in (60, 61) and self.leader_played[me]:
                    return f"seat {me} has already played a leader this game"
        if arg >= 0 and kind != SCOUT_RETURN and self.claimed[arg] >= 0:
            return f"{flag_word} is claimed"
        if kind == PLAY:
            return f"seat {me}'s side of {flag_word} is full"
        if kind == SCOUT_A:
            return "both decks are empty"
        if kind == TRAITOR_A and card >= NUM_TROOPS:
            return f"Traitor takes troops only, not {CARD_NAMES[card]}"
        if kind == REDEPLOY_A and card in (FOG, MUD):
            return "environment cards cannot be redeployed"
        if kind in (REDEPLOY_A, TRAITOR_A):
            owner = me if kind == REDEPLOY_A else 1 - me
            side = self.where[card]
            if side < 0 or side // NUM_FLAGS != owner:
                return f"{CARD_NAMES[card]} is not on seat {owner}'s side of the board"
            if self.claimed[side % NUM_FLAGS] >= 0:
                return f"{CARD_NAMES[card]} lies at a claimed flag"
            if kind == REDEPLOY_A and arg == side % NUM_FLAGS:
                return "Redeploy must move the card to another flag"
            return f"seat {me}'s side of {flag_word} is full"
        if kind == DESERTER_A:
            return f"{CARD_NAMES[card]} is not an opponent's card at an unclaimed flag"
        return "not allowed in this position"

    def card_in_game(self, card: int) -> bool:
        """Is this card used under the current rules?"""
        if card < NUM_TROOPS:
            return bool(self.troop_all >> card & 1)
        return self.tactics_on

    # ------------------------------------------------------------------ copies and JSON

    def clone(self) -> BattleLineState:
        """An independent copy (cheap: flat lists of ints and tuples)."""
        new = BattleLineState.__new__(BattleLineState)
        new.seed = self.seed
        new.variant = self.variant
        new.history = self.history.copy()
        new.tactics_on = self.tactics_on
        new.hand_size = self.hand_size
        new.advanced = self.advanced
        new.max_value = self.max_value
        new.troop_all = self.troop_all
        new.ply = self.ply
        new.phase = self.phase
        new.turn = self.turn
        new.sides = self.sides.copy()
        new.smask = self.smask.copy()
        new.placed = self.placed.copy()
        new.where = self.where.copy()
        new.fog = self.fog.copy()
        new.mud = self.mud.copy()
        new.claimed = self.claimed.copy()
        new.hands = self.hands.copy()
        new.decks = [self.decks[0].copy(), self.decks[1].copy()]
        new.tops = [[e.copy() for e in self.tops[0]], [e.copy() for e in self.tops[1]]]
        new.known = self.known.copy()
        new.discards = [self.discards[0].copy(), self.discards[1].copy()]
        new.tactics_played = self.tactics_played.copy()
        new.leader_played = self.leader_played.copy()
        new.passes = self.passes
        new.passed = self.passed
        new.scouted = self.scouted
        new.scout_draws = self.scout_draws
        new.scout_returns = self.scout_returns
        new.end_kind = self.end_kind
        new.winner = self.winner
        new.reason = self.reason
        new.gone = self.gone
        new.free = self.free.copy()
        new.full = self.full.copy()
        new._claims = self._claims.copy()
        new._legal = self._legal
        return new

    def __getstate__(self) -> JSON:
        return self.to_json()

    def __setstate__(self, data: JSON) -> None:
        other = from_json(data)
        for name in BattleLineState.__slots__:
            setattr(self, name, getattr(other, name))

    def to_json(self) -> JSON:
        """The full state as JSON (hidden cards included: this is the referee's view)."""
        return {
            "game": GAME_NAME,
            "seed": self.seed,
            "variant": dict(self.variant),
            "history": list(self.history),
            "ply": self.ply,
            "phase": PHASE_NAMES[self.phase],
            "turn": self.turn,
            "sides": [[[c, self.placed[c]] for c in side] for side in self.sides],
            "fog": list(self.fog),
            "fog_ply": self.placed[FOG],
            "mud": list(self.mud),
            "mud_ply": self.placed[MUD],
            "claimed": list(self.claimed),
            "hands": [sorted(iter_bits(h)) for h in self.hands],
            "decks": [list(d) for d in self.decks],
            "tops": [[list(e) for e in t] for t in self.tops],
            "known": [sorted(iter_bits(k)) for k in self.known],
            "discards": [list(d) for d in self.discards],
            "tactics_played": list(self.tactics_played),
            "leader_played": list(self.leader_played),
            "passes": self.passes,
            "passed": self.passed,
            "scouted": self.scouted,
            "scout_draws": self.scout_draws,
            "scout_returns": self.scout_returns,
            "end": self.end_kind,
            "winner": self.winner,
            "reason": self.reason,
        }

    # ------------------------------------------------------------------ observation

    def observation(self, seat: int) -> JSON:
        """What ``seat`` may know: the board, discards, counts, its own hand and what it
        learnt through Scout (returned cards on deck tops, cards seen going into the other
        hand)."""
        names = CARD_NAMES
        flags = []
        for f in range(NUM_FLAGS):
            flags.append({
                "flag": f + 1,
                "claimed": self.claimed[f],
                "fog": self.fog[f],
                "mud": self.mud[f],
                "sides": [
                    [[names[c], self.placed[c]] for c in self.sides[s * NUM_FLAGS + f]]
                    for s in (0, 1)
                ],
            })
        return {
            "game": GAME_NAME,
            "seat": seat,
            "current_player": self.current_player,
            "variant": dict(self.variant),
            "rules_version": RULES_VERSION,
            "decisions": self.ply,
            "phase": PHASE_NAMES[self.phase],
            "turn": self.turn,
            "flags": flags,
            "fog_ply": self.placed[FOG],
            "mud_ply": self.placed[MUD],
            "discards": [[names[c] for c in d] for d in self.discards],
            "decks": {"troops": len(self.decks[0]), "tactics": len(self.decks[1])},
            "deck_tops": {
                DECKS[d]: [names[c] if k >> seat & 1 else "?" for c, k in reversed(self.tops[d])]
                for d in (0, 1)
            },
            "hand": names_of(self.hands[seat]),
            "hand_sizes": [_popcount(h) for h in self.hands],
            "hand_counts": [
                [_popcount(h & ALL_TROOPS), _popcount(h & ALL_TACTICS)] for h in self.hands
            ],
            "opponent_known": names_of(self.known[seat]),
            # cards of this hand the opponent knows (it put them back with Scout, then this
            # seat drew them): this seat saw the "?" it drew, so it knows this too
            "known_by_opponent": names_of(self.known[1 - seat]),
            "tactics_played": list(self.tactics_played),
            "leader_played": list(self.leader_played),
            "passes": self.passes,
            "passed": self.passed,
            "scouted": self.scouted,
            "scout_draws": self.scout_draws,
            "scout_returns": self.scout_returns,
            "claimable": [f + 1 for f in self._claims] if self.phase == P_CLAIM else [],
            "end": self.end_kind,
            "winner": self.winner,
            "reason": self.reason,
        }

    # ------------------------------------------------------------------ readable forms

    def __str__(self) -> str:
        from games.battleline.render import render

        return render(self)

    def __repr__(self) -> str:
        flags = "".join("." if c < 0 else str(c) for c in self.claimed)
        return (
            f"<BattleLineState seed={self.seed} rules={self.variant.get('rules')} "
            f"ply={self.ply} phase={PHASE_NAMES[self.phase]} turn={self.turn} flags={flags} "
            f"end={self.end_kind}>"
        )


# ---------------------------------------------------------------------- construction helpers


def new_state(seed: int, variant: dict[str, str]) -> BattleLineState:
    """A freshly dealt game."""
    state = BattleLineState(seed, variant)
    state.deal()
    return state


def _restore_common(state: BattleLineState, data: JSON) -> None:
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


def _finish_restore(state: BattleLineState) -> None:
    """Recompute the derived fields (face-up troops, the claim list) after a restore."""
    gone = 0
    for side in state.sides:
        for c in side:
            gone |= 1 << c
    for pile in state.discards:
        for c in pile:
            gone |= 1 << c
    state.gone = gone & ALL_TROOPS
    state.refresh_all()
    if state.phase == P_CLAIM:
        state._claims = state.claimable(state.turn)


def _set_side(state: BattleLineState, side: int, cards: list[tuple[int, int]]) -> None:
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
    _restore_common(state, data)
    for side, cards in enumerate(data["sides"]):
        _set_side(state, side, [(int(c), int(p)) for c, p in cards])
    state.fog = [int(x) for x in data["fog"]]
    state.mud = [int(x) for x in data["mud"]]
    state.claimed = [int(x) for x in data["claimed"]]
    state.hands = [sum(1 << int(c) for c in h) for h in data["hands"]]
    state.decks = [[int(c) for c in d] for d in data["decks"]]
    state.tops = [[[int(c), int(k)] for c, k in t] for t in data["tops"]]
    state.known = [sum(1 << int(c) for c in k) for k in data["known"]]
    state.discards = [[int(c) for c in d] for d in data["discards"]]
    _finish_restore(state)
    return state


def sample_from_observation(obs: JSON, rng: random.Random) -> BattleLineState:
    """A full state consistent with ``obs``: the hidden cards dealt at random.

    The observing seat's hand, the cards it knows in the other hand and the deck tops it knows
    stay where they are; every other unseen card is shuffled into the opponent's hand (keeping
    its public troop/tactic counts), the unknown deck tops and the rest of the decks.
    """
    seat = int(obs["seat"])
    opp = 1 - seat
    state = BattleLineState(0, dict(obs["variant"]))
    _restore_common(state, obs)
    ids = CARD_IDS
    for f, flag in enumerate(obs["flags"]):
        state.claimed[f] = int(flag["claimed"])
        state.fog[f] = int(flag["fog"])
        state.mud[f] = int(flag["mud"])
        for s in (0, 1):
            _set_side(state, s * NUM_FLAGS + f, [(ids[n], int(p)) for n, p in flag["sides"][s]])
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
        missing = int(counts[d]) - _popcount(known & (ALL_TROOPS if d == 0 else ALL_TACTICS))
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
    _finish_restore(state)
    return state
