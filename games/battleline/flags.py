"""Where the flags lie: which two seats face each other at each flag, and each seat's line.

Two players: the nine flags lie in a row between seats 0 and 1, adjacent by number, and five
flags win. Three players (rulebook 003): the flags form a triangle, flags 1–3 between seats 0
and 1, 4–6 between seats 1 and 2, 7–9 between seats 2 and 0. A seat's line is its six flags in
order around the triangle (seat 0: 7 8 9 1 2 3), adjacency follows the line and may turn the
corner, and four flags win. Every rule that asks "who is my opponent here?" asks the layout.

>>> layout = layout_for(3)
>>> [f + 1 for f in layout.line[0]], layout.opponent[0][8], layout.opponent[0][4]
([7, 8, 9, 1, 2, 3], 2, -1)
>>> [[f + 1 for f in run] for run in layout.runs[1]]
[[1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

NUM_FLAGS: Final = 9


@dataclass(frozen=True)
class Layout:
    """The flag geometry of one player count (tables indexed by seat, then flag 0..8)."""

    players: int
    seats_at: tuple[tuple[int, int], ...]  # per flag: the two seats facing each other there
    opponent: tuple[tuple[int, ...], ...]  # [seat][flag]: the other seat there, -1 if absent
    opponent_side: tuple[tuple[int, ...], ...]  # [seat][flag]: side index of that opponent
    line: tuple[tuple[int, ...], ...]  # per seat: its flags in line order
    line_mask: tuple[int, ...]  # per seat: bit mask of its flags
    runs: tuple[tuple[tuple[int, int, int], ...], ...]  # per seat: every 3 adjacent flags
    run_masks: tuple[tuple[int, ...], ...]  # the same runs as masks
    opponents: tuple[tuple[int, ...], ...]  # per seat: the other seats, in seat order
    to_win: int  # flags in all that win (5 with two players, 4 with three)


def _build(players: int, seats_at: list[tuple[int, int]], lines: list[list[int]],
           to_win: int) -> Layout:
    opponent = [[-1] * NUM_FLAGS for _ in range(players)]
    for f, (a, b) in enumerate(seats_at):
        opponent[a][f] = b
        opponent[b][f] = a
    runs = tuple(
        tuple((line[i], line[i + 1], line[i + 2]) for i in range(len(line) - 2)) for line in lines
    )
    return Layout(
        players=players,
        seats_at=tuple(seats_at),
        opponent=tuple(tuple(row) for row in opponent),
        opponent_side=tuple(
            tuple(o * NUM_FLAGS + f if o >= 0 else -1 for f, o in enumerate(row))
            for row in opponent
        ),
        line=tuple(tuple(line) for line in lines),
        line_mask=tuple(sum(1 << f for f in line) for line in lines),
        runs=runs,
        run_masks=tuple(tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in r) for r in runs),
        opponents=tuple(tuple(o for o in range(players) if o != s) for s in range(players)),
        to_win=to_win,
    )


TWO_PLAYERS: Final = _build(2, [(0, 1)] * NUM_FLAGS, [list(range(NUM_FLAGS))] * 2, 5)
THREE_PLAYERS: Final = _build(
    3,
    [(0, 1)] * 3 + [(1, 2)] * 3 + [(2, 0)] * 3,
    [[6, 7, 8, 0, 1, 2], [0, 1, 2, 3, 4, 5], [3, 4, 5, 6, 7, 8]],
    4,
)


def layout_for(players: int) -> Layout:
    """The layout of a player count (2 or 3)."""
    return TWO_PLAYERS if players == 2 else THREE_PLAYERS
