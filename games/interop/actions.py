"""Fixed action spaces: every action string of a game and variant has one index, and back.

A space is the ordered list of every action string the variant can ever make legal, built
from the notation's grammar and the board's geometry alone (never from a position), so the
same string has the same index in every game of that variant, on every machine, in every
version that keeps :data:`SPACE_VERSION`. The legal actions of a position become a mask over
it. The order of each space is written down in docs/research.md; changing it is a change of
``SPACE_VERSION`` (a policy trained on one space must not be fed another).

>>> space = action_space("battleline", {"players": "2", "rules": "standard"})
>>> space.index("play r7 3"), space.action(space.index("claim 9"))
(56, 'claim 9')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from games.battleline.cards import CARD_NAMES, MORALE, NUM_TROOPS, NUM_VALUES
from games.warchest.board import DIRECTIONS, Axial, board_for
from games.warchest.units import COIN_NAMES, ROYAL_NAME, UNITS

#: Bumped whenever a space's order changes: stored beside trained weights.
SPACE_VERSION: Final = 1


@dataclass(frozen=True, eq=False)
class ActionSpace:
    """The fixed, ordered action strings of one game and variant."""

    name: str  # e.g. "battleline/standard" or "warchest/2"
    actions: tuple[str, ...]
    _index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        index = {a: i for i, a in enumerate(self.actions)}
        if len(index) != len(self.actions):
            raise ValueError(f"action space {self.name} repeats an action")
        object.__setattr__(self, "_index", index)

    @property
    def size(self) -> int:
        return len(self.actions)

    def index(self, action: str) -> int:
        """The index of an action string (KeyError names a string outside the space)."""
        try:
            return self._index[action]
        except KeyError:
            raise KeyError(f"{action!r} is not in the action space {self.name}") from None

    def action(self, index: int) -> str:
        """The action string at ``index``."""
        return self.actions[index]

    def indices(self, actions: Iterable[str]) -> list[int]:
        """The indices of several action strings, in their order."""
        index = self._index
        return [index[a] for a in actions]

    def mask(self, legal: Iterable[str]) -> npt.NDArray[np.int8]:
        """A 0/1 vector over the space, 1 at every legal action."""
        out = np.zeros(len(self.actions), dtype=np.int8)
        out[self.indices(legal)] = 1
        return out


def _battleline(tactics: bool, values: int) -> list[str]:
    """Battle Line's actions in the documented order; without tactics only what can occur."""
    troops = [CARD_NAMES[c] for c in range(NUM_TROOPS) if c % NUM_VALUES < values]
    flags = [str(f) for f in range(1, 10)]
    placeable = troops + ([CARD_NAMES[c] for c in MORALE] if tactics else [])
    out = [f"play {card} {flag}" for card in placeable for flag in flags]
    out += [f"claim {flag}" for flag in flags]
    out += ["done", "draw troops", "pass"]
    if not tactics:
        return out
    on_board = [*placeable, "fog", "mud"]
    out += ["draw tactics"]
    out += [f"fog {flag}" for flag in flags] + [f"mud {flag}" for flag in flags]
    out += ["scout", "scout-draw troops", "scout-draw tactics"]
    out += [f"scout-return {name}" for name in troops + [CARD_NAMES[c] for c in range(
        NUM_TROOPS, len(CARD_NAMES))]]
    out += [f"redeploy {card} {to}" for card in on_board for to in [*flags, "discard"]]
    out += [f"deserter {card}" for card in on_board]
    out += [f"traitor {card} {flag}" for card in on_board for flag in flags]
    return out


def _offsets(near: int) -> list[Axial]:
    """Axial offsets at distance 1..near, in a fixed order (by distance, then (r, q))."""
    span = range(-near, near + 1)
    cells = [(q, r) for r in span for q in span if 1 <= max(abs(q), abs(r), abs(q + r)) <= near]
    return sorted(cells, key=lambda h: (max(abs(h[0]), abs(h[1]), abs(h[0] + h[1])), h[1], h[0]))


def _warchest(players: int) -> list[str]:
    """War Chest's actions in the documented order, for the board of that many players."""
    board = board_for(players)
    hexes = board.coords
    name = dict(zip(hexes, board.name, strict=True))

    def at(h: Axial, d: Axial) -> str | None:
        return name.get((h[0] + d[0], h[1] + d[1]))

    units = [u.name for u in UNITS]
    out = ["stop", "guard supply", "guard unit", "footman tactic"]
    out += [f"pick {u}" for u in units]
    for coin in COIN_NAMES:
        out += [f"{coin} initiative", f"{coin} pass"]
        out += [f"{coin} recruit {u}" for u in units]
        out += [f"{coin} deploy {name[h]}" for h in hexes]
        out += [f"{coin} bolster {name[h]}" for h in hexes]
    for payer in [*units, "repeat", "free"]:
        for h in hexes:
            out.append(f"{payer} {name[h]} control")
            for verb in ("move", "attack"):
                out += [f"{payer} {name[h]} {verb} {t}" for d in DIRECTIONS if (t := at(h, d))]
    near = _offsets(2)
    for unit in UNITS:
        payers = [unit.name] + ([ROYAL_NAME] if unit.royal_tactic else [])
        if unit.tactic_args == 1:
            for payer in payers:
                for h in hexes:
                    out += [f"{payer} {name[h]} tactic {t}" for d in near if (t := at(h, d))]
        elif unit.tactic_args == 2:
            for payer in payers:
                for h in hexes:
                    for d in near:
                        a = (h[0] + d[0], h[1] + d[1])
                        if a in name:
                            out += [f"{payer} {name[h]} tactic {name[a]} {t}"
                                    for e in DIRECTIONS if (t := at(a, e))]
    return out


_SPACES: dict[tuple[str, str], ActionSpace] = {}


def space_key(game: str, variant: Mapping[str, str]) -> str:
    """Which space a game and variant use: the variants that share one space share its key."""
    if game == "battleline":
        rules = variant.get("rules", "standard")
        return {"standard": "tactics", "advanced": "tactics", "no-tactics": "troops",
                "schotten-totten": "schotten-totten"}[rules]
    if game == "warchest":
        return f"{variant.get('players', '2')}p"
    raise KeyError(f"no action space for the game {game!r}")


def action_space(game: str, variant: Mapping[str, str]) -> ActionSpace:
    """The action space of a game (registry name) and its resolved variant (built once)."""
    key = (game, space_key(game, variant))
    space = _SPACES.get(key)
    if space is None:
        if game == "battleline":
            kind = key[1]
            actions: Sequence[str] = _battleline(
                tactics=kind == "tactics",
                values=NUM_VALUES - 1 if kind == "schotten-totten" else NUM_VALUES)
        else:
            actions = _warchest(int(key[1][:-1]))
        space = _SPACES[key] = ActionSpace(f"{game}/{key[1]}", tuple(actions))
    return space


__all__ = ["SPACE_VERSION", "ActionSpace", "action_space", "space_key"]
