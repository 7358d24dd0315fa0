"""Build War Chest positions from a compact description, for scenario tests.

>>> s = position("archer@f4:0x2 knight@f6:1", hands={0: "archer royal"})
>>> s.cell_h[s.board.by_name["f4"]], s.turn
(2, 0)

* ``units``: space-separated ``type@hex:seat`` with an optional ``xHEIGHT`` (default 1);
* ``hands`` / ``bags`` / ``faceup`` / ``facedown`` / ``supply``: per seat, space-separated coin
  names (repeat a name for several coins);
* ``control``: ``{hex: team}``; default: the start locations of the board;
* ``cards``: per seat, extra unit names the seat plays (the unit types in ``units``, hands and
  supply are added automatically).
"""

from __future__ import annotations

from games.warchest.board import board_for
from games.warchest.state import WarChestState
from games.warchest.units import COIN_BY_NAME, ROYAL, UNIT_BY_NAME


def _coins(text: str) -> list[int]:
    return [COIN_BY_NAME[name] for name in text.split()]


def position(
    units: str = "",
    *,
    players: int = 2,
    hands: dict[int, str] | None = None,
    bags: dict[int, str] | None = None,
    faceup: dict[int, str] | None = None,
    facedown: dict[int, str] | None = None,
    supply: dict[int, str] | None = None,
    cards: dict[int, str] | None = None,
    control: dict[str, int] | None = None,
    turn: int = 0,
    initiative: int = 0,
    royal_guard: str = "revised",
    seed: int = 1,
) -> WarChestState:
    """A position in the middle of round 1 with ``turn`` to play (see the module docstring)."""
    variant = {"players": str(players), "setup": "random", "royal-guard": royal_guard}
    s = WarChestState(seed, variant)
    board = board_for(players)
    owned: list[set[int]] = [set() for _ in range(players)]
    for spec in units.split():
        body, _, height = spec.partition("x")
        name, _, where = body.partition("@")
        hex_name, _, owner = where.partition(":")
        h = board.by_name[hex_name]
        t = UNIT_BY_NAME[name]
        s.cell_unit[h] = t
        s.cell_owner[h] = int(owner)
        s.cell_h[h] = int(height or 1)
        owned[int(owner)].add(t)
    piles = {"hand": hands, "bag": bags, "faceup": faceup, "facedown": facedown,
             "supply": supply}
    for attr, given in piles.items():
        for seat, text in (given or {}).items():
            rows = getattr(s, attr)
            for c in _coins(text):
                rows[seat][c] += 1
                if c != ROYAL:
                    owned[seat].add(c)
    for seat, text in (cards or {}).items():
        owned[seat].update(UNIT_BY_NAME[n] for n in text.split())
    s.cards = [sorted(x) for x in owned]
    if control is None:
        for team in (0, 1):
            for h in board.start[team]:
                s.ctrl[h] = team
    else:
        for hx, team in control.items():
            s.ctrl[board.by_name[hx]] = team
    s.reindex()
    s.round = 1
    s.turn = turn
    s.initiative = initiative
    return s


def hx(s: WarChestState, name: str) -> int:
    """The hex number of a hex name on ``s``'s board."""
    return s.board.by_name[name]


def unit_at(s: WarChestState, name: str) -> tuple[str, int, int] | None:
    """``(unit, owner, height)`` on a hex, or None if empty."""
    from games.warchest.units import UNITS

    h = hx(s, name)
    t = s.cell_unit[h]
    if t < 0:
        return None
    return UNITS[t].name, s.cell_owner[h], s.cell_h[h]
