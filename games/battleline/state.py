"""The Battle Line position and its rules.

A :class:`BattleLineState` holds everything about one game: the nine flags with every seat's
side (cards in placement order, each card remembering the decision at which it arrived), the
environment cards, the claimed flags, every hand (bit masks), both decks (lists, top last), the
discard piles, the tactics counters and the phase of the current turn.

A turn is a sequence of decisions made by the player whose turn it is:

* standard timing: ``play`` (or a tactic, or ``pass``) → any ``claim``\\s, ended by ``done`` →
  ``draw``;
* advanced timing: ``claim``\\s (ended by ``done``) → ``play`` → ``draw``.

Decisions with a single possible answer are taken automatically: the claim phase is skipped when
no flag can be claimed, and a draw (or Scout draw) happens by itself when only one deck has
cards. Everything else is an explicit action string (see :mod:`games.battleline.notation`).

The package keeps one concern per module: :mod:`cards` (ids and masks), :mod:`formations`
(the claim proof), :mod:`notation` (action strings), this module (the position and the rules of
a turn), :mod:`setup` (the deal), :mod:`observe` (a seat's view and states sampled from it),
:mod:`codec` (JSON), :mod:`explain` (why an action is illegal), :mod:`render` (``str``)
and :mod:`flags` (which seats meet at each flag).
Two states are equal when their JSON is; ``repr`` is an expression that rebuilds the state.

Board layout: side ``seat * NUM_FLAGS + flag`` holds a seat's cards at a flag, and every
per-flag fact (environment, claim, free slots) is a list or mask over flags. Which two seats
face each other at a flag, each seat's line and what wins come from :mod:`flags`: with three
players (``players=3``) a seat only ever has cards on the six flags of its line, the sides of
the third seat at a flag stay empty, and every rule asks the flag for the opponent.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Final

from mypy_extensions import mypyc_attr

from games.battleline import formations as fm
from games.battleline.cards import (
    ALL_TACTICS,
    ALL_TROOPS,
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
    troop_mask,
)
from games.battleline.flags import layout_for
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
from games.protocol import JSON, GameEnd, GameError, IllegalAction, VariantError

GAME_NAME: Final = "battleline"
RULES_VERSION: Final = "bl-1"
MAX_DECISIONS: Final = 1000

# Phases of a turn.
P_PLAY, P_CLAIM, P_DRAW, P_SCOUT_DRAW, P_SCOUT_RETURN, P_OVER = range(6)
PHASE_NAMES: Final = ("play", "claim", "draw", "scout-draw", "scout-return", "over")

RULES: Final = ("standard", "no-tactics", "advanced", "schotten-totten")
PLAYERS: Final = ("2", "3")
_MOVE_CAP: Final = GameEnd.MOVE_CAP.value

# Per rules choice: (uses tactics, hand size, advanced claim timing, highest troop value).
RULE_TABLE: Final[dict[str, tuple[bool, int, bool, int]]] = {
    "standard": (True, 7, False, 10),
    "no-tactics": (False, 6, False, 10),
    "advanced": (True, 7, True, 10),
    "schotten-totten": (False, 6, True, 9),
}


def player_count(variant: dict[str, str]) -> int:
    """The number of players a variant asks for (2 unless ``players=3``); refuses a rules
    choice that has no game for that many players."""
    players = variant.get("players", "2")
    if players not in PLAYERS:
        raise VariantError(
            f"battleline variant players={players!r} is not allowed; choose one of: 2, 3"
        )
    rules = variant.get("rules", "standard")
    if players == "3" and rules == "schotten-totten":
        raise VariantError(
            "battleline rules=schotten-totten is for 2 players only (Schotten-Totten has no "
            "three-player game); with players=3 use rules=standard, no-tactics or advanced"
        )
    return int(players)

# --- precomputed action strings, indexed for speed ---------------------------------------
_PLAY_STR: Final = [[ACTION_STRINGS.get((PLAY, c, f), "") for f in range(NUM_FLAGS)]
             for c in range(NUM_CARDS)]
_TRAITOR_STR: Final = [[ACTION_STRINGS.get((TRAITOR_A, c, f), "") for f in range(NUM_FLAGS)]
                for c in range(NUM_CARDS)]
_REDEPLOY_STR: Final = [[ACTION_STRINGS.get((REDEPLOY_A, c, f), "") for f in range(NUM_FLAGS)]
                 for c in range(NUM_CARDS)]
_REDEPLOY_DISCARD_STR: Final = [ACTION_STRINGS.get((REDEPLOY_A, c, DISCARD), "")
                         for c in range(NUM_CARDS)]
_DESERTER_STR: Final = [ACTION_STRINGS.get((DESERTER_A, c, -1), "") for c in range(NUM_CARDS)]
_FOG_STR: Final = [ACTION_STRINGS[(FOG_A, FOG, f)] for f in range(NUM_FLAGS)]
_MUD_STR: Final = [ACTION_STRINGS[(MUD_A, MUD, f)] for f in range(NUM_FLAGS)]
_CLAIM_STR: Final = [ACTION_STRINGS[(CLAIM, -1, f)] for f in range(NUM_FLAGS)]
_RETURN_STR: Final = [ACTION_STRINGS[(SCOUT_RETURN, c, -1)] for c in range(NUM_CARDS)]
_DRAW_BOTH: Final = sorted([ACTION_STRINGS[(DRAW, -1, 0)], ACTION_STRINGS[(DRAW, -1, 1)]])
_SCOUT_DRAW_BOTH: Final = sorted(
    [ACTION_STRINGS[(SCOUT_DRAW, -1, 0)], ACTION_STRINGS[(SCOUT_DRAW, -1, 1)]]
)
_PARSE_GET: Final = PARSE.get
_DONE: Final = ACTION_STRINGS[(DONE, -1, -1)]
_PASS: Final = ACTION_STRINGS[(PASS, -1, -1)]
_SCOUT: Final = ACTION_STRINGS[(SCOUT_A, SCOUT, -1)]
# The public form of a Scout put-back (the deck, not the card) and of the draws taken
# automatically (when only one deck has cards): what the public log records.
_RETURN_PUBLIC: Final = [f"scout-return {DECKS[0 if c < NUM_TROOPS else 1]}"
                          for c in range(NUM_CARDS)]
_AUTO_DRAW: Final = (ACTION_STRINGS[(DRAW, -1, 0)], ACTION_STRINGS[(DRAW, -1, 1)])
_AUTO_SCOUT_DRAW: Final = (ACTION_STRINGS[(SCOUT_DRAW, -1, 0)],
                           ACTION_STRINGS[(SCOUT_DRAW, -1, 1)])
# A claim verdict, remembered per side between claim checks (see claimable): not known, or
# known for as long as nothing at the flag changes: claimable, or lost (the facing side is
# complete and wins); a verdict >= 0 is a witness (see formations.still_beats): not claimable
# while those troops stay available.
_UNKNOWN, _CLAIMABLE, _LOST = -1, -2, -3
_LOG_KEEP: Final = 24  # trim the public log (of what every seat has seen) beyond this many events


def _trim(log: list[tuple[int, str, bool]], seen: list[int]) -> None:
    """Drop the events every seat has seen (those before each seat's last decision)."""
    cut = min(seen)
    if cut:
        del log[:cut]
        for s in range(len(seen)):
            seen[s] -= cut


def _listed(legal: list[str], action: str) -> bool:
    """Is ``action`` in a legal action list? The lists come sorted (and unique), so a binary
    search answers: a long play list (Traitor and Redeploy add dozens) is not scanned."""
    i = bisect_left(legal, action)
    return i < len(legal) and legal[i] == action


def _card_rows(names: list[list[str]]) -> list[list[tuple[str, ...]]]:
    """rows[card][flag mask]: a card's actions onto those flags (``names[card][flag]``, empty
    for a card that has none), in flag order."""
    rows: list[list[tuple[str, ...]]] = []
    for row in names:
        masks: list[tuple[str, ...]] = [()]
        if row[0]:  # each flag doubles the table: the masks with it are those without, plus it
            for f in range(NUM_FLAGS):
                one = (row[f],)
                masks += [m + one for m in masks]
        rows.append(masks if len(masks) > 1 else masks * (1 << NUM_FLAGS))
    return rows


_PLAY_ROWS: Final = _card_rows(_PLAY_STR)
_TRAITOR_ROWS: Final = _card_rows(_TRAITOR_STR)
_REDEPLOY_ROWS: Final = _card_rows(_REDEPLOY_STR)
# per 9-bit flag mask: its flags in order, and the Fog and Mud actions onto them
_FLAG_LISTS: Final = tuple(tuple(f for f in range(NUM_FLAGS) if m >> f & 1)
                           for m in range(1 << NUM_FLAGS))
_FOG_ROWS: Final = tuple(tuple(_FOG_STR[f] for f in flags) for flags in _FLAG_LISTS)
_MUD_ROWS: Final = tuple(tuple(_MUD_STR[f] for f in flags) for flags in _FLAG_LISTS)
# tactics that give actions of their own (not a play onto a flag)
_NON_MORALE: Final = ALL_TACTICS & ~MORALE_MASK

_COLOUR_SHIFT: Final = tuple(c * NUM_VALUES for c in range(NUM_COLOURS))
_OPEN_MASKS: Final[dict[tuple[int, ...], int]] = {}


def _open_mask(claimed: list[int]) -> int:
    """The mask of the unclaimed flags (remembered per claim pattern: at most 4 ** 9)."""
    key = tuple(claimed)
    mask = _OPEN_MASKS.get(key)
    if mask is None:
        mask = _OPEN_MASKS[key] = sum(1 << f for f in range(NUM_FLAGS) if claimed[f] < 0)
    return mask


def _troops_by_name() -> list[list[tuple[int, ...]]]:
    """_TROOPS_BY_NAME[colour][value mask]: those troops in the order of their names
    (``b1 < b10 < b2 < ...``), so play actions come out sorted without sorting."""
    table = []
    for colour in range(NUM_COLOURS):
        base = colour * NUM_VALUES
        # built in name order, one value at a time: each doubles the sets made so far
        cards: list[tuple[int, ...]] = [()]
        masks = [0]
        for v in sorted(range(NUM_VALUES), key=lambda v: CARD_NAMES[base + v] + " "):
            one, bit = (base + v,), 1 << v
            cards += [c + one for c in cards]
            masks += [m | bit for m in masks]
        row: list[tuple[int, ...]] = [()] * (1 << NUM_VALUES)
        for m, troops in zip(masks, cards, strict=True):
            row[m] = troops
        table.append(row)
    return table


def _play_segments() -> tuple[tuple[int, int], ...]:
    """The play section in name order: (colour, -1) for a colour's troops, (-1, card) for a
    morale card (alexander < b... < companion < darius < g... < ... < shield < y...)."""
    keys = [(COLOUR_LETTERS[c], (c, -1)) for c in range(NUM_COLOURS)]
    keys += [(CARD_NAMES[card], (-1, card)) for card in MORALE]
    keys.sort()
    return tuple(seg for _, seg in keys)


_TROOPS_BY_NAME: Final = _troops_by_name()
_PLAY_SEGMENTS: Final = _play_segments()
_MORALE_NAMES: Final = tuple(card for colour, card in _PLAY_SEGMENTS if colour < 0)

_RowTable = tuple[tuple[int, tuple[tuple[list[tuple[str, ...]], ...], ...]], ...]


def _name_ordered(rows: list[list[tuple[str, ...]]]) -> _RowTable:
    """Per colour in name order: (its shift, and per value mask the rows of those troops in
    name order): what :func:`_troop_actions` walks."""
    return tuple(
        (_COLOUR_SHIFT[colour],
         tuple(tuple(rows[c] for c in cards) for cards in _TROOPS_BY_NAME[colour]))
        for colour, _ in _PLAY_SEGMENTS if colour >= 0
    )


_PLAY_TABLE: Final = _name_ordered(_PLAY_ROWS)
_TRAITOR_TABLE: Final = _name_ordered(_TRAITOR_ROWS)


def _troop_actions(troops: int, table: _RowTable, flags: int) -> list[str]:
    """The actions of some troops onto some flags, in sorted order: the rows of ``table``
    (``_PLAY_TABLE`` or ``_TRAITOR_TABLE``) at the flag mask ``flags``, troops in name order."""
    out: list[str] = []
    for shift, by_values in table:
        values = troops >> shift & VALUE_BITS
        if values:
            for row in by_values[values]:
                out += row[flags]
    return out


class Parts:
    """The functions of the modules above this one that a state's methods hand work to.

    :mod:`codec`, :mod:`observe`, :mod:`explain`, :mod:`render` and :mod:`setup` import the
    state, so the state does not import them (the arrows point one way, tests/harness/
    test_arrows.py): the package (``games/battleline/__init__.py``) hands them over once, with
    :meth:`assemble`, when it is imported, which is before any state exists (importing this
    module imports its package first).
    """

    to_json: Callable[[BattleLineState], JSON]
    from_json: Callable[[JSON], BattleLineState]
    observe: Callable[[BattleLineState, int], JSON]
    why_illegal: Callable[[BattleLineState, tuple[int, int, int]], str]
    render: Callable[[BattleLineState], str]
    new_state: Callable[[int, dict[str, str]], BattleLineState]

    def assemble(self, *, to_json: Callable[[BattleLineState], JSON],
                 from_json: Callable[[JSON], BattleLineState],
                 observe: Callable[[BattleLineState, int], JSON],
                 why_illegal: Callable[[BattleLineState, tuple[int, int, int]], str],
                 render: Callable[[BattleLineState], str],
                 new_state: Callable[[int, dict[str, str]], BattleLineState]) -> None:
        self.to_json, self.from_json, self.observe = to_json, from_json, observe
        self.why_illegal, self.render, self.new_state = why_illegal, render, new_state


PARTS: Final = Parts()


@mypyc_attr(allow_interpreted_subclasses=True)  # test doubles subclass it (compiled: games.native)
class BattleLineState:
    """One Battle Line game in progress (see the module docstring for the turn structure)."""

    __slots__ = (
        "_claims",
        "_legal",
        "_verdicts",
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
        "layout",
        "leader_played",
        "log",
        "max_value",
        "mud",
        "n",
        "next_seat",
        "opponent_side",
        "opponents",
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
        "seen",
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
    log: list[tuple[int, str, bool]]

    # ------------------------------------------------------------------ construction

    def __init__(self, seed: int, variant: dict[str, str], *, blank: bool = False) -> None:
        """A new game's position before the deal (``blank``: nothing set, for :meth:`clone` to
        fill; a compiled class cannot be made without its ``__init__``)."""
        if blank:
            return
        rules = variant.get("rules", "standard")
        if rules not in RULE_TABLE:
            raise GameError(f"unknown Battle Line rules {rules!r}; choose one of {RULES}")
        n = player_count(variant)
        self.n = n
        self.layout = layout = layout_for(n)
        # from the layout, kept at hand for the hot paths:
        self.opponents = layout.opponents  # per seat: the other seats
        self.opponent_side = layout.opponent_side  # [seat][flag]: the side facing that seat
        self.next_seat = (*range(1, n), 0)  # per seat: who moves next
        self.seed = seed
        self.variant = dict(variant)
        self.history = []
        # The public log: (seat, public action, automatic) per event, oldest first, kept from
        # the oldest event some seat has not seen decided; seen[seat]: where that seat's
        # "events since you last decided" begin (see observe.py).
        self.log = []
        self.seen = [0] * n
        self.tactics_on, self.hand_size, self.advanced, self.max_value = RULE_TABLE[rules]
        self.troop_all = troop_mask(self.max_value)
        self.ply = 0
        self.phase = P_PLAY
        self.turn = 0
        self.sides: list[tuple[int, ...]] = [() for _ in range(n * NUM_FLAGS)]
        self.smask = [0] * (n * NUM_FLAGS)
        self.placed = [-1] * NUM_CARDS  # decision at which a card arrived where it lies
        self.where = [-1] * NUM_CARDS  # side index (seat * 9 + flag) of a card on the board
        self.fog = [-1] * NUM_FLAGS  # owner of the Fog card beside a flag, -1 if none
        self.mud = [-1] * NUM_FLAGS
        self.claimed = [-1] * NUM_FLAGS
        self.hands = [0] * n
        self.decks: list[list[int]] = [[], []]  # troops, tactics; top of deck = last item
        self.tops: list[list[list[int]]] = [[], []]  # Scout returns on top: [card, knowers]
        self.known = [0] * n  # known[s]: cards in the other hands that seat s knows
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self.tactics_played = [0] * n
        self.leader_played = [False] * n
        self.passes = 0  # consecutive passing turns with no claim in between
        self.passed = False
        self.scouted = False
        self.scout_draws = 0
        self.scout_returns = 0
        self.end_kind: str | None = None
        self.winner = -1
        self.reason = ""
        self.gone = 0  # troops face up (board or discard): not available for completions
        self.free = list(layout.line_mask)  # per seat: unclaimed flags with a free slot
        self.full = [0] * n  # per seat: unclaimed flags where that side is complete
        self._claims: list[int] = []
        self._legal: list[str] | None = None
        self._verdicts = [_UNKNOWN] * (n * NUM_FLAGS)  # per side: see claimable

    # ------------------------------------------------------------------ protocol basics

    @property
    def num_players(self) -> int:
        return self.n

    @property
    def current_player(self) -> int:
        return -1 if self.phase == P_OVER else self.turn

    def is_terminal(self) -> bool:
        return self.phase == P_OVER

    def returns(self) -> list[float]:
        """Per seat, from the final ranking: (seats ranked below - seats ranked above) / (n - 1).

        The winner ranks first, the others by flags held (equal counts share a rank), so a sole
        winner gets 1, a sole last -1, and with two players this is 1 / -1 or 0 / 0 on a draw.
        Without a winner every seat is ranked by flags held. Zero for every seat before the end
        and after the decision cap (a draw by adjudication).
        """
        n = self.n
        if self.end_kind is None or self.end_kind == _MOVE_CAP:
            return [0.0] * n
        if n == 2:  # a win or the stalemate draw
            if self.winner < 0:
                return [0.0, 0.0]
            return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]
        keys = self.rank_keys()
        return [
            (sum(k < mine for k in keys) - sum(k > mine for k in keys)) / (n - 1)
            for mine in keys
        ]

    def rank_keys(self) -> list[tuple[bool, int]]:
        """Per seat, the key the final ranking sorts by (higher ranks higher): whether the seat
        won, then the flags it holds."""
        return [(s == self.winner, self.claimed.count(s)) for s in range(self.n)]

    def scores(self) -> list[float]:
        """Series points: 5 to the winner, one per claimed flag to every other player (and
        without a winner, one per claimed flag to each player)."""
        flags = [float(self.claimed.count(s)) for s in range(self.n)]
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
        theirs = self.opponent_side[seat][flag]
        if self.claimed[flag] >= 0 or theirs < 0:
            return False
        mine = seat * NUM_FLAGS + flag
        n = 4 if self.mud[flag] >= 0 else 3
        if len(self.sides[mine]) != n:
            return False
        fog = self.fog[flag] >= 0
        rank = fm.complete_rank(self.smask[mine], n, fog)
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
        """Flags (0-based) ``seat`` could claim now.

        This runs after every play, so each side's verdict is remembered until its flag changes
        (a card placed or lifted, Fog, Mud, a claim): a won or lost flag stays so, and a flag
        the other side can still win stays unclaimable while its witness troops are available
        (available troops only ever leave)."""
        full = self.full[seat]
        if not full:
            return []
        verdicts = self._verdicts
        base = seat * NUM_FLAGS
        avail = self.troop_all & ~self.gone
        out: list[int] = []
        while full:
            low = full & -full
            full ^= low
            f = low.bit_length() - 1
            verdict = verdicts[base + f]
            if verdict == _UNKNOWN or (verdict >= 0 and avail & verdict != verdict):
                verdict = verdicts[base + f] = self._verdict(seat, f, avail)
            if verdict == _CLAIMABLE:
                out.append(f)
        return out

    def _verdict(self, seat: int, flag: int, avail: int) -> int:
        """The claim proof for ``seat``'s complete side at an unclaimed ``flag`` (troops
        ``avail`` still to come), as a verdict: _CLAIMABLE, _LOST or a witness."""
        mine = seat * NUM_FLAGS + flag
        theirs = self.opponent_side[seat][flag]
        n = 4 if self.mud[flag] >= 0 else 3
        fog = self.fog[flag] >= 0
        smask = self.smask
        rank = fm.complete_rank(smask[mine], n, fog)
        have = len(self.sides[theirs])
        if have == n:
            other = fm.complete_rank(smask[theirs], n, fog)
            if rank > other or (rank == other and self.moment(mine) < self.moment(theirs)):
                return _CLAIMABLE
            return _LOST
        witness = fm.still_beats(smask[theirs], n - have, avail, n, fog, rank, self.max_value)
        return _CLAIMABLE if witness < 0 else witness

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[str]:
        """The actions the player to move may take now, sorted (cached until the next apply)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return legal.copy()

    def _generate(self) -> list[str]:
        """Build the legal action list of the current phase."""
        phase = self.phase
        if phase == P_PLAY:
            return self._play_actions()
        if phase == P_CLAIM:
            out = [_CLAIM_STR[f] for f in self._claims]
            out.append(_DONE)
            return out
        if phase == P_DRAW:
            return _DRAW_BOTH.copy()
        if phase == P_SCOUT_DRAW:
            return _SCOUT_DRAW_BOTH.copy()
        if phase == P_SCOUT_RETURN:
            out = [_RETURN_STR[c] for c in iter_bits(self.hands[self.turn])]
            out.sort()
            return out
        return []

    def _refresh(self, flag: int) -> None:
        """Recompute the free/full bits of the two seats at one flag after it changed (and
        forget their claim verdicts there)."""
        bit = 1 << flag
        keep = ~bit
        free = self.free
        full = self.full
        seats = self.layout.seats_at[flag]
        for seat in seats:
            self._verdicts[seat * NUM_FLAGS + flag] = _UNKNOWN
        if self.claimed[flag] >= 0:
            for seat in seats:
                free[seat] &= keep
                full[seat] &= keep
            return
        cap = 4 if self.mud[flag] >= 0 else 3
        for seat in seats:
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
        hand = self.hands[me]
        free = self.free[me]
        troops = hand & ALL_TROOPS
        can_place = bool(troops and free)
        tactics = hand & ALL_TACTICS
        use_tactics = False
        if tactics:  # the tactics limit (may_play_tactic), inlined: this runs every play
            played = self.tactics_played
            mine = played[me]
            use_tactics = True
            for o in self.opponents[me]:
                if played[o] < mine:
                    use_tactics = False
                    break
        if not free:
            play = []
        else:
            play = _troop_actions(troops, _PLAY_TABLE, free)
            morale = tactics & MORALE_MASK if use_tactics else 0
            if morale:  # each morale card's block goes where its name sorts among the troops
                if self.leader_played[me]:
                    morale &= ~LEADER_MASK
                for card in _MORALE_NAMES:
                    if morale >> card & 1:
                        block = _PLAY_ROWS[card][free]
                        at = bisect_left(play, block[0])
                        play[at:at] = block
        if not use_tactics:
            if can_place:
                return play
            play.insert(0, _PASS)
            return play
        if not tactics & _NON_MORALE:  # only morale tactics: nothing but plays and pass
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

    def may_play_tactic(self, seat: int) -> bool:
        """The tactics limit: ``seat`` has played no more tactics than each opponent."""
        played = self.tactics_played
        mine = played[seat]
        return all(mine <= played[o] for o in self.opponents[seat])

    def _tactic_actions(self, me: int, tactics: int) -> tuple[list[str], list[str]]:
        """Fog/Mud and guile actions: those sorting before ``pass``/``play`` (deserter, fog,
        mud) and those sorting after them (redeploy, scout, traitor), each in sorted order.

        Fog, Mud and Redeploy stay on the flags of the player's own line; Deserter and Traitor
        take from any opponent at any unclaimed flag."""
        open_mask = _open_mask(self.claimed)
        open_flags = _FLAG_LISTS[open_mask]
        my_open_mask = open_mask & self.layout.line_mask[me]
        free_mask = self.free[me]
        sides = self.sides
        opponents = self.opponents[me]
        before: list[str] = []
        after: list[str] = []
        if tactics >> DESERTER & 1:
            for opp in opponents:
                base = opp * NUM_FLAGS
                for f in open_flags:
                    before += [_DESERTER_STR[card] for card in sides[base + f]]
            for card, owners in ((FOG, self.fog), (MUD, self.mud)):
                owner = self.owner_of(card)
                if owner >= 0 and owner != me and open_mask >> owners.index(owner) & 1:
                    before.append(_DESERTER_STR[card])
            before.sort()
        if tactics >> FOG & 1:
            before += _FOG_ROWS[my_open_mask]
        if tactics >> MUD & 1:
            before += _MUD_ROWS[my_open_mask]
        if tactics >> REDEPLOY & 1:
            base = me * NUM_FLAGS
            for f in _FLAG_LISTS[my_open_mask]:
                elsewhere = free_mask & ~(1 << f)
                for card in sides[base + f]:
                    after += _REDEPLOY_ROWS[card][elsewhere]
                    after.append(_REDEPLOY_DISCARD_STR[card])
            after.sort()
        if tactics >> SCOUT & 1 and (self.decks[0] or self.decks[1]):
            after.append(_SCOUT)
        if tactics >> TRAITOR & 1 and free_mask:
            smask = self.smask
            taken = 0  # the cards on the opponents' sides of unclaimed flags
            for opp in opponents:
                base = opp * NUM_FLAGS
                for f in open_flags:
                    taken |= smask[base + f]
            after += _troop_actions(taken & ALL_TROOPS, _TRAITOR_TABLE, free_mask)
        return before, after

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
        if not _listed(legal, action):
            text = ACTION_STRINGS[parsed]
            if not _listed(legal, text):
                raise IllegalAction(f"{action!r} is not legal now: {self._why_illegal(parsed)}")
            action = text
        self._legal = None
        self.history.append(action)
        kind, card, arg = parsed
        me = self.turn
        log = self.log
        seen = self.seen
        if len(log) > _LOG_KEEP:
            _trim(log, seen)
        # what the others see of this decision: all of it, but the card a Scout puts back
        log.append((me, _RETURN_PUBLIC[card] if kind == SCOUT_RETURN else action, False))
        seen[me] = len(log)
        if kind == PLAY:
            self._play_card(me, card, arg)
        elif kind == DRAW:
            self._draw(me, arg)
            self._end_turn()
        elif kind == CLAIM:
            self._claim(me, arg)
        elif kind == DONE:
            self._leave_claims()
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
        known = self.known
        unknown = ~bit
        for o in self.opponents[me]:
            known[o] &= unknown
        self._place(me, card, flag)
        if card >= NUM_TROOPS:
            self.tactics_played[me] += 1
            if bit & LEADER_MASK:
                self.leader_played[me] = True
        self.passes = 0
        self._after_play()

    def _place(self, seat: int, card: int, flag: int) -> None:
        side = seat * NUM_FLAGS + flag
        sides = self.sides
        sides[side] = cards = (*sides[side], card)
        self.smask[side] |= 1 << card
        self.placed[card] = self.ply
        self.where[card] = side
        verdicts = self._verdicts  # both claim verdicts at this flag depend on this side
        verdicts[side] = verdicts[self.opponent_side[seat][flag]] = _UNKNOWN
        if card < NUM_TROOPS:
            self.gone |= 1 << card
        # only this seat's side grew: update its free/complete bits at this flag
        have = len(cards)
        if have < 3:  # below any capacity (3, or 4 with Mud)
            return
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
        bit = 1 << KIND_CARD[kind]
        self.hands[me] ^= bit
        known = self.known
        for o in self.opponents[me]:
            known[o] &= ~bit
        self.tactics_played[me] += 1
        self.passes = 0
        if kind == FOG_A:
            self.fog[arg] = me
            self.placed[FOG] = self.ply
            self._refresh(arg)
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
            self._desert(self.owner_of(card), card)
        else:  # TRAITOR
            self.discards[me].append(TRAITOR)
            self._lift(card)
            self._place(me, card, arg)
        self._after_play()

    def owner_of(self, card: int) -> int:
        """The seat whose side (or, for Fog and Mud, whose flag side) a card lies on, or -1."""
        if card in (FOG, MUD):
            owners = self.fog if card == FOG else self.mud
            return max(owners)  # one Fog card and one Mud card: -1 everywhere else
        side = self.where[card]
        return side // NUM_FLAGS if side >= 0 else -1

    def _desert(self, victim: int, card: int) -> None:
        """Deserter: discard ``card`` from ``victim``'s side (Mud leaving trims 4-card sides)."""
        if card == FOG:
            flag = self.fog.index(victim)
            self.fog[flag] = -1
            self.placed[FOG] = -1
            self.discards[victim].append(FOG)
            self._refresh(flag)
            return
        if card == MUD:
            flag = self.mud.index(victim)
            self.mud[flag] = -1
            self.placed[MUD] = -1
            self.discards[victim].append(MUD)
            self._refresh(flag)
            for seat in self.layout.seats_at[flag]:
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
        elif -1 not in self.claimed:  # three players only: two cannot share nine flags evenly
            self._finish_ranked("every flag is claimed")
        elif not self._claims:
            self._leave_claims()

    def _victory(self, seat: int) -> str:
        """The reason text if ``seat`` has won, else an empty string: 3 adjacent flags of its
        line (a breakthrough) or enough flags in all (an envelopment: 5, or 4 with three
        players)."""
        owned = [f for f in range(NUM_FLAGS) if self.claimed[f] == seat]
        mask = sum(1 << f for f in owned)
        layout = self.layout
        for run, run_mask in zip(layout.runs[seat], layout.run_masks[seat], strict=True):
            if mask & run_mask == run_mask:
                return f"seat {seat} breakthrough on flags {'-'.join(str(f + 1) for f in run)}"
        if len(owned) >= layout.to_win:
            listed = ", ".join(str(f + 1) for f in owned)
            return f"seat {seat} envelopment with {len(owned)} flags ({listed})"
        return ""

    def _finish_ranked(self, why: str) -> None:
        """End a three-player game without a winner: players rank by flags held. A ranking
        that separates the players is a normal end; all sharing the rank is a stalemate."""
        held = [self.claimed.count(s) for s in range(self.n)]
        listed = ", ".join(f"seat {s} {h}" for s, h in enumerate(held))
        if len(set(held)) == 1:
            self._finish(GameEnd.STALEMATE, -1,
                         f"{why} and nobody won: every player holds {held[0]} flags, all share "
                         f"first place: draw")
        else:
            self._finish(GameEnd.NORMAL, -1,
                         f"{why} and nobody won: ranked by flags held ({listed})")

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
            for other in self.opponents[seat]:
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
            deck = 0 if decks[0] else 1
            self._draw(me, deck)
            self.log.append((me, _AUTO_SCOUT_DRAW[deck], True))
            self.scout_draws -= 1
        self.scout_draws = 0
        self.scout_returns = max(0, self.hands[me].bit_count() - self.hand_size)
        if self.scout_returns:
            self.phase = P_SCOUT_RETURN
        else:
            self._after_play()

    def _scout_return(self, me: int, card: int) -> None:
        deck = 0 if card < NUM_TROOPS else 1
        # The opponents see only which deck the card went to: any card of that kind they knew
        # in this hand may be the one put back, so they no longer know any of them for sure.
        doubtful = self.hands[me] & (ALL_TROOPS if deck == 0 else ALL_TACTICS)
        for o in self.opponents[me]:
            self.known[o] &= ~doubtful
        self.hands[me] ^= 1 << card
        self.decks[deck].append(card)
        self.tops[deck].append([card, 1 << me])
        self.scout_returns -= 1
        if not self.scout_returns:
            self._after_play()

    def _after_play(self) -> None:
        """The card (or pass) is down: standard timing claims now, then the draw."""
        me = self.turn
        if not self.advanced and self.full[me]:  # claims need a complete side
            claims = self.claimable(me)
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
        if not (self.passed or self.scouted) and self.hands[me].bit_count() < self.hand_size:
            d0, d1 = self.decks
            if d0 and d1:
                self.phase = P_DRAW
                return
            if d0 or d1:
                deck = 0 if d0 else 1
                self._draw(me, deck)
                self.log.append((me, _AUTO_DRAW[deck], True))
        self._end_turn()

    def _end_turn(self) -> None:
        if self.passes >= self.n:  # (rare: checked first, the usual case follows)
            if self.n == 2:
                self._finish(
                    GameEnd.STALEMATE, -1,
                    "stalemate: both players passed in a row without a claim between: draw",
                )
            else:
                self._finish_ranked("every player passed in a row without a claim between")
            return
        self.turn = self.next_seat[self.turn]
        self.passed = False
        self.scouted = False
        if self.advanced:
            self.start_turn()
        else:
            self.phase = P_PLAY

    def start_turn(self) -> None:
        if self.advanced:
            claims = self.claimable(self.turn)
            if claims:
                self._claims = claims
                self.phase = P_CLAIM
                return
        self.phase = P_PLAY

    # ------------------------------------------------------------------ explanations

    def _why_illegal(self, parsed: tuple[int, int, int]) -> str:
        """Why a well-formed action is not legal now (slow path: see :mod:`explain`)."""
        return PARTS.why_illegal(self, parsed)

    def card_in_game(self, card: int) -> bool:
        """Is this card used under the current rules?"""
        if card < NUM_TROOPS:
            return bool(self.troop_all >> card & 1)
        return self.tactics_on

    # ------------------------------------------------------------------ copies and JSON

    def clone(self) -> BattleLineState:
        """An independent copy (cheap: flat lists of ints and tuples)."""
        new = BattleLineState(self.seed, self.variant, blank=True)
        new.n = self.n
        new.layout = self.layout
        new.opponents = self.opponents
        new.opponent_side = self.opponent_side
        new.next_seat = self.next_seat
        new.seed = self.seed
        new.variant = dict(self.variant)
        new.history = self.history.copy()
        new.log = self.log.copy()
        new.seen = self.seen.copy()
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
        d0, d1 = self.decks
        new.decks = [d0.copy(), d1.copy()]
        t0, t1 = self.tops
        new.tops = [[e.copy() for e in t0] if t0 else [], [e.copy() for e in t1] if t1 else []]
        new.known = self.known.copy()
        new.discards = [d.copy() for d in self.discards]
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
        new._verdicts = self._verdicts.copy()
        legal = self._legal
        new._legal = None if legal is None else legal.copy()
        return new

    def __reduce__(self) -> tuple[Callable[[JSON], BattleLineState], tuple[JSON]]:
        """Pickled as its JSON (:meth:`to_json`), rebuilt by :func:`codec.from_json`."""
        return PARTS.from_json, (self.to_json(),)

    def to_json(self) -> JSON:
        """The full state as JSON (hidden cards included: see :mod:`codec`)."""
        return PARTS.to_json(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BattleLineState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by value, not hashable

    # ------------------------------------------------------------------ observation

    def observation(self, seat: int) -> JSON:
        """What ``seat`` may know (see :mod:`observe`)."""
        return PARTS.observe(self, seat)

    # ------------------------------------------------------------------ readable forms

    def __str__(self) -> str:
        return PARTS.render(self)

    @classmethod
    def replay(cls, seed: int, variant: dict[str, str], history: list[str]) -> BattleLineState:
        """The state reached from a game dealt from ``seed`` by applying ``history``."""
        state = PARTS.new_state(seed, variant)
        for action in history:
            state.apply(action)
        return state

    @classmethod
    def from_json(cls, data: JSON) -> BattleLineState:
        """Rebuild a state from :meth:`to_json` (see :mod:`codec`)."""
        return PARTS.from_json(data)

    def __repr__(self) -> str:
        """An expression that rebuilds this state: a replay of its history from its seed, or,
        for a position no replay reaches (sampled or built by hand), its full JSON."""
        try:
            if BattleLineState.replay(self.seed, self.variant, self.history) == self:
                return (f"BattleLineState.replay({self.seed!r}, {self.variant!r}, "
                        f"{self.history!r})")
        except GameError:
            pass
        return f"BattleLineState.from_json({self.to_json()!r})"
