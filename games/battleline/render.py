"""A compact text drawing of a Battle Line position (used by ``str(state)``).

One line per flag: seat 0's side, the environment cards, seat 1's side and who holds the flag.
Empty slots show as ``.``; a claimed flag shows ``<0`` or ``1>`` pointing at its owner's side.
This is the referee's view: the discard piles and every hand are listed below the flags. With
three players a small map of the triangle comes first, then each edge's three flags between
its two seats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.battleline.cards import CARD_NAMES, names_of

if TYPE_CHECKING:
    from games.battleline.state import BattleLineState

_SIDE_WIDTH = 22


def _side(cards: tuple[int, ...], capacity: int) -> str:
    names = [CARD_NAMES[c] for c in cards]
    names += ["."] * max(0, capacity - len(names))
    return " ".join(names)


def render(state: BattleLineState) -> str:
    """The board, both sides, environment cards, claimed flags, counts and the phase."""
    from games.battleline.notation import NUM_FLAGS

    if state.n > 2:
        return render_three(state)
    lines = _header(state)
    lines.append(f"flag {'seat 0':<{_SIDE_WIDTH}} {'env':<9} seat 1")
    lines += [_flag_row(state, f, 0, 1) for f in range(NUM_FLAGS)]
    return "\n".join(lines + _piles(state))


def _header(state: BattleLineState) -> list[str]:
    from games.battleline.state import PHASE_NAMES

    rules = state.variant.get("rules", "standard")
    if state.n > 2:
        rules += f", {state.n} players"
    if state.end_kind is not None:
        status = f"over: {state.reason}"
    else:
        status = f"seat {state.turn} to move ({PHASE_NAMES[state.phase]})"
    per_seat = range(state.n)
    return [
        f"Battle Line [{rules}] decision {state.ply}: {status}",
        f"decks: troops {len(state.decks[0])}, tactics {len(state.decks[1])} | "
        f"hands: {'/'.join(str(state.hands[s].bit_count()) for s in per_seat)} | "
        f"tactics played: {'/'.join(str(state.tactics_played[s]) for s in per_seat)}",
    ]


def _flag_row(state: BattleLineState, f: int, left_seat: int, right_seat: int) -> str:
    """One flag: the left seat's side, the environment cards, the right seat's side and
    ``<s`` or ``s>`` pointing at the side of the seat holding the flag."""
    from games.battleline.notation import NUM_FLAGS

    cap = state.capacity(f)
    env = []
    if state.fog[f] >= 0:
        env.append(f"fog{state.fog[f]}")
    if state.mud[f] >= 0:
        env.append(f"mud{state.mud[f]}")
    owner = state.claimed[f]
    mark = f"<{owner}" if owner == left_seat else f"{owner}>" if owner == right_seat else ""
    left = _side(state.sides[left_seat * NUM_FLAGS + f], cap)
    right = _side(state.sides[right_seat * NUM_FLAGS + f], cap)
    return (f"{f + 1:>3}  {left:<{_SIDE_WIDTH}} {' '.join(env):<9} "
            f"{right:<{_SIDE_WIDTH}} {mark}".rstrip())


def _piles(state: BattleLineState) -> list[str]:
    lines = []
    for seat in range(state.n):
        pile = " ".join(CARD_NAMES[c] for c in state.discards[seat])
        if pile:
            lines.append(f"discards seat {seat}: {pile}")
    for seat in range(state.n):
        lines.append(f"hand seat {seat}: {' '.join(names_of(state.hands[seat])) or '-'}")
    return lines


# The triangle of the three-player game: seat 0 at the top, seat 1 at the bottom right, seat 2
# at the bottom left; flags 1-3 run down the right edge, 4-6 along the bottom (right to left),
# 7-9 up the left edge. Each {fk} is flag k: its number, and the holder as ``:s`` once claimed.
_TRIANGLE = """\
                 seat 0
             {f9}       {f1}
          {f8}             {f2}
       {f7}                   {f3}
   seat 2                     seat 1
            {f6}    {f5}    {f4}"""


def render_three(state: BattleLineState) -> str:
    """The three-player board: a map of the triangle (who holds which flag), then each edge's
    three flags between its two seats, as in the two-player drawing."""
    cells: dict[str, str] = {}
    for f in range(9):
        owner = state.claimed[f]
        cells[f"f{f + 1}"] = f"{f + 1}:{owner}" if owner >= 0 else f"{f + 1}  "
    lines = _header(state)
    lines += [row.rstrip() for row in _TRIANGLE.format(**cells).split("\n")]
    for edge in range(3):
        first = 3 * edge
        left, right = state.layout.seats_at[first]
        lines.append(f"flag {f'seat {left}':<{_SIDE_WIDTH}} {'env':<9} seat {right}")
        lines += [_flag_row(state, f, left, right) for f in range(first, first + 3)]
    return "\n".join(lines + _piles(state))
