"""``str(state)``: the hex board and every player's piles, compact enough for a terminal.

Each hex is drawn in a 6-character slot on a staggered grid (column = 2q + r). The first
character marks a location: ``*`` neutral, ``A``/``B`` controlled by that faction, blank for a
plain hex. Then either the hex name (empty hex) or the unit: two-letter code, stack height and
owner seat, e.g. ``Sw21`` = seat 1's Swordsman, 2 coins high.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.warchest.units import COIN_NAMES, UNITS

if TYPE_CHECKING:
    from games.warchest.state import WarChestState

_TEAM = "AB"
_X_OFFSET = 8  # the grid column 2q + r runs from -8 to 8 on the 4-player board
_WIDTH = (2 * _X_OFFSET + 1) * 3 + 6


def _cell(s: WarChestState, h: int) -> str:
    b = s.board
    mark = " "
    if b.is_location[h]:
        mark = "*" if s.ctrl[h] < 0 else _TEAM[s.ctrl[h]]
    t = s.cell_unit[h]
    body = b.name[h] if t < 0 else f"{UNITS[t].code}{s.cell_h[h]}{s.cell_owner[h]}"
    return f"{mark}{body}"


def _pile(row: list[int]) -> str:
    items = [f"{COIN_NAMES[c]}x{k}" if k > 1 else COIN_NAMES[c] for c, k in enumerate(row) if k]
    return ", ".join(items) or "-"


def render_board(s: WarChestState) -> str:
    """The hex grid alone."""
    b = s.board
    lines = []
    for r in range(-3, 4):
        row = sorted((q, h) for h, (q, rr) in enumerate(b.coords) if rr == r)
        chars = [" "] * _WIDTH
        for q, h in row:
            col = (2 * q + r + _X_OFFSET) * 3
            text = _cell(s, h).ljust(6)
            chars[col:col + 6] = list(text)
        lines.append("".join(chars).rstrip())
    indent = min(len(line) - len(line.lstrip()) for line in lines)
    return "\n".join(line[indent:] for line in lines)


def render(s: WarChestState) -> str:
    """Board, markers, initiative and each player's piles (hands shown: the referee's view)."""
    end = s.end()
    status = end[1] if end else f"to move: seat {s.current_player}"
    head = (f"War Chest {s.n}p  round {s.round}  decisions {s.decisions}  "
            f"initiative: seat {s.initiative}{' (changed)' if s.init_changed else ''}  "
            f"markers A {s.markers_placed(0)}/{s.markers_total} "
            f"B {s.markers_placed(1)}/{s.markers_total}  {status}")
    lines = [head, render_board(s)]
    if s.draft_order:
        pool = ", ".join(UNITS[t].name for t in s.draft_pool)
        lines.append(f"draft pool: {pool}; pick order {s.draft_order}")
    for p in range(s.n):
        cards = ", ".join(UNITS[t].name for t in s.cards[p]) or "-"
        lines.append(
            f"seat {p} ({_TEAM[p % 2]}): {cards} | hand [{_pile(s.hand[p])}] "
            f"bag {sum(s.bag[p])} face-down {sum(s.facedown[p])} | face-up [{_pile(s.faceup[p])}]"
            f" | supply [{_pile(s.supply[p])}] | box [{_pile(s.box[p])}]"
        )
    if s.pending:
        lines.append("pending: " + "; ".join(f"{f[0]} (seat {f[1]})" for f in s.pending))
    return "\n".join(lines)
