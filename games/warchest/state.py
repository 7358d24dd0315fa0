"""The War Chest position and its rules.

Everything is small ints and flat lists so that a clone is a handful of list copies:

* a hex is its board index (:mod:`games.warchest.board`); the board is three parallel lists
  ``cell_unit`` (unit type or -1), ``cell_owner`` (seat or -1) and ``cell_h`` (stack height,
  0 exactly on the empty hexes), indexed by ``unit_hexes`` (the hexes of each seat's units of
  each type), which the engine's moves keep up to date (a position edited by hand calls
  :meth:`WarChestState.reindex`);
* ``ctrl[h]`` is the team controlling location ``h`` (-1: neutral); team = seat % 2, so with
  two players team and seat coincide and with four seats 0, 2 (faction A) face 1, 3 (faction B);
  ``held[team]`` indexes it: the locations the team controls;
* every pile of coins (bag, hand, face-up and face-down discard, supply, box) is a list of 17
  counts per seat, indexed by coin number (unit type, or ``ROYAL``). A bag has no order: a draw
  picks uniformly among its coins with the state's own random generator (an xorshift64* state
  kept in ``rng``), so clone, pickle, JSON and replay are exact;
* effects that need a further decision sit on the ``pending`` stack as small tuples
  ``(kind, seat, *ints)`` (:mod:`games.warchest.ops` names each shape); the top frame's seat
  decides next.

Legal actions are computed once per position as a sorted tuple of strings that ``apply``
checks against, so a caller that asks for the legal actions and applies one pays for move
generation once; ``clone`` shares the tuple, so a look-ahead that applies each legal action to
its own clone (the greedy heuristic, the ``mcts`` rollouts) pays for it once too. Move
generation builds strings only: the action strings are looked up in per-board tables
(:class:`_Notation`), not formatted, and ``apply`` turns the one chosen action into its
operation, which depends on the string and the seat alone and so is parsed once per board and
seat and then remembered.

The rest of the engine lives beside this module: :mod:`setup` (a new game), :mod:`observe`
(a seat's view and states sampled from it), :mod:`codec` (JSON), :mod:`explain` (why an action
is illegal), :mod:`render` (``str``) and :mod:`tactics` (the units' tactics); they import this
module, and the package hands their functions to it (:class:`Parts`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import compress
from typing import Final

from mypy_extensions import mypyc_attr

from games.protocol import JSON, GameEnd, GameError, IllegalAction
from games.warchest.board import Board, board_for
from games.warchest.notation import canonical
from games.warchest.ops import (
    PAY_FREE,
    PAY_STACK,
    Args,
    FootmanFrame,
    Frame,
    GuardFrame,
    ManeuverOp,
    Op,
    Verb,
)
from games.warchest.units import (
    COIN_BY_NAME,
    COIN_NAMES,
    NEEDS_BOLSTERED,
    NUM_COINS,
    NUM_TYPES,
    ROYAL,
    UNIT_BY_NAME,
    UNITS,
)

MASK64: Final = (1 << 64) - 1
#: Hard cap on decisions; reaching it ends the game as a draw by adjudication.
MAX_DECISIONS: Final = 1000
#: Control markers per team (2 players: 6 each; 4 players: 8 per team).
MARKERS: Final = {2: 6, 4: 8}

_NORMAL_ATTACK: Final = tuple(u.normal_attack for u in UNITS)
_MAX_UNITS: Final = tuple(u.max_units for u in UNITS)
_DEPLOY_NEXT_TO_FRIEND: Final = tuple(u.deploy_next_to_friend for u in UNITS)
_TEAM_NAME: Final = ("A", "B")
#: Move generation's per-coin strings (the board's hex-indexed ones are in :class:`_Notation`).
_INIT_STR: Final = tuple(f"{cn} initiative" for cn in COIN_NAMES)
_PASS_STR: Final = tuple(f"{cn} pass" for cn in COIN_NAMES)
_RECRUIT_STR: Final = tuple(tuple(f"{cn} recruit {u.name}" for u in UNITS) for cn in COIN_NAMES)
_ARMY_STR: Final = tuple(f"{cn} tactic" for cn in COIN_NAMES)
_GUARD_STRS: Final = ("guard supply", "guard unit")
#: Maneuver prefixes by payment: a coin's name, then :data:`PAY_STACK` and :data:`PAY_FREE`
#: (indexed ``pay`` for a coin, ``NUM_COINS - 1 - pay`` for the others).
_PAY_WORD: Final = (*COIN_NAMES, "repeat", "free")


class _Notation:
    """One board's action strings, built once so move generation looks them up by index
    instead of formatting them (every position formats dozens)."""

    __slots__ = ("arg", "bolster", "control", "deploy", "nbr", "ops", "tactic", "unit")

    def __init__(self, b: Board) -> None:
        names = b.name
        hexes = range(b.size)
        #: unit[p][h]: "<prefix p> <hex>", the start of a maneuver of the unit on h
        self.unit = tuple(tuple(f"{w} {names[h]}" for h in hexes) for w in _PAY_WORD)
        self.control = tuple(tuple(f"{u} control" for u in row) for row in self.unit)
        #: nbr[p][h]: per neighbour d of h, (d, its move string, its attack string)
        self.nbr = tuple(
            tuple(tuple((d, f"{row[h]} move {names[d]}", f"{row[h]} attack {names[d]}")
                        for d in b.neighbours[h]) for h in hexes)
            for row in self.unit
        )
        #: tactic[p][h]: "<prefix p> <hex> tactic", to which each hex argument adds arg[hex]
        self.tactic = tuple(tuple(f"{u} tactic" for u in row) for row in self.unit)
        self.arg = tuple(f" {nm}" for nm in names)
        self.deploy = tuple(tuple(f"{cn} deploy {names[h]}" for h in hexes) for cn in COIN_NAMES)
        self.bolster = tuple(tuple(f"{cn} bolster {names[h]}" for h in hexes)
                             for cn in COIN_NAMES)
        #: ops[seat]: legal action string -> (its operation, its public form), filled by
        #: :meth:`WarChestState._decode` as actions are applied
        self.ops: tuple[dict[str, tuple[Op, str]], ...] = tuple({} for _ in range(4))


_NOTATION: Final[dict[Board, _Notation]] = {}


def _notation(b: Board) -> _Notation:
    """The action strings of board ``b`` (built on first use)."""
    table = _NOTATION.get(b)
    if table is None:
        table = _NOTATION[b] = _Notation(b)
    return table


#: A tactic's hooks (:mod:`games.warchest.tactics`): the argument tuples it may take from a
#: unit's hex, and carrying it out.
Options = Callable[["WarChestState", int, int], Iterator[Args]]
Perform = Callable[["WarChestState", int, int, Args], None]


class Parts:
    """The functions of the modules above this one that a state's methods hand work to.

    :mod:`codec`, :mod:`observe`, :mod:`explain`, :mod:`render`, :mod:`tactics` and the
    package's game (a new game, for :meth:`WarChestState.replay`) import the state, so the
    state does not import them (the arrows point one
    way, tests/harness/test_arrows.py): the package (``games/warchest/__init__.py``) hands them
    over once, with :meth:`assemble`, when it is imported, which is before any state exists
    (importing this module imports its package first).
    """

    to_json: Callable[[WarChestState], JSON]
    from_json: Callable[[JSON], WarChestState]
    observe: Callable[[WarChestState, int], JSON]
    why_illegal: Callable[[WarChestState, str], str]
    render: Callable[[WarChestState], str]
    new_game: Callable[[int, dict[str, str]], WarChestState]
    #: Per unit type, the tactic a coin of that type pays on one unit's hex, or None (no
    #: tactic, the Royal Guard's which the Royal Coin pays, the Footman's which acts for all).
    unit_tactic: tuple[Options | None, ...]
    #: Per unit type, the tactic that acts with every unit of the type (Footman), or None.
    army_tactic: tuple[Options | None, ...]
    #: The unit types whose tactic the Royal Coin pays (Royal Guard), each with that tactic.
    royal_options: tuple[tuple[int, Options], ...]
    #: Per unit type, carrying out its tactic, or None.
    perform: tuple[Perform | None, ...]

    def assemble(self, *, to_json: Callable[[WarChestState], JSON],
                 from_json: Callable[[JSON], WarChestState],
                 observe: Callable[[WarChestState, int], JSON],
                 why_illegal: Callable[[WarChestState, str], str],
                 render: Callable[[WarChestState], str],
                 new_game: Callable[[int, dict[str, str]], WarChestState],
                 tactics: dict[str, tuple[Options, Perform]]) -> None:
        self.to_json, self.from_json, self.observe = to_json, from_json, observe
        self.why_illegal, self.render, self.new_game = why_illegal, render, new_game
        hooks = [tactics.get(u.name) for u in UNITS]
        if [u.name for u, h in zip(UNITS, hooks, strict=True) if (h is None) == u.has_tactic]:
            raise GameError("every unit with a tactic needs its hooks, and only those")
        self.unit_tactic = tuple(None if h is None or u.royal_tactic or u.army_tactic else h[0]
                                 for u, h in zip(UNITS, hooks, strict=True))
        self.army_tactic = tuple(h[0] if h is not None and u.army_tactic else None
                                 for u, h in zip(UNITS, hooks, strict=True))
        self.royal_options = tuple((t, h[0]) for t, (u, h) in enumerate(zip(UNITS, hooks,
                                                                             strict=True))
                                   if h is not None and u.royal_tactic)
        self.perform = tuple(None if h is None else h[1] for h in hooks)


PARTS: Final = Parts()


def splitmix64(x: int) -> int:
    """One step of splitmix64: spreads a seed into a well-mixed non-zero 64-bit state."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return (z ^ (z >> 31)) or 1


#: ops whose coin is discarded face down
_FACE_DOWN: Final = frozenset(("init", "recruit", "pass"))
#: trim the public log (of what every seat has seen) beyond this many decisions
_LOG_KEEP: Final = 24


def _trim(log: list[tuple[int, str]], seen: list[int]) -> None:
    """Drop the decisions every seat has seen (those before each seat's last decision)."""
    cut = min(seen)
    if cut:
        del log[:cut]
        for s in range(len(seen)):
            seen[s] -= cut


def _take(bag: list[int], r: int) -> int:
    """Take coin number ``r`` (from 0) of ``bag`` out of it, the coins laid out in coin order;
    return its type."""
    for c in range(NUM_COINS):  # plain indexed loops: what the compiled engine runs fastest
        r -= bag[c]
        if r < 0:
            bag[c] -= 1
            return c
    raise AssertionError("bag count out of sync")


def _with_args(prefix: str, names: tuple[str, ...], args: Args) -> str:
    """A tactic's action string: its prefix, then the names of its argument hexes."""
    out = prefix
    for a in args:
        out += names[a]
    return out


def _holds_any(pile: list[int]) -> bool:
    """Does the pile hold a coin? (mypyc compiles ``any`` of a generator into a plain loop)"""
    return any(k for k in pile)


def _refill(bag: list[int], up: list[int], down: list[int]) -> int:
    """Pour the face-up and face-down discards into the empty ``bag``; return its coin count."""
    total = 0
    for c in range(NUM_COINS):
        k = up[c] + down[c]
        if k:
            bag[c] = k
            up[c] = down[c] = 0
            total += k
    return total


@mypyc_attr(allow_interpreted_subclasses=True)  # test doubles subclass it (compiled: games.native)
class WarChestState:
    """A full War Chest position, as the referee holds it."""

    __slots__ = (
        "_legal", "bag", "board", "box", "cards", "cell_h", "cell_owner", "cell_unit", "ctrl",
        "draft_order", "draft_pool", "facedown", "faceup", "hand", "held", "history",
        "init_changed", "initiative", "log", "n", "offset", "pending", "rg_original", "rng",
        "round", "seed", "seen", "supply", "turn", "unit_hexes", "variant", "winner",
    )

    def __init__(self, seed: int, variant: dict[str, str], *, blank: bool = False) -> None:
        """An empty position for that variant (use ``games.warchest.GAME.new_game`` to play);
        ``blank``: nothing set, for :meth:`clone` to fill (a compiled class cannot be made
        without its ``__init__``)."""
        if blank:
            return
        self.seed = seed
        self.variant = dict(variant)
        self.history: list[str] = []
        self.offset = 0  # decisions before ``history`` (only sampled states have any)
        self.n = int(variant.get("players", "2"))
        # The public log: (seat, public action) per decision, oldest first, kept from the oldest
        # decision some seat has not seen; seen[seat]: where that seat's "events since you last
        # decided" begin (see observe.py).
        self.log: list[tuple[int, str]] = []
        self.seen = [0] * self.n
        self.board: Board = board_for(self.n)
        self.rg_original = variant.get("royal-guard", "revised") == "original"
        size = self.board.size
        self.cards: list[list[int]] = [[] for _ in range(self.n)]
        self.cell_unit = [-1] * size
        self.cell_owner = [-1] * size
        self.cell_h = [0] * size
        # unit_hexes[seat * NUM_TYPES + t]: the hexes of seat's units of type t, ascending (an
        # index of the three cell lists, kept by the engine's moves; see :meth:`reindex`)
        self.unit_hexes: list[tuple[int, ...]] = [()] * (self.n * NUM_TYPES)
        self.ctrl = [-1] * size
        # held[team]: the locations that team controls, ascending (another index, of ctrl; a
        # tuple, replaced whole on a change, which is rarer than a clone, so clones share it)
        self.held: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self.bag = [[0] * NUM_COINS for _ in range(self.n)]
        self.hand = [[0] * NUM_COINS for _ in range(self.n)]
        self.faceup = [[0] * NUM_COINS for _ in range(self.n)]
        self.facedown = [[0] * NUM_COINS for _ in range(self.n)]
        self.supply = [[0] * NUM_COINS for _ in range(self.n)]
        self.box = [[0] * NUM_COINS for _ in range(self.n)]
        self.initiative = 0
        self.init_changed = False
        self.turn = 0
        self.round = 0
        self.pending: list[Frame] = []
        self.rng = splitmix64(seed)
        self.draft_pool: list[int] = []
        self.draft_order: list[int] = []
        self.winner = -1
        self._legal: tuple[str, ...] | None = None

    # ------------------------------------------------------------------ randomness and set-up

    def rand_below(self, n: int) -> int:
        """A uniform int in ``[0, n)`` from the state's xorshift64* generator."""
        x = self.rng
        x ^= x >> 12
        x ^= (x << 25) & MASK64
        x ^= x >> 27
        self.rng = x
        return ((((x * 0x2545F4914F6CDD1D) & MASK64) >> 32) * n) >> 32

    def shuffled(self, items: list[int]) -> list[int]:
        """A Fisher–Yates shuffle of a copy of ``items`` driven by the state's generator."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.rand_below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def place_start_markers(self) -> None:
        """Each side's control markers on its start locations."""
        for team in (0, 1):
            for h in self.board.start[team]:
                self.ctrl[h] = team
        self.reindex()

    def start_play(self) -> None:
        """Fill bags and supplies from the chosen cards, then draw round 1."""
        for seat in range(self.n):
            for t in self.cards[seat]:
                self.bag[seat][t] = 2
                self.supply[seat][t] = UNITS[t].coins - 2
            self.bag[seat][ROYAL] = 1
        self.new_round()

    def new_round(self) -> None:
        """Everyone draws up to 3 coins; the initiative holder starts."""
        self.round += 1
        self.init_changed = False
        for seat in range(self.n):
            hand = self.hand[seat]
            want = 3 - sum(hand)
            if want > 0:
                self._draw_to_hand(seat, want)
        self.turn = self.initiative

    def _draw_to_hand(self, seat: int, count: int) -> None:
        """:meth:`draw` ``count`` coins into ``seat``'s hand (fewer if none are left), in one
        loop: the same draws from the generator, without a call and a bag count per coin."""
        bag, hand = self.bag[seat], self.hand[seat]
        total = sum(bag)
        x = self.rng
        for _ in range(count):
            if total == 0:
                total = _refill(bag, self.faceup[seat], self.facedown[seat])
                if total == 0:
                    break
            x ^= x >> 12
            x ^= (x << 25) & MASK64
            x ^= x >> 27
            r = ((((x * 0x2545F4914F6CDD1D) & MASK64) >> 32) * total) >> 32
            c = _take(bag, r)
            hand[c] += 1
            total -= 1
        self.rng = x

    def draw(self, seat: int) -> int:
        """Draw one coin from ``seat``'s bag (refilled from the discards if empty); -1: none."""
        bag = self.bag[seat]
        total = sum(bag)
        if total == 0:
            total = _refill(bag, self.faceup[seat], self.facedown[seat])
            if total == 0:
                return -1
        # rand_below(total), inlined (a new round draws several coins per seat)
        x = self.rng
        x ^= x >> 12
        x ^= (x << 25) & MASK64
        x ^= x >> 27
        self.rng = x
        r = ((((x * 0x2545F4914F6CDD1D) & MASK64) >> 32) * total) >> 32
        return _take(bag, r)

    # ------------------------------------------------------------------ protocol: status

    @property
    def num_players(self) -> int:
        return self.n

    @property
    def teams(self) -> list[int]:
        """Team per seat (read by the referee: a forfeit loses for the offender's whole team)."""
        return [seat % 2 for seat in range(self.n)]

    @property
    def decisions(self) -> int:
        return self.offset + len(self.history)

    @property
    def markers_total(self) -> int:
        return MARKERS[self.n]

    def is_terminal(self) -> bool:
        return self.winner >= 0 or self.offset + len(self.history) >= MAX_DECISIONS

    @property
    def current_player(self) -> int:
        if self.winner >= 0 or self.offset + len(self.history) >= MAX_DECISIONS:
            return -1
        if self.draft_order:
            return self.draft_order[0]
        if self.pending:
            return int(self.pending[-1][1])
        return self.turn

    def markers_placed(self, team: int) -> int:
        """Control markers ``team`` has on the board."""
        ctrl = self.ctrl
        return sum(1 for h in self.board.locations if ctrl[h] == team)

    def returns(self) -> list[float]:
        if self.winner < 0:
            return [0.0] * self.n
        return [1.0 if s % 2 == self.winner else -1.0 for s in range(self.n)]

    def scores(self) -> list[float]:
        """Per seat: the control markers its team has placed (start markers included)."""
        placed = (self.markers_placed(0), self.markers_placed(1))
        return [float(placed[s % 2]) for s in range(self.n)]

    def end(self) -> tuple[GameEnd, str] | None:
        if self.winner >= 0:
            who = f"faction {_TEAM_NAME[self.winner]}"
            if self.n == 2:
                who = f"seat {self.winner} ({who})"
            else:
                who = f"team {_TEAM_NAME[self.winner]} (seats {self.winner}, {self.winner + 2})"
            return GameEnd.NORMAL, f"{who} placed all {self.markers_total} control markers"
        if self.decisions >= MAX_DECISIONS:
            return GameEnd.MOVE_CAP, (
                f"decision cap of {MAX_DECISIONS} reached: a draw by adjudication"
            )
        return None

    # ------------------------------------------------------------------ board queries (hooks)

    def is_enemy_at(self, seat: int, h: int) -> bool:
        """Whether hex ``h`` holds a unit of the other team than ``seat``'s."""
        return self.cell_unit[h] >= 0 and (self.cell_owner[h] - seat) % 2 == 1

    def is_friend_at(self, seat: int, h: int) -> bool:
        """Whether hex ``h`` holds a unit of ``seat``'s team (own or a teammate's)."""
        return self.cell_unit[h] >= 0 and (self.cell_owner[h] - seat) % 2 == 0

    def can_hit(self, height: int, target: int) -> bool:
        """Whether an attacker of that stack height may attack the unit on ``target`` (Knight)."""
        return height >= 2 or not NEEDS_BOLSTERED[self.cell_unit[target]]

    def units_of(self, seat: int, t: int) -> tuple[int, ...]:
        """The hexes of ``seat``'s units of type ``t``, ascending."""
        return self.unit_hexes[seat * NUM_TYPES + t]

    def reindex(self) -> None:
        """Rebuild :attr:`unit_hexes` from the cell lists and :attr:`held` from ``ctrl``: call
        it after setting cells or control markers directly (building a position by hand); the
        engine's own moves keep both indexes."""
        index: list[tuple[int, ...]] = [()] * (self.n * NUM_TYPES)
        cu, co = self.cell_unit, self.cell_owner
        for h in compress(range(len(cu)), self.cell_h):  # the units' hexes, ascending
            k = co[h] * NUM_TYPES + cu[h]
            index[k] = (*index[k], h)
        self.unit_hexes = index
        ctrl = self.ctrl
        held: tuple[list[int], list[int]] = ([], [])
        for h in self.board.locations:  # ascending
            if ctrl[h] >= 0:
                held[ctrl[h]].append(h)
        self.held = (tuple(held[0]), tuple(held[1]))

    def _place(self, h: int, t: int, seat: int) -> None:
        """A unit of type ``t`` of ``seat``'s enters the index on ``h``."""
        k = seat * NUM_TYPES + t
        self.unit_hexes[k] = tuple(sorted((*self.unit_hexes[k], h)))

    def _unplace(self, h: int, t: int, seat: int) -> None:
        """The unit of type ``t`` of ``seat``'s on ``h`` leaves the index."""
        k = seat * NUM_TYPES + t
        self.unit_hexes[k] = tuple(x for x in self.unit_hexes[k] if x != h)

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[str]:
        return list(self._legal_tuple())

    def _legal_tuple(self) -> tuple[str, ...]:
        """The legal actions, sorted (computed once per position)."""
        legal = self._legal
        if legal is None:
            out: list[str] = []
            if self.winner < 0 and self.offset + len(self.history) < MAX_DECISIONS:
                if self.draft_order:
                    out = [f"pick {UNITS[t].name}" for t in self.draft_pool]
                elif self.pending:
                    self._frame_actions(self.pending[-1], out)
                else:
                    seat = self.turn
                    shared = self._turn_options(seat)
                    hand = self.hand[seat]
                    for c in range(NUM_COINS):
                        if hand[c]:
                            self._coin_actions(seat, c, out, shared)
            out.sort()
            legal = self._legal = tuple(out)
        return legal

    def _coin_list(self, action: str) -> list[str]:
        """A cheap part of the legal actions: those of the coin an ordinary turn's action names.

        Used by ``apply`` when no legal actions are cached (e.g. replaying a history); any miss
        falls back to all legal actions, so the outcome is the same.
        """
        out: list[str] = []
        if self.draft_order or self.pending or self.is_terminal():
            return out
        c = COIN_BY_NAME.get(action.partition(" ")[0], -1)
        if c >= 0 and self.hand[self.turn][c]:
            self._coin_actions(self.turn, c, out)
        return out

    def _turn_options(self, seat: int) -> tuple[bool, list[int], list[int]]:
        """What every coin of ``seat``'s hand may do alike: whether it may take the initiative,
        the unit types it may recruit, and the empty locations ``seat``'s team controls (where
        a unit may deploy)."""
        team = seat % 2
        supply = self.supply[seat]
        cu = self.cell_unit
        return (
            self.initiative % 2 != team and not self.init_changed,
            [t for t in self.cards[seat] if supply[t]],
            [h for h in self.held[team] if cu[h] < 0],
        )

    def _coin_actions(self, seat: int, c: int, out: list[str],
                      shared: tuple[bool, list[int], list[int]] | None = None) -> None:
        """Every action paid with a coin of type ``c`` from ``seat``'s hand (``shared``:
        :meth:`_turn_options` of ``seat``, if the caller has it)."""
        b = self.board
        can_init, recruits, free = self._turn_options(seat) if shared is None else shared
        if can_init:
            out.append(_INIT_STR[c])
        out.append(_PASS_STR[c])
        if recruits:
            recruit = _RECRUIT_STR[c]
            for t in recruits:
                out.append(recruit[t])
        try:
            table = _NOTATION[b]
        except KeyError:
            table = _notation(b)
        cu = self.cell_unit
        if c == ROYAL:
            arg = table.arg
            for t, options in PARTS.royal_options:
                mine = self.unit_hexes[seat * NUM_TYPES + t]
                if mine and t in self.cards[seat]:
                    tactic = table.tactic[ROYAL]
                    for h in mine:
                        prefix = tactic[h]
                        for args in options(self, seat, h):
                            out.append(_with_args(prefix, arg, args))
            return
        mine = self.unit_hexes[seat * NUM_TYPES + c]
        if len(mine) < _MAX_UNITS[c]:
            deploy = table.deploy[c]
            for h in free:
                out.append(deploy[h])
            if _DEPLOY_NEXT_TO_FRIEND[c]:
                co = self.cell_owner
                nbs = b.neighbours
                beside = [False] * b.size  # next to a unit of seat's team
                for x, u in enumerate(cu):
                    if u >= 0 and (co[x] - seat) % 2 == 0:
                        for y in nbs[x]:
                            beside[y] = True
                for h in compress(range(b.size), beside):
                    if cu[h] < 0 and h not in free:  # free: listed above
                        out.append(deploy[h])
        if not mine:
            return
        own_tactic = PARTS.unit_tactic[c]
        bolster = table.bolster[c]
        cell_h = self.cell_h
        for h in mine:
            out.append(bolster[h])
            self._maneuvers(seat, h, c, cell_h[h], out, False)
            if own_tactic is not None:
                prefix = table.tactic[c][h]
                arg = table.arg
                for args in own_tactic(self, seat, h):
                    out.append(_with_args(prefix, arg, args))
        army_tactic = PARTS.army_tactic[c]
        if army_tactic is not None:
            for _ in army_tactic(self, seat, mine[0]):  # one decision for the whole army
                out.append(_ARMY_STR[c])

    def _maneuvers(
        self, seat: int, h: int, pay: int, height: int, out: list[str], moves_only: bool,
    ) -> None:
        """Move, control and attack options of the unit on ``h`` (attack height ``height``),
        paid with ``pay`` (a coin, :data:`PAY_STACK` or :data:`PAY_FREE`: the prefix of the
        action strings)."""
        b = self.board
        cu = self.cell_unit
        p = pay if pay >= 0 else NUM_COINS - 1 - pay
        try:
            table = _NOTATION[b]
        except KeyError:
            table = _notation(b)
        if moves_only or not _NORMAL_ATTACK[cu[h]]:
            out += [move for d, move, _ in table.nbr[p][h] if cu[d] < 0]
        else:
            co = self.cell_owner
            for d, move, attack in table.nbr[p][h]:
                u = cu[d]
                if u < 0:
                    out.append(move)
                elif (co[d] - seat) % 2 == 1 and (height >= 2 or not NEEDS_BOLSTERED[u]):
                    out.append(attack)
        if moves_only:
            return
        if b.is_location[h] and self.ctrl[h] != seat % 2:
            out.append(table.control[p][h])

    def _frame_actions(self, frame: Frame, out: list[str]) -> None:
        """The decisions a pending frame offers."""
        seat = frame[1]
        if frame[0] == "use":
            self._coin_actions(seat, frame[2], out)
            return
        if frame[0] == "guard":
            out += _GUARD_STRS
            return
        if frame[0] != "footman":  # each Footman that can maneuver must; the others may stop
            out.append("stop")
        if frame[0] == "repeat":
            h = frame[2]
            if self.cell_h[h] >= 2:
                self._maneuvers(seat, h, PAY_STACK, self.cell_h[h] - 1, out, False)
        elif frame[0] == "sword":
            self._maneuvers(seat, frame[2], PAY_FREE, 0, out, True)
        else:  # footman, merc: one free maneuver by one of the listed units
            hexes: tuple[int, ...] = frame[2:]  # declared: mypyc cannot loop over *tuple[...]
            for h in hexes:
                if self.cell_owner[h] == seat and self.cell_unit[h] >= 0:
                    self._maneuvers(seat, h, PAY_FREE, self.cell_h[h], out, False)

    def _push_if_choice(self, frame: Frame) -> None:
        """Push an effect's frame only if it offers something besides ``stop``."""
        if self._frame_has_choice(frame):
            self.pending.append(frame)

    def _frame_has_choice(self, frame: Frame) -> bool:
        """Whether a frame offers some decision other than ``stop``."""
        probe: list[str] = []
        self._frame_actions(frame, probe)
        return len(probe) > ("stop" in probe)

    # ------------------------------------------------------------------ decoding actions

    def _mover(self) -> int:
        """The seat that decides now (the game is not over)."""
        if self.draft_order:
            return self.draft_order[0]
        if self.pending:
            return int(self.pending[-1][1])
        return self.turn

    def _decode(self, seat: int, action: str) -> tuple[Op, str]:
        """The operation of ``seat``'s legal ``action`` and the action's public form (a coin
        paid face down hidden). Both follow from the string and the seat alone (but the
        Footman tactic's, which names its first unit's hex), so they are remembered per board
        and seat, parsed on first use."""
        b = self.board
        try:
            table = _NOTATION[b]
        except KeyError:
            table = _notation(b)
        known = table.ops[seat]
        hit = known.get(action)
        if hit is not None:
            return hit
        op = self._parse(seat, action)
        public = "?" + action[action.index(" "):] if op[0] in _FACE_DOWN else action
        if op[0] == "man" and action.count(" ") == 1:  # "<coin> tactic": the army tactic
            return op, public  # names no hex: its unit's hex is this position's
        hit = known[action] = (op, public)
        return hit

    def _parse(self, seat: int, action: str) -> Op:
        """The operation of ``seat``'s legal ``action`` (canonical spelling) read off the
        string (see :meth:`_decode`)."""
        toks = action.split(" ")
        head = toks[0]
        by_name = self.board.by_name
        if head == "stop":
            return ("stop", seat)
        if head == "guard":
            return ("guard", seat, toks[1] == "supply")
        if head == "pick":
            return ("pick", seat, UNIT_BY_NAME[toks[1]])
        if head == "repeat":
            pay = PAY_STACK
        elif head == "free":
            pay = PAY_FREE
        else:
            pay = c = COIN_BY_NAME[head]
            verb = toks[1]
            if verb == "initiative":
                return ("init", seat, c)
            if verb == "pass":
                return ("pass", seat, c)
            if verb == "recruit":
                return ("recruit", seat, c, UNIT_BY_NAME[toks[2]])
            if verb == "deploy":
                return ("deploy", seat, c, by_name[toks[2]])
            if verb == "bolster":
                return ("bolster", seat, c, by_name[toks[2]])
            if verb == "tactic":  # the army tactic (Footman): its first unit stands for all
                return ("man", seat, c, self.units_of(seat, c)[0], "tactic", ())
        h = by_name[toks[1]]
        args = tuple(by_name[x] for x in toks[3:])
        verb = toks[2]
        if verb == "move":
            return ("man", seat, pay, h, "move", args)
        if verb == "attack":
            return ("man", seat, pay, h, "attack", args)
        if verb == "control":
            return ("man", seat, pay, h, "control", args)
        return ("man", seat, pay, h, "tactic", args)

    # ------------------------------------------------------------------ apply

    def apply(self, action: str) -> None:
        legal = self._legal
        if not (action in self._coin_list(action) if legal is None else action in legal):
            legal = self._legal_tuple()
            if action not in legal:
                canon = canonical(action)
                if canon not in legal:
                    raise IllegalAction(self._why_illegal(canon))
                action = canon
        seat = self._mover()
        op, public = self._decode(seat, action)
        self._legal = None
        self.history.append(action)
        log = self.log
        if len(log) > _LOG_KEEP:
            _trim(log, self.seen)
        # what the others see of this decision: all of it, but the coin paid face down
        log.append((seat, public))
        self.seen[seat] = len(log)
        self._perform(op)

    def _perform(self, op: Op) -> None:
        pending = self.pending
        frame = pending.pop() if pending else None
        if op[0] == "man":
            if frame is not None and frame[0] == "footman":
                # The other Footman units keep their maneuver. Whether they have one is judged
                # when the frame comes back on top (this maneuver may open or close their way).
                owing: tuple[int, ...] = frame[2:]
                rest = tuple(x for x in owing if x != op[3])
                if rest:
                    left: FootmanFrame = ("footman", op[1], *rest)
                    pending.append(left)
            self._maneuver(op)
        elif op[0] == "pick":
            self._pick(op[1], op[2])
            return
        elif op[0] == "guard":
            assert frame is not None and frame[0] == "guard"
            self._resolve_guard(frame, op[2])
        elif op[0] != "stop":
            # a coin from the hand onto the board, or discarded face down for its action
            seat, c = op[1], op[2]
            self.hand[seat][c] -= 1
            if op[0] == "deploy":
                h = op[3]
                self.cell_unit[h] = c
                self.cell_owner[h] = seat
                self.cell_h[h] = 1
                self._place(h, c, seat)
            elif op[0] == "bolster":
                self.cell_h[op[3]] += 1
            else:
                self.facedown[seat][c] += 1
                if op[0] == "init":
                    self.initiative = seat
                    self.init_changed = True
                elif op[0] == "recruit":
                    t = op[3]
                    self.supply[seat][t] -= 1
                    self.faceup[seat][t] += 1
                    if UNITS[t].maneuver_on_recruit:
                        for h in self.units_of(seat, t):
                            self._push_if_choice(("merc", seat, h))
        self._settle()

    def _settle(self) -> None:
        """After a decision: stop on a win, wait for pending decisions, or pass the turn."""
        pending = self.pending
        if self.winner >= 0:
            pending.clear()
            return
        if pending:
            if pending[-1][0] == "footman":
                self._drop_idle_footman_frame()
            if pending:
                return
        if self.draft_order:
            return
        n = self.n
        hand = self.hand
        for k in range(1, n + 1):
            seat = (self.turn + k) % n
            if _holds_any(hand[seat]):
                self.turn = seat
                return
        self.new_round()

    def _drop_idle_footman_frame(self) -> None:
        """Drop a Footman-tactic frame on top whose remaining Footmen have no maneuver now."""
        while self.pending and self.pending[-1][0] == "footman":
            if self._frame_has_choice(self.pending[-1]):
                return
            self.pending.pop()

    def _pick(self, seat: int, t: int) -> None:
        self.draft_order.pop(0)
        self.draft_pool.remove(t)
        self.cards[seat].append(t)
        if not self.draft_order:
            for cards in self.cards:
                cards.sort()
            self.start_play()

    # ------------------------------------------------------------------ maneuvers and effects

    def _maneuver(self, op: ManeuverOp) -> None:
        _, seat, pay, h, verb, args = op
        if pay >= 0:
            self.hand[seat][pay] -= 1
            self.faceup[seat][pay] += 1
        elif pay == PAY_STACK:
            self.cell_h[h] -= 1
            self.faceup[self.cell_owner[h]][self.cell_unit[h]] += 1
        if verb == "move":
            self.move_unit(h, args[0])
            self.after_maneuver(args[0], "move")
        elif verb == "control":
            self.control(seat, h)
            self.after_maneuver(h, "control")
        elif verb == "attack":
            self.attack(seat, h, args[0], triggers=True)
        else:
            perform = PARTS.perform[self.cell_unit[h]]
            assert perform is not None
            perform(self, seat, h, args)

    def move_unit(self, a: int, b: int) -> None:
        """Move the whole stack on ``a`` to the empty hex ``b``."""
        t, owner = self.cell_unit[a], self.cell_owner[a]
        k = owner * NUM_TYPES + t
        hexes = self.unit_hexes[k]
        if len(hexes) == 1:
            self.unit_hexes[k] = (b,)
        else:
            self.unit_hexes[k] = tuple(sorted(b if x == a else x for x in hexes))
        self.cell_unit[b] = t
        self.cell_owner[b] = owner
        self.cell_h[b] = self.cell_h[a]
        self.cell_unit[a] = -1
        self.cell_owner[a] = -1
        self.cell_h[a] = 0

    def control(self, seat: int, h: int) -> None:
        """Put ``seat``'s team marker on ``h`` (an enemy marker there goes home); maybe win."""
        team = seat % 2
        before = self.ctrl[h]
        if before != team:
            held = list(self.held)
            if before >= 0:
                held[before] = tuple(x for x in held[before] if x != h)
            held[team] = tuple(sorted((*held[team], h)))
            self.held = (held[0], held[1])
        self.ctrl[h] = team
        if self.markers_placed(team) >= self.markers_total:
            self.winner = team
            self.pending.clear()

    def remove_coin(self, h: int) -> None:
        """One coin of the unit on ``h`` goes to the box; an empty stack leaves the board."""
        self.box[self.cell_owner[h]][self.cell_unit[h]] += 1
        self.cell_h[h] -= 1
        if self.cell_h[h] == 0:
            self._unplace(h, self.cell_unit[h], self.cell_owner[h])
            self.cell_unit[h] = -1
            self.cell_owner[h] = -1

    def attack(self, seat: int, src: int, tgt: int, triggers: bool) -> None:
        """The unit on ``src`` attacks the unit on ``tgt``.

        Royal Guard target with coins in its owner's supply: the owner decides first (a
        ``guard`` frame). Pikeman target attacked from an adjacent hex: the attacker loses a coin
        too. ``triggers``: run the attacker's after-attack effects (normal attacks only).
        """
        t = self.cell_unit[tgt]
        owner = self.cell_owner[tgt]
        if UNITS[t].supply_soak and self.supply[owner][t] > 0:
            if triggers:
                # ruling: a Warrior Priest's coin is drawn before the owner decides (as the
                # online game does); it is used after that decision (the stack is LIFO)
                self._draw_trigger(src)
            self.pending.append(("guard", owner, tgt, src, int(triggers)))
            return
        counter = UNITS[t].counter_loss and self.board.dist[src][tgt] == 1
        self.remove_coin(tgt)
        if counter:
            self.remove_coin(src)
        if triggers:
            self.after_maneuver(src, "attack")

    def _resolve_guard(self, frame: GuardFrame, from_supply: bool) -> None:
        _, owner, tgt, src, triggers = frame
        if from_supply:
            t = self.cell_unit[tgt]
            self.supply[owner][t] -= 1
            self.box[owner][t] += 1
        else:
            self.remove_coin(tgt)
        if triggers:
            self.after_maneuver(src, "attack", drawn=True)

    def after_maneuver(self, h: int, kind: Verb, drawn: bool = False) -> None:
        """Triggered attributes of the unit now on ``h`` after it maneuvered (owner decides).

        ``drawn``: a Warrior Priest's coin was already drawn (attacking a soaking Royal Guard).
        """
        if self.winner >= 0:
            return
        t = self.cell_unit[h]
        if t < 0:
            return
        spec = UNITS[t]
        owner = self.cell_owner[h]
        if spec.repeat_from_stack and self.cell_h[h] >= 2:
            self._push_if_choice(("repeat", owner, h))
        if spec.move_after_attack and kind == "attack":
            self._push_if_choice(("sword", owner, h))
        if kind in ("attack", "control") and not drawn:
            self._draw_trigger(h)

    def _draw_trigger(self, h: int) -> None:
        """Warrior Priest on ``h`` (any other unit: nothing): its owner draws a coin and must
        use it at once (a ``use`` frame)."""
        if not UNITS[self.cell_unit[h]].draw_after_attack_or_control:
            return
        owner = self.cell_owner[h]
        c = self.draw(owner)
        if c >= 0:
            self.hand[owner][c] += 1
            self.pending.append(("use", owner, c))

    def _army_frame(self, seat: int, t: int) -> FootmanFrame:
        """The Footman-tactic frame of ``seat``'s units of type ``t``."""
        return ("footman", seat, *tuple(self.units_of(seat, t)))

    def army_can_maneuver(self, seat: int, t: int) -> bool:
        """Whether one of ``seat``'s units of type ``t`` can make a maneuver (Footman tactic)."""
        return self._frame_has_choice(self._army_frame(seat, t))

    def start_army_tactic(self, seat: int, t: int) -> None:
        """Footman tactic: each of ``seat``'s units of type ``t`` performs one maneuver, in the
        order the player chooses; a unit left without a maneuver when its turn comes skips."""
        self._push_if_choice(self._army_frame(seat, t))

    # ------------------------------------------------------------------ distinct decisions

    def _attack_target(self, action: str) -> int:
        """The hex a legal action attacks (a normal attack or an attacking tactic), or -1."""
        if action not in self._legal_tuple():
            return -1
        op = self._decode(self._mover(), action)[0]
        if op[0] != "man":
            return -1
        _, _, pay, h, verb, args = op
        if verb == "attack":
            return args[0]
        if verb == "tactic" and pay != ROYAL:
            k = UNITS[self.cell_unit[h]].tactic_target
            return args[k] if k >= 0 else -1
        return -1

    def same_result_reason(self, a: str, b: str) -> str | None:
        """Why the legal actions ``a`` and ``b`` are different decisions though they reach the
        same position here, or None (read by the conformance rule ``distinct``).

        Two attacks on the same unit by different attackers or different paths (a normal
        attack and a Marshall's order, a Cavalry charge from two hexes, two Footmen) differ in
        the rules; their results coincide only when nothing tells the attackers apart
        afterwards, e.g. no trigger fired or a Pikeman's counter-loss removed the attacker.
        """
        target = self._attack_target(a)
        if target >= 0 and target == self._attack_target(b):
            return (f"both attack the unit on {self.board.name[target]}, with another attacker "
                    "or path; the results coincide in this position only")
        return None

    # ------------------------------------------------------------------ errors

    def _why_illegal(self, action: str) -> str:
        """Why a well-formed ``action`` is not legal now (slow path: see :mod:`explain`)."""
        return PARTS.why_illegal(self, action)

    # ------------------------------------------------------------------ copies and JSON

    def clone(self) -> WarChestState:
        new = WarChestState(self.seed, self.variant, blank=True)
        new.seed = self.seed
        new.variant = self.variant.copy()
        new.history = self.history[:]
        new.offset = self.offset
        new.log = self.log[:]
        new.seen = self.seen[:]
        new.n = self.n
        new.board = self.board
        new.rg_original = self.rg_original
        copy = list.copy
        new.cards = [*map(copy, self.cards)]
        new.cell_unit = self.cell_unit[:]
        new.cell_owner = self.cell_owner[:]
        new.cell_h = self.cell_h[:]
        new.unit_hexes = self.unit_hexes[:]
        new.ctrl = self.ctrl[:]
        new.held = self.held  # immutable: shared
        new.bag = [*map(copy, self.bag)]
        new.hand = [*map(copy, self.hand)]
        new.faceup = [*map(copy, self.faceup)]
        new.facedown = [*map(copy, self.facedown)]
        new.supply = [*map(copy, self.supply)]
        new.box = [*map(copy, self.box)]
        new.initiative = self.initiative
        new.init_changed = self.init_changed
        new.turn = self.turn
        new.round = self.round
        new.pending = self.pending[:]
        new.rng = self.rng
        new.draft_pool = self.draft_pool[:]
        new.draft_order = self.draft_order[:]
        new.winner = self.winner
        # the same position has the same legal actions: sharing the (immutable) tuple spares
        # the clone's ``apply`` the move generation
        new._legal = self._legal
        return new

    def __reduce__(self) -> tuple[Callable[[JSON], WarChestState], tuple[JSON]]:
        """Pickled as its JSON (:meth:`to_json`), rebuilt by :meth:`from_json`."""
        return PARTS.from_json, (self.to_json(),)

    def to_json(self) -> JSON:
        """The full state as JSON (hidden coins included: see :mod:`codec`)."""
        return PARTS.to_json(self)

    @classmethod
    def from_json(cls, data: JSON) -> WarChestState:
        """Rebuild a state from :meth:`to_json` (see :mod:`codec`)."""
        return PARTS.from_json(data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WarChestState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by value, not hashable

    @classmethod
    def replay(cls, seed: int, variant: dict[str, str], history: list[str]) -> WarChestState:
        """The state reached from ``new_game(seed, **variant)`` by applying ``history``."""
        state = PARTS.new_game(seed, variant)
        for action in history:
            state.apply(action)
        return state

    def __repr__(self) -> str:
        """An expression that rebuilds this state: a replay of its history from its seed, or,
        for a position no replay reaches (sampled or built by hand), its full JSON."""
        if not self.offset:
            try:
                if WarChestState.replay(self.seed, self.variant, self.history) == self:
                    return (f"WarChestState.replay({self.seed!r}, {self.variant!r}, "
                            f"{self.history!r})")
            except GameError:
                pass
        return f"WarChestState.from_json({self.to_json()!r})"

    def __str__(self) -> str:
        return PARTS.render(self)

    # ------------------------------------------------------------------ observation

    def observation(self, seat: int) -> JSON:
        return PARTS.observe(self, seat)

    def iter_units(self) -> Iterator[tuple[int, int, int, int]]:
        """``(hex, type, owner, height)`` of every unit on the board, by hex number."""
        for h, t in enumerate(self.cell_unit):
            if t >= 0:
                yield h, t, self.cell_owner[h], self.cell_h[h]
