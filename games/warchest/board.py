"""Hex geometry of the War Chest boards, computed once at import into integer tables.

Hexes use axial coordinates ``(q, r)``; the six neighbours differ by (±1,0), (0,±1), (+1,−1) and
(−1,+1), and the distance is ``max(|dq|, |dr|, |dq+dr|)``. Inside the engine a hex is a small
int (its index on the board); every table below is indexed by it.

Hex names (the action notation): a column letter for ``q`` (``a`` = −5 … ``f`` = 0 … ``k`` = 5)
followed by a row digit for ``r`` (``1`` = −3 … ``4`` = 0 … ``7`` = 3). The centre (0,0) is
``f4``. A name means the same hex on both boards; the 4-player board only adds hexes.

>>> BOARD2.size, len(BOARD2.locations), BOARD4.size, len(BOARD4.locations)
(37, 10, 47, 14)
>>> BOARD2.name[BOARD2.index[(0, 0)]]
'f4'
>>> hex_distance((0, 0), (2, -3))
3
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

Axial = tuple[int, int]

#: The six directions, in order; direction ``d`` and ``(d + 3) % 6`` are opposite.
DIRECTIONS: Final[tuple[Axial, ...]] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

#: Hexes added to the 37 inner ones on the 4-player board.
OUTER_HEXES: Final[tuple[Axial, ...]] = ((-4, 1), (-4, 2), (-4, 3), (-5, 2), (-5, 3),
                                  (4, -3), (4, -2), (4, -1), (5, -3), (5, -2))

#: Start locations per team (team 0 = faction A, team 1 = faction B), both boards.
START_2P: Final[tuple[tuple[Axial, ...], tuple[Axial, ...]]] = (
    ((-1, -2), (2, -3)), ((-2, 3), (1, 2)))
NEUTRAL_2P: Final[tuple[Axial, ...]] = ((-2, 0), (1, -1), (3, -2), (-3, 2), (-1, 1), (2, 0))
#: The 4-player board's extra locations.
START_4P_EXTRA: Final[tuple[Axial, Axial]] = ((-4, 1), (4, -1))
NEUTRAL_4P_EXTRA: Final[tuple[Axial, ...]] = ((-5, 3), (5, -3))

Q_MIN, R_MIN = -5, -3


def hex_distance(a: Axial, b: Axial) -> int:
    """Axial hex distance."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def hex_name(h: Axial) -> str:
    """The notation name of an axial hex: ``(0, 0)`` -> ``'f4'``."""
    return f"{chr(ord('a') + h[0] - Q_MIN)}{h[1] - R_MIN + 1}"


def parse_hex_name(name: str) -> Axial | None:
    """The axial hex a name denotes, or None if the name is not of the form letter+digit."""
    if len(name) != 2 or not ("a" <= name[0] <= "k") or not ("1" <= name[1] <= "7"):
        return None
    return (ord(name[0]) - ord("a") + Q_MIN, int(name[1]) - 1 + R_MIN)


@dataclass(frozen=True, eq=False)
class Board:
    """One board's hexes and precomputed tables (all indexed by hex number)."""

    players: int
    coords: tuple[Axial, ...]
    index: dict[Axial, int]
    name: tuple[str, ...]
    by_name: dict[str, int]
    neighbours: tuple[tuple[int, ...], ...]
    step: tuple[tuple[int, ...], ...]  # step[d][h]: the next hex in direction d, or -1
    dist: tuple[tuple[int, ...], ...]
    ring2: tuple[tuple[int, ...], ...]  # hexes at distance exactly 2
    within2: tuple[tuple[int, ...], ...]  # hexes at distance 1 or 2
    is_location: tuple[bool, ...]
    locations: tuple[int, ...]
    start: tuple[tuple[int, ...], tuple[int, ...]]  # per team

    @property
    def size(self) -> int:
        return len(self.coords)

    def adjacent(self, a: int, b: int) -> bool:
        return self.dist[a][b] == 1


def _inner_hexes() -> list[Axial]:
    span = range(-3, 4)
    cells = [(q, r) for r in span for q in span if hex_distance((q, r), (0, 0)) <= 3]
    return sorted(cells, key=lambda h: (h[1], h[0]))


def build_board(players: int) -> Board:
    """Build the 2-player (37 hexes) or 4-player (47 hexes) board."""
    coords = _inner_hexes()
    starts = [list(START_2P[0]), list(START_2P[1])]
    locs = [*START_2P[0], *START_2P[1], *NEUTRAL_2P]
    if players == 4:
        coords += sorted(OUTER_HEXES, key=lambda h: (h[1], h[0]))
        starts[0].append(START_4P_EXTRA[0])
        starts[1].append(START_4P_EXTRA[1])
        locs += [*START_4P_EXTRA, *NEUTRAL_4P_EXTRA]
    index = {h: i for i, h in enumerate(coords)}
    n = len(coords)
    step = tuple(
        tuple(index.get((q + dq, r + dr), -1) for (q, r) in coords) for (dq, dr) in DIRECTIONS
    )
    neighbours = tuple(tuple(step[d][h] for d in range(6) if step[d][h] >= 0) for h in range(n))
    dist = tuple(tuple(hex_distance(a, b) for b in coords) for a in coords)
    loc_set = {index[h] for h in locs}
    names = tuple(hex_name(h) for h in coords)
    return Board(
        players=players,
        coords=tuple(coords),
        index=index,
        name=names,
        by_name={nm: i for i, nm in enumerate(names)},
        neighbours=neighbours,
        step=step,
        dist=dist,
        ring2=tuple(tuple(b for b in range(n) if dist[a][b] == 2) for a in range(n)),
        within2=tuple(tuple(b for b in range(n) if 1 <= dist[a][b] <= 2) for a in range(n)),
        is_location=tuple(h in loc_set for h in range(n)),
        locations=tuple(sorted(loc_set)),
        start=(tuple(index[h] for h in starts[0]), tuple(index[h] for h in starts[1])),
    )


BOARD2: Final = build_board(2)
BOARD4: Final = build_board(4)

#: Every name that denotes a hex on some board (the notation's alphabet of hexes).
ALL_HEX_NAMES: Final[frozenset[str]] = frozenset(BOARD4.name)


def board_for(players: int) -> Board:
    """The board used with that many players."""
    return BOARD4 if players == 4 else BOARD2
