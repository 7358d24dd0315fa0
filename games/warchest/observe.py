"""What one seat may know (:func:`observe`) and a full state consistent with it (:func:`sample`).

Public: the board, control markers, initiative, every supply, face-up discard and box, the cards,
the number of coins in each bag, hand and face-down pile, and the composition of each player's
bag + hand + face-down coins taken together ("pool"). The seat also sees its own hand and its own
face-down coins. Hidden: other hands, other face-down identities, and the state's random
generator (so the next bag draw cannot be predicted).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.protocol import JSON
from games.warchest.board import board_for
from games.warchest.ops import Frame, frame_from_ints
from games.warchest.state import WarChestState
from games.warchest.units import (
    COIN_BY_NAME,
    COIN_NAMES,
    NUM_COINS,
    NUM_TYPES,
    UNIT_BY_NAME,
    UNITS,
)

#: An observation as a bot holds it: a dict, or the referee's lazy mapping (a compiled
#: function would refuse anything but a dict under the dict type).
Observation = Mapping[str, Any]


def _counts(row: list[int]) -> dict[str, int]:
    return {COIN_NAMES[c]: k for c, k in enumerate(row) if k}


def _uncount(d: dict[str, int]) -> list[int]:
    row = [0] * NUM_COINS
    for name, k in d.items():
        row[COIN_BY_NAME[name]] = int(k)
    return row


def _frame_view(s: WarChestState, frame: Frame, seat: int) -> JSON:
    who = frame[1]
    names = s.board.name
    out: JSON = {"kind": frame[0], "seat": who}
    if frame[0] == "use":
        out["coin"] = COIN_NAMES[frame[2]] if who == seat else None
    elif frame[0] == "guard":
        out["hexes"] = [names[frame[2]], names[frame[3]]]
        out["triggers"] = bool(frame[4])
    else:
        owing: tuple[int, ...] = frame[2:]  # declared: mypyc cannot loop over *tuple[...]
        out["hexes"] = [names[h] for h in owing]
    return out


def observe(s: WarChestState, seat: int) -> JSON:
    """The observation of ``seat``: JSON, exactly what that seat may know."""
    names = s.board.name
    ended = s.end()
    pools = []
    for p in range(s.n):
        pools.append(_counts([a + b + c for a, b, c in zip(s.bag[p], s.hand[p], s.facedown[p],
                                                           strict=True)]))
    return {
        "game": "warchest",
        "seat": seat,
        "current_player": s.current_player,
        "players": s.n,
        "variant": dict(s.variant),
        "decisions": s.decisions,
        "phase": "over" if ended else ("draft" if s.draft_order else "play"),
        "round": s.round,
        "initiative": s.initiative,
        "initiative_changed": s.init_changed,
        "turn": s.turn,
        "board": [
            {"hex": names[h], "unit": UNITS[t].name, "owner": o, "height": k}
            for h, t, o, k in s.iter_units()
        ],
        "control": {names[h]: s.ctrl[h] for h in s.board.locations if s.ctrl[h] >= 0},
        "markers": [s.markers_placed(0), s.markers_placed(1)],
        "markers_total": s.markers_total,
        "cards": [[UNITS[t].name for t in cards] for cards in s.cards],
        "supply": [_counts(row) for row in s.supply],
        "faceup": [_counts(row) for row in s.faceup],
        "box": [_counts(row) for row in s.box],
        "pool": pools,
        "bag_count": [sum(row) for row in s.bag],
        "hand_count": [sum(row) for row in s.hand],
        "facedown_count": [sum(row) for row in s.facedown],
        "hand": _counts(s.hand[seat]),
        "facedown": _counts(s.facedown[seat]),
        "pending": [_frame_view(s, f, seat) for f in s.pending],
        "draft": {"pool": [UNITS[t].name for t in s.draft_pool], "order": list(s.draft_order)},
        "end": None if ended is None else {
            "kind": ended[0].value, "reason": ended[1], "winner_team": s.winner,
        },
        "events": [{"seat": who, "action": a, "auto": False} for who, a in s.log[s.seen[seat]:]],
    }


def _deal(pool: list[int], sizes: tuple[int, int], rng: random.Random) -> tuple[list[int], ...]:
    """Split a pool of coins at random into piles of the given sizes and the rest."""
    coins = [c for c, k in enumerate(pool) for _ in range(k)]
    rng.shuffle(coins)
    piles = []
    start = 0
    for size in sizes:
        row = [0] * NUM_COINS
        for c in coins[start:start + size]:
            row[c] += 1
        piles.append(row)
        start += size
    rest = [0] * NUM_COINS
    for c in coins[start:]:
        rest[c] += 1
    return piles[0], piles[1], rest


def sample(obs: Observation, rng: random.Random) -> WarChestState:
    """A full state consistent with ``obs``: hidden coins dealt at random, a fresh generator."""
    seat = int(obs["seat"])
    s = WarChestState(rng.getrandbits(32), dict(obs["variant"]))
    board = board_for(s.n)
    s.offset = int(obs["decisions"])
    s.round = int(obs["round"])
    s.initiative = int(obs["initiative"])
    s.init_changed = bool(obs["initiative_changed"])
    s.turn = int(obs["turn"])
    s.cards = [[UNIT_BY_NAME[name] for name in cards] for cards in obs["cards"]]
    # the board, and with it the state's indexes of units and of control markers (what
    # WarChestState.reindex would rebuild from it)
    by_name = board.by_name
    cell_unit, cell_owner, cell_h, index = s.cell_unit, s.cell_owner, s.cell_h, s.unit_hexes
    for u in obs["board"]:
        h = by_name[u["hex"]]
        t = cell_unit[h] = UNIT_BY_NAME[u["unit"]]
        owner = cell_owner[h] = int(u["owner"])
        cell_h[h] = int(u["height"])
        k = owner * NUM_TYPES + t
        index[k] = tuple(sorted((*index[k], h))) if index[k] else (h,)
    marked: tuple[list[int], list[int]] = ([], [])
    ctrl = s.ctrl
    for name, team in obs["control"].items():
        h = by_name[name]
        marked[int(team)].append(h)
        ctrl[h] = int(team)
    s.held = (tuple(sorted(marked[0])), tuple(sorted(marked[1])))
    s.supply = [_uncount(d) for d in obs["supply"]]
    s.faceup = [_uncount(d) for d in obs["faceup"]]
    s.box = [_uncount(d) for d in obs["box"]]
    for p in range(s.n):
        pool = _uncount(obs["pool"][p])
        if p == seat:
            s.hand[p] = _uncount(obs["hand"])
            s.facedown[p] = _uncount(obs["facedown"])
            s.bag[p] = [a - b - c for a, b, c in zip(pool, s.hand[p], s.facedown[p], strict=True)]
        else:
            sizes = (int(obs["hand_count"][p]), int(obs["facedown_count"][p]))
            s.hand[p], s.facedown[p], s.bag[p] = _deal(pool, sizes, rng)
    for f in obs["pending"]:
        kind, who = str(f["kind"]), int(f["seat"])
        if kind == "use":
            coin = f["coin"]
            if coin is None:
                held = [c for c, k in enumerate(s.hand[who]) for _ in range(k)]
                c = rng.choice(held)
            else:
                c = COIN_BY_NAME[coin]
            s.pending.append(("use", who, c))
        elif kind == "guard":
            hexes = [board.by_name[x] for x in f["hexes"]]
            s.pending.append(("guard", who, hexes[0], hexes[1], int(bool(f["triggers"]))))
        else:
            s.pending.append(frame_from_ints(kind, who, [board.by_name[x] for x in f["hexes"]]))
    s.draft_pool = [UNIT_BY_NAME[name] for name in obs["draft"]["pool"]]
    s.draft_order = [int(x) for x in obs["draft"]["order"]]
    end = obs["end"]
    if end is not None:
        s.winner = int(end["winner_team"])
    s.log = [(int(e["seat"]), str(e["action"])) for e in obs["events"]]
    s.rng = rng.getrandbits(64) | 1
    return s
