"""The named shapes of War Chest's decisions (operations) and pending effects (frames).

Both are plain tuples whose first item names the kind, typed here one alias per kind so that
mypy checks every field and narrows a union on ``op[0] == "..."``. They stay tuples, not
``NamedTuple`` classes: the engine pushes and pops frames and reads operations on every
decision, and a tuple literal costs about a fifth of a ``NamedTuple`` call, which would show
in the random-playout figures.

An **operation** is what ``apply`` carries out for one legal action string: it follows from
the string and the deciding seat (the Footman tactic's also names its first unit's hex), so
the engine parses it when the action is applied and remembers it per board and seat. A
**frame** is an effect waiting for a decision on the ``pending`` stack; the seat in its second
item decides next.
"""

from __future__ import annotations

from typing import Final, Literal

#: Hexes a tactic or maneuver names after the acting unit's hex (0 to 2 board indices).
Args = tuple[int, ...]
#: What a maneuver does.
Verb = Literal["move", "control", "attack", "tactic"]

#: Who pays for a maneuver besides a coin from the hand: a Berserker pays a coin off its own
#: stack; an effect's maneuver (Footman tactic, Mercenary, Swordsman) is free.
PAY_STACK: Final = -1
PAY_FREE: Final = -2

# --- operations ---------------------------------------------------------------------------

#: Draft: ``(kind, seat, unit type)``.
PickOp = tuple[Literal["pick"], int, int]
#: Royal Guard attacked: ``(kind, owner, True if the supply coin goes to the box)``.
GuardOp = tuple[Literal["guard"], int, bool]
#: Decline the rest of an optional effect: ``(kind, seat)``.
StopOp = tuple[Literal["stop"], int]
#: A maneuver: ``(kind, seat, payment, hex of the acting unit, verb, args)``; payment is a coin
#: from the hand, :data:`PAY_STACK` or :data:`PAY_FREE`.
ManeuverOp = tuple[Literal["man"], int, int, int, Verb, Args]
#: A coin onto the board: ``(kind, seat, coin, hex)``.
PlaceOp = tuple[Literal["deploy", "bolster"], int, int, int]
#: A coin discarded face down for nothing else than the initiative or a pass:
#: ``(kind, seat, coin)``.
DiscardOp = tuple[Literal["init", "pass"], int, int]
#: A coin discarded face down to recruit: ``(kind, seat, coin, unit type recruited)``.
RecruitOp = tuple[Literal["recruit"], int, int, int]

Op = PickOp | GuardOp | StopOp | ManeuverOp | PlaceOp | DiscardOp | RecruitOp

# --- frames -------------------------------------------------------------------------------

#: Warrior Priest: its owner must use the drawn coin now: ``(kind, owner, coin)``.
UseFrame = tuple[Literal["use"], int, int]
#: Royal Guard attacked with a coin in its owner's supply: ``(kind, owner, target hex, attacker
#: hex, 1 if the attacker's after-attack triggers run once the owner has decided)``.
GuardFrame = tuple[Literal["guard"], int, int, int, int]
#: Berserker repeat, Swordsman move, Mercenary maneuver (optional): ``(kind, owner, hex)``.
UnitFrame = tuple[Literal["repeat", "sword", "merc"], int, int]
#: Footman tactic: the Footman units that still owe their maneuver: ``(kind, seat, *hexes)``.
FootmanFrame = tuple[Literal["footman"], int, *tuple[int, ...]]

Frame = UseFrame | GuardFrame | UnitFrame | FootmanFrame

FRAME_KINDS: Final[tuple[str, ...]] = ("use", "guard", "repeat", "sword", "merc", "footman")


def frame_from_ints(kind: str, seat: int, rest: list[int]) -> Frame:
    """A frame from its kind, seat and integer fields (JSON and sampling rebuild frames so).

    Raises ValueError for an unknown kind or a wrong number of fields.
    """
    if kind == "use" and len(rest) == 1:
        return ("use", seat, rest[0])
    if kind == "guard" and len(rest) == 3:
        return ("guard", seat, rest[0], rest[1], rest[2])
    if kind in ("repeat", "sword", "merc") and len(rest) == 1:
        unit: UnitFrame = (kind, seat, rest[0])  # type: ignore[assignment]  # kind checked
        return unit
    if kind == "footman":
        footman: FootmanFrame = ("footman", seat, *tuple(rest))
        return footman
    raise ValueError(f"not a War Chest pending effect: {kind!r} with {len(rest)} fields")
