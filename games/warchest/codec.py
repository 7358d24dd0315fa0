"""War Chest states as JSON: the referee's full view, hidden coins and the generator included.

:func:`to_json` and :func:`from_json` round-trip every field of a state (the board tables are
rebuilt from the player count, the index of units from the board, the legal-action cache is
recomputed on demand).

>>> from games.warchest import GAME
>>> state = GAME.new_game(3)
>>> state.apply(state.legal_actions()[0])
>>> from_json(to_json(state)) == state
True
"""

from __future__ import annotations

from games.protocol import JSON
from games.warchest.ops import frame_from_ints
from games.warchest.state import WarChestState

#: The piles of coins, per seat a list of counts by coin number.
PILES = ("bag", "hand", "faceup", "facedown", "supply", "box")
#: Flat lists of ints.
ROWS = ("cell_unit", "cell_owner", "cell_h", "ctrl", "draft_pool", "draft_order")


def to_json(s: WarChestState) -> JSON:
    """The full state as JSON (hidden coins included: this is the referee's view)."""
    data: JSON = {
        "game": "warchest",
        "seed": s.seed,
        "variant": dict(s.variant),
        "history": list(s.history),
        "offset": s.offset,
        "log": [list(e) for e in s.log],
        "seen": list(s.seen),
        "cards": [list(x) for x in s.cards],
    }
    for key in ROWS[:4]:
        data[key] = list(getattr(s, key))
    for key in PILES:
        data[key] = [list(x) for x in getattr(s, key)]
    data.update({
        "initiative": s.initiative,
        "init_changed": s.init_changed,
        "turn": s.turn,
        "round": s.round,
        "pending": [list(f) for f in s.pending],
        "rng": s.rng,
        "draft_pool": list(s.draft_pool),
        "draft_order": list(s.draft_order),
        "winner": s.winner,
    })
    return data


def from_json(data: JSON) -> WarChestState:
    """Rebuild a state from :func:`to_json`."""
    s = WarChestState(int(data["seed"]), dict(data["variant"]))
    s.history = [str(a) for a in data["history"]]
    s.offset = int(data["offset"])
    # states saved before the public log existed have none
    s.log = [(int(seat), str(a)) for seat, a in data.get("log", [])]
    s.seen = [int(x) for x in data.get("seen", [0] * s.n)]
    s.cards = [[int(v) for v in row] for row in data["cards"]]
    for key in PILES:
        setattr(s, key, [[int(v) for v in row] for row in data[key]])
    for key in ROWS:
        setattr(s, key, [int(v) for v in data[key]])
    s.reindex()
    s.initiative = int(data["initiative"])
    s.init_changed = bool(data["init_changed"])
    s.turn = int(data["turn"])
    s.round = int(data["round"])
    s.pending = [frame_from_ints(str(f[0]), int(f[1]), [int(v) for v in f[2:]])
                 for f in data["pending"]]
    s.rng = int(data["rng"])
    s.winner = int(data["winner"])
    return s
