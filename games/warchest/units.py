"""The 16 War Chest unit cards as data, with their tactics as small named hooks.

Each unit is one :class:`UnitSpec`: its notation name, coin count, a two-letter code for the
board drawing, its attributes as flags, and (if it has one) its tactic as a pair of functions:
``options(state, seat, hex)`` yields the argument tuples (hexes) the tactic may take, and
``perform(state, seat, hex, args)`` carries it out. To add an expansion unit, append one spec to
:data:`UNITS` (and give it hooks); nothing else in the engine names individual units except the
attributes that the core rules consult through the flags below.

Coins are ints: a unit type's index in :data:`UNITS`, or :data:`ROYAL` for the Royal Coin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from games.warchest.ops import Args

if TYPE_CHECKING:
    from games.warchest.state import WarChestState

Options = Callable[["WarChestState", int, int], Iterator[Args]]
Perform = Callable[["WarChestState", int, int, Args], None]


@dataclass(frozen=True)
class UnitSpec:
    """One unit card."""

    name: str  # notation name, e.g. "light-cavalry"
    title: str  # card title
    coins: int  # coins of this type in the box
    code: str  # two letters for the board drawing
    tactic_args: int = -1  # hexes the tactic takes in the notation; -1: no tactic
    army_tactic: bool = False  # Footman: one tactic for all units of the type, named by no hex
    tactic_target: int = -1  # which hex of the tactic's notation it attacks; -1: no attack
    normal_attack: bool = True  # False: Archer and Lancer may not make a normal attack
    max_units: int = 1  # Footman: 2
    deploy_next_to_friend: bool = False  # Scout
    needs_bolstered_attacker: bool = False  # Knight
    counter_loss: bool = False  # Pikeman
    repeat_from_stack: bool = False  # Berserker
    move_after_attack: bool = False  # Swordsman
    draw_after_attack_or_control: bool = False  # Warrior Priest
    maneuver_on_recruit: bool = False  # Mercenary
    supply_soak: bool = False  # Royal Guard
    royal_tactic: bool = False  # Royal Guard: its tactic is paid with the Royal Coin
    options: Options | None = None
    perform: Perform | None = None


# --- tactic hooks ----------------------------------------------------------------------------


# The options below test "an enemy the attacker may hit" inline: a unit of the other team
# (``state.is_enemy_at``) that is not a Knight unless the attacker is bolstered
# (``state.can_hit``); move generation runs them for every position.


def _archer_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    bolstered = s.cell_h[h] >= 2
    cu, co = s.cell_unit, s.cell_owner
    for t in s.board.ring2[h]:
        u = cu[t]
        if u >= 0 and (co[t] - seat) % 2 == 1 and (bolstered or not _NEEDS_BOLSTERED[u]):
            yield (t,)


def _ranged_attack(s: WarChestState, seat: int, h: int, args: Args) -> None:
    s.attack(seat, h, args[0], triggers=False)


def _cavalry_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    bolstered = s.cell_h[h] >= 2
    cu, co = s.cell_unit, s.cell_owner
    nb = s.board.neighbours
    for m in nb[h]:
        if cu[m] < 0:
            for t in nb[m]:
                u = cu[t]
                if t != h and u >= 0 and (co[t] - seat) % 2 == 1 and (
                        bolstered or not _NEEDS_BOLSTERED[u]):
                    yield (m, t)


def _move_then_attack(s: WarChestState, seat: int, h: int, args: Args) -> None:
    s.move_unit(h, args[0])
    s.attack(seat, args[0], args[1], triggers=False)


def _crossbow_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    bolstered = s.cell_h[h] >= 2
    cu, co = s.cell_unit, s.cell_owner
    for line in s.board.step:
        m = line[h]
        if m >= 0 and cu[m] < 0:
            t = line[m]
            if t >= 0 and cu[t] >= 0 and (co[t] - seat) % 2 == 1 and (
                    bolstered or not _NEEDS_BOLSTERED[cu[t]]):
                yield (t,)


def _lancer_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    bolstered = s.cell_h[h] >= 2
    cu, co = s.cell_unit, s.cell_owner
    for line in s.board.step:
        m = line[h]
        for _ in range(2):
            if m < 0 or cu[m] >= 0:
                break
            t = line[m]
            if t >= 0 and cu[t] >= 0 and (co[t] - seat) % 2 == 1 and (
                    bolstered or not _NEEDS_BOLSTERED[cu[t]]):
                yield (m, t)
            m = t


def _reach2(s: WarChestState, h: int) -> list[int]:
    """Empty hexes reachable from ``h`` in one or two steps through empty hexes."""
    nb = s.board.neighbours
    cu = s.cell_unit
    out: list[int] = []
    for m in nb[h]:
        if cu[m] < 0:
            if m not in out:
                out.append(m)
            for d in nb[m]:
                if d != h and cu[d] < 0 and d not in out:
                    out.append(d)
    return out


def _light_cavalry_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    # "move two spaces": the end hex is 2 away; a 1-hex move is the plain move action
    dist = s.board.dist[h]
    for d in _reach2(s, h):
        if dist[d] == 2:
            yield (d,)


def _move_to(s: WarChestState, seat: int, h: int, args: Args) -> None:
    s.move_unit(h, args[0])


def _ensign_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    b = s.board
    cu, co = s.cell_unit, s.cell_owner
    dist = b.dist[h]
    for u in b.within2[h]:
        if cu[u] >= 0 and (co[u] - seat) % 2 == 0:
            for v in b.neighbours[u]:
                if cu[v] < 0 and dist[v] <= 2:
                    yield (u, v)


def _ensign_perform(s: WarChestState, seat: int, h: int, args: Args) -> None:
    s.move_unit(args[0], args[1])
    s.after_maneuver(args[1], "move")


def _marshall_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    b = s.board
    cu, co = s.cell_unit, s.cell_owner
    for u in b.within2[h]:
        if cu[u] >= 0 and (co[u] - seat) % 2 == 0 and UNITS[cu[u]].normal_attack:
            bolstered = s.cell_h[u] >= 2
            owner = co[u]
            for t in b.neighbours[u]:
                k = cu[t]
                if k >= 0 and (co[t] - owner) % 2 == 1 and (
                        bolstered or not _NEEDS_BOLSTERED[k]):
                    yield (u, t)


def _marshall_perform(s: WarChestState, seat: int, h: int, args: Args) -> None:
    s.attack(s.cell_owner[args[0]], args[0], args[1], triggers=True)


def _footman_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    # only when it does something: some Footman unit has a maneuver (each one that has must)
    if s.army_can_maneuver(seat, s.cell_unit[h]):
        yield ()


def _footman_perform(s: WarChestState, seat: int, h: int, args: Args) -> None:
    s.start_army_tactic(seat, s.cell_unit[h])


def _royal_guard_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    if s.rg_original:
        for d in s.board.neighbours[h]:
            if s.cell_unit[d] < 0:
                yield (d,)
        return
    # the empty locations the team controls (few: s.held) one step away, or two steps
    # through an empty hex
    cu = s.cell_unit
    dist = s.board.dist
    around = s.board.neighbours[h]
    for d in s.held[seat % 2]:
        if cu[d] < 0:
            steps = dist[h][d]
            if steps == 1:
                yield (d,)
            elif steps == 2:
                back = dist[d]
                for m in around:
                    if cu[m] < 0 and back[m] == 1:
                        yield (d,)
                        break


UNITS: tuple[UnitSpec, ...] = (
    UnitSpec("archer", "Archer", 4, "Ar", 1, normal_attack=False, tactic_target=0,
             options=_archer_options, perform=_ranged_attack),
    UnitSpec("berserker", "Berserker", 5, "Be", repeat_from_stack=True),
    UnitSpec("cavalry", "Cavalry", 4, "Ca", 2, tactic_target=1, options=_cavalry_options,
             perform=_move_then_attack),
    UnitSpec("crossbowman", "Crossbowman", 5, "Cr", 1, tactic_target=0,
             options=_crossbow_options, perform=_ranged_attack),
    UnitSpec("ensign", "Ensign", 5, "En", 2, options=_ensign_options, perform=_ensign_perform),
    UnitSpec("footman", "Footman", 5, "Fo", 0, max_units=2, army_tactic=True,
             options=_footman_options, perform=_footman_perform),
    UnitSpec("knight", "Knight", 4, "Kn", needs_bolstered_attacker=True),
    UnitSpec("lancer", "Lancer", 4, "La", 2, normal_attack=False, tactic_target=1,
             options=_lancer_options, perform=_move_then_attack),
    UnitSpec("light-cavalry", "Light Cavalry", 5, "LC", 1, options=_light_cavalry_options,
             perform=_move_to),
    UnitSpec("marshall", "Marshall", 5, "Ma", 2, tactic_target=1, options=_marshall_options,
             perform=_marshall_perform),
    UnitSpec("mercenary", "Mercenary", 5, "Me", maneuver_on_recruit=True),
    UnitSpec("pikeman", "Pikeman", 4, "Pi", counter_loss=True),
    UnitSpec("royal-guard", "Royal Guard", 5, "RG", 1, supply_soak=True, royal_tactic=True,
             options=_royal_guard_options, perform=_move_to),
    UnitSpec("scout", "Scout", 5, "Sc", deploy_next_to_friend=True),
    UnitSpec("swordsman", "Swordsman", 5, "Sw", move_after_attack=True),
    UnitSpec("warrior-priest", "Warrior Priest", 4, "WP", draw_after_attack_or_control=True),
)

NUM_TYPES = len(UNITS)
#: Per unit type: only a bolstered attacker may attack it (Knight; read by the options).
_NEEDS_BOLSTERED = tuple(u.needs_bolstered_attacker for u in UNITS)
#: The Royal Coin's coin number.
ROYAL = NUM_TYPES
NUM_COINS = NUM_TYPES + 1
ROYAL_NAME = "royal"

#: Coin number -> notation name, and back.
COIN_NAMES: tuple[str, ...] = (*(u.name for u in UNITS), ROYAL_NAME)
COIN_BY_NAME: dict[str, int] = {n: i for i, n in enumerate(COIN_NAMES)}
UNIT_BY_NAME: dict[str, int] = {u.name: i for i, u in enumerate(UNITS)}


def unit_index(name: str) -> int:
    """The index of a unit by its notation name (KeyError if unknown)."""
    return UNIT_BY_NAME[name]


#: The first-game armies (rulebook picture): faction A, then faction B.
FIRST_GAME: tuple[tuple[int, ...], tuple[int, ...]] = (
    tuple(unit_index(n) for n in ("swordsman", "pikeman", "crossbowman", "light-cavalry")),
    tuple(unit_index(n) for n in ("archer", "cavalry", "lancer", "scout")),
)
