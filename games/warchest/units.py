"""The 16 War Chest unit cards as data.

Each unit is one :class:`UnitSpec`: its notation name, coin count, a two-letter code for the
board drawing and its attributes as flags. A tactic is a pair of functions in
:mod:`games.warchest.tactics`, named by the unit's name: they act on the state, which reads this
table, so they live above the state and this module below it. To add an expansion unit, append
one spec to :data:`UNITS` and, if it has a tactic, its hooks to ``tactics.TACTICS``; nothing else
in the engine names individual units except the attributes that the core rules consult through
the flags below.

Coins are ints: a unit type's index in :data:`UNITS`, or :data:`ROYAL` for the Royal Coin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class UnitSpec:
    """One unit card."""

    name: str  # notation name, e.g. "light-cavalry"
    title: str  # card title
    coins: int  # coins of this type in the box
    code: str  # two letters for the board drawing
    tactic_args: int = -1  # hexes the tactic takes in the notation; -1: no tactic
    army_tactic: bool = False  # Footman: one tactic for all units of the type, named by no hex
    tactic_target: int = -1  # which hex of the tactic's notation it attacks; -1: no attack
    normal_attack: bool = True  # False: Archer and Lancer may not make a normal attack
    max_units: int = 1  # Footman: 2
    deploy_next_to_friend: bool = False  # Scout
    needs_bolstered_attacker: bool = False  # Knight
    counter_loss: bool = False  # Pikeman
    repeat_from_stack: bool = False  # Berserker
    move_after_attack: bool = False  # Swordsman
    draw_after_attack_or_control: bool = False  # Warrior Priest
    maneuver_on_recruit: bool = False  # Mercenary
    supply_soak: bool = False  # Royal Guard
    royal_tactic: bool = False  # Royal Guard: its tactic is paid with the Royal Coin

    @property
    def has_tactic(self) -> bool:
        """Does the card have a tactic (its hooks are in :mod:`games.warchest.tactics`)?"""
        return self.tactic_args >= 0


UNITS: Final[tuple[UnitSpec, ...]] = (
    UnitSpec("archer", "Archer", 4, "Ar", 1, normal_attack=False, tactic_target=0),
    UnitSpec("berserker", "Berserker", 5, "Be", repeat_from_stack=True),
    UnitSpec("cavalry", "Cavalry", 4, "Ca", 2, tactic_target=1),
    UnitSpec("crossbowman", "Crossbowman", 5, "Cr", 1, tactic_target=0),
    UnitSpec("ensign", "Ensign", 5, "En", 2),
    UnitSpec("footman", "Footman", 5, "Fo", 0, max_units=2, army_tactic=True),
    UnitSpec("knight", "Knight", 4, "Kn", needs_bolstered_attacker=True),
    UnitSpec("lancer", "Lancer", 4, "La", 2, normal_attack=False, tactic_target=1),
    UnitSpec("light-cavalry", "Light Cavalry", 5, "LC", 1),
    UnitSpec("marshall", "Marshall", 5, "Ma", 2, tactic_target=1),
    UnitSpec("mercenary", "Mercenary", 5, "Me", maneuver_on_recruit=True),
    UnitSpec("pikeman", "Pikeman", 4, "Pi", counter_loss=True),
    UnitSpec("royal-guard", "Royal Guard", 5, "RG", 1, supply_soak=True, royal_tactic=True),
    UnitSpec("scout", "Scout", 5, "Sc", deploy_next_to_friend=True),
    UnitSpec("swordsman", "Swordsman", 5, "Sw", move_after_attack=True),
    UnitSpec("warrior-priest", "Warrior Priest", 4, "WP", draw_after_attack_or_control=True),
)

NUM_TYPES: Final = len(UNITS)
#: Per unit type: only a bolstered attacker may attack it (Knight).
NEEDS_BOLSTERED: Final = tuple(u.needs_bolstered_attacker for u in UNITS)
#: The Royal Coin's coin number.
ROYAL: Final = NUM_TYPES
NUM_COINS: Final = NUM_TYPES + 1
ROYAL_NAME: Final = "royal"

#: Coin number -> notation name, and back.
COIN_NAMES: Final[tuple[str, ...]] = (*(u.name for u in UNITS), ROYAL_NAME)
COIN_BY_NAME: Final[dict[str, int]] = {n: i for i, n in enumerate(COIN_NAMES)}
UNIT_BY_NAME: Final[dict[str, int]] = {u.name: i for i, u in enumerate(UNITS)}


def unit_index(name: str) -> int:
    """The index of a unit by its notation name (KeyError if unknown)."""
    return UNIT_BY_NAME[name]


#: The first-game armies (rulebook picture): faction A, then faction B.
FIRST_GAME: Final[tuple[tuple[int, ...], tuple[int, ...]]] = (
    tuple(unit_index(n) for n in ("swordsman", "pikeman", "crossbowman", "light-cavalry")),
    tuple(unit_index(n) for n in ("archer", "cavalry", "lancer", "scout")),
)
