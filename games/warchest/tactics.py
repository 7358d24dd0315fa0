"""The War Chest tactics: for each unit with one, a pair of hooks named by the unit's name.

``options(state, seat, hex)`` yields the argument tuples (hexes) the tactic of the unit on
``hex`` may take, and ``perform(state, seat, hex, args)`` carries it out. The state calls them
through :data:`games.warchest.state.PARTS`, which the package fills from :data:`TACTICS`: they
act on the state, so they live above it (the unit cards themselves are data in :mod:`units`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from games.warchest.ops import Args
from games.warchest.state import Options, Perform, WarChestState
from games.warchest.units import NEEDS_BOLSTERED, UNITS

# The options below test "an enemy the attacker may hit" inline: a unit of the other team
# (``state.is_enemy_at``) that is not a Knight unless the attacker is bolstered
# (``state.can_hit``); move generation runs them for every position.


def _archer_options(s: WarChestState, seat: int, h: int) -> Iterator[Args]:
    bolstered = s.cell_h[h] >= 2
    cu, co = s.cell_unit, s.cell_owner
    for t in s.board.ring2[h]:
        u = cu[t]
        if u >= 0 and (co[t] - seat) % 2 == 1 and (bolstered or not NEEDS_BOLSTERED[u]):
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
                        bolstered or not NEEDS_BOLSTERED[u]):
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
                    bolstered or not NEEDS_BOLSTERED[cu[t]]):
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
                    bolstered or not NEEDS_BOLSTERED[cu[t]]):
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
                        bolstered or not NEEDS_BOLSTERED[k]):
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


#: Unit name -> its tactic's hooks (options, perform).
TACTICS: Final[dict[str, tuple[Options, Perform]]] = {
    "archer": (_archer_options, _ranged_attack),
    "cavalry": (_cavalry_options, _move_then_attack),
    "crossbowman": (_crossbow_options, _ranged_attack),
    "ensign": (_ensign_options, _ensign_perform),
    "footman": (_footman_options, _footman_perform),
    "lancer": (_lancer_options, _move_then_attack),
    "light-cavalry": (_light_cavalry_options, _move_to),
    "marshall": (_marshall_options, _marshall_perform),
    "royal-guard": (_royal_guard_options, _move_to),
}
