"""War Chest action notation: one decision = one string, parsed without looking at the position.

Tokens are separated by single spaces; hexes are named as in :mod:`games.warchest.board`
(``f4`` is the centre); coins by unit name (``archer``, ``light-cavalry`` …) or ``royal``.

=================================  ====================================================
``<coin> deploy <hex>``            place the coin as a new unit on ``hex``
``<coin> bolster <hex>``           add the coin to your unit of that type on ``hex``
``<coin> initiative``              discard face down, take the initiative
``<coin> recruit <unit>``          discard face down, move a ``unit`` coin supply -> discard
``<coin> pass``                    discard face down, nothing else
``<coin> <hex> move <hex>``        discard face up; the unit on the first hex moves
``<coin> <hex> control``           discard face up; the unit controls its location
``<coin> <hex> attack <hex>``      discard face up; the unit attacks the second hex
``<coin> <hex> tactic [hex…]``     discard face up; the unit's tactic (1-2 hexes, per unit)
``footman tactic``                 discard face up; the Footman tactic (all Footman units)
``repeat <hex> move|control|attack …``  Berserker: pay a coin from its stack, maneuver again
``free <hex> move|control|attack …``    a free maneuver (Footman tactic, Mercenary, Swordsman)
``stop``                           decline the rest of an optional effect
``guard supply`` / ``guard unit``  Royal Guard attacked: lose a supply coin or a unit coin
``pick <unit>``                    draft: take that unit card
=================================  ====================================================

>>> canonical("  Archer  F4 tactic  f6 ")
'archer f4 tactic f6'
"""

from __future__ import annotations

from typing import Final

from games.protocol import InvalidAction
from games.warchest.board import ALL_HEX_NAMES
from games.warchest.units import COIN_BY_NAME, UNIT_BY_NAME, UNITS

#: Coins whose tactic acts with every unit of the type and so names no hex (Footman).
ARMY_TACTIC_COINS: Final = frozenset(u.name for u in UNITS if u.army_tactic)

FACE_DOWN_VERBS: Final = ("initiative", "recruit", "pass")
MANEUVERS: Final = ("move", "control", "attack")
PAYERS: Final = ("repeat", "free")


def _bad(action: str, why: str) -> InvalidAction:
    return InvalidAction(f"malformed War Chest action {action!r}: {why}")


def _check_hex(action: str, tok: str) -> None:
    if tok not in ALL_HEX_NAMES:
        raise _bad(action, f"{tok!r} is not a hex name (a column letter a-k and a row digit 1-7, "
                           "e.g. f4 for the centre)")


def _check_maneuver(action: str, toks: list[str], allow_tactic: bool) -> None:
    _check_hex(action, toks[1])
    verb = toks[2]
    rest = toks[3:]
    if verb in ("move", "attack"):
        if len(rest) != 1:
            raise _bad(action, f"{verb} takes exactly one target hex")
        _check_hex(action, rest[0])
    elif verb == "control":
        if rest:
            raise _bad(action, "control takes no further argument")
    elif verb == "tactic" and allow_tactic:
        if len(rest) > 2:
            raise _bad(action, "a tactic takes at most two hexes")
        for tok in rest:
            _check_hex(action, tok)
    else:
        allowed = "move, control, attack" + (", tactic" if allow_tactic else "")
        raise _bad(action, f"unknown maneuver {verb!r} (use {allowed})")


def canonical(action: str) -> str:
    """Check the grammar and return the canonical spelling; raise InvalidAction if malformed."""
    if not isinstance(action, str):
        raise InvalidAction(f"a War Chest action is a string, not {type(action).__name__}")
    toks = action.lower().split()
    if not toks:
        raise _bad(action, "empty action; e.g. 'archer f4 move f5' or 'royal pass'")
    head = toks[0]
    n = len(toks)
    if head == "stop":
        if n != 1:
            raise _bad(action, "'stop' takes no argument")
    elif head == "guard":
        if n != 2 or toks[1] not in ("supply", "unit"):
            raise _bad(action, "use 'guard supply' or 'guard unit'")
    elif head == "pick":
        if n != 2 or toks[1] not in UNIT_BY_NAME:
            raise _bad(action, "use 'pick <unit>', e.g. 'pick archer'")
    elif head in PAYERS:
        if n < 3:
            raise _bad(action, f"use '{head} <hex> move|control|attack ...'")
        _check_maneuver(action, toks, allow_tactic=False)
    elif head in COIN_BY_NAME:
        if n < 2:
            raise _bad(action, f"the coin {head!r} needs an action, e.g. '{head} pass'")
        verb = toks[1]
        if verb in ("deploy", "bolster"):
            if n != 3:
                raise _bad(action, f"{verb} takes exactly one hex")
            _check_hex(action, toks[2])
        elif verb in ("initiative", "pass"):
            if n != 2:
                raise _bad(action, f"{verb} takes no argument")
        elif verb == "recruit":
            if n != 3 or toks[2] not in UNIT_BY_NAME:
                raise _bad(action, "use '<coin> recruit <unit>', e.g. 'royal recruit archer'")
        elif verb == "tactic" and n == 2:
            if head not in ARMY_TACTIC_COINS:
                raise _bad(action, f"a {head} tactic names the hex of the unit that acts, e.g. "
                                   f"'{head} f4 tactic ...' (only 'footman tactic' names none)")
        elif n >= 3:
            _check_maneuver(action, toks, allow_tactic=True)
        else:
            raise _bad(action, f"unknown action {verb!r} for a coin")
    else:
        raise _bad(action, f"{head!r} is neither a coin (unit name or 'royal') nor "
                           "stop/guard/pick/repeat/free")
    return " ".join(toks)
