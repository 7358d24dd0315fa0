"""A compact text drawing of a Battle Line position (used by ``str(state)``).

One line per flag: seat 0's side, the environment cards, seat 1's side and who holds the flag.
Empty slots show as ``.``; a claimed flag shows ``<0`` or ``1>`` pointing at its owner's side.
This is the referee's view: the discard piles and both hands are listed below the flags.
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
    from games.battleline.state import PHASE_NAMES

    rules = state.variant.get("rules", "standard")
    if state.end_kind is not None:
        status = f"over: {state.reason}"
    else:
        status = f"seat {state.turn} to move ({PHASE_NAMES[state.phase]})"
    lines = [
        f"Battle Line [{rules}] decision {state.ply}: {status}",
        f"decks: troops {len(state.decks[0])}, tactics {len(state.decks[1])} | "
        f"hands: {state.hands[0].bit_count()}/{state.hands[1].bit_count()} | "
        f"tactics played: {state.tactics_played[0]}/{state.tactics_played[1]}",
        f"flag {'seat 0':<{_SIDE_WIDTH}} {'env':<9} seat 1",
    ]
    for f in range(NUM_FLAGS):
        cap = state.capacity(f)
        env = []
        if state.fog[f] >= 0:
            env.append(f"fog{state.fog[f]}")
        if state.mud[f] >= 0:
            env.append(f"mud{state.mud[f]}")
        owner = state.claimed[f]
        mark = "<0" if owner == 0 else "1>" if owner == 1 else ""
        left = _side(state.sides[f], cap)
        right = _side(state.sides[NUM_FLAGS + f], cap)
        lines.append(
            f"{f + 1:>3}  {left:<{_SIDE_WIDTH}} {' '.join(env):<9} "
            f"{right:<{_SIDE_WIDTH}} {mark}".rstrip()
        )
    for seat in (0, 1):
        pile = " ".join(CARD_NAMES[c] for c in state.discards[seat])
        if pile:
            lines.append(f"discards seat {seat}: {pile}")
    for seat in (0, 1):
        lines.append(f"hand seat {seat}: {' '.join(names_of(state.hands[seat])) or '-'}")
    return "\n".join(lines)
