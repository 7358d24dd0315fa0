"""Battle Line action notation: one short string per decision, parsed without context.

Every well-formed action string is known in advance (the card and flag sets are finite), so
parsing is one dictionary lookup and formatting reuses the same interned strings.

==========================  ====================================================================
``play <card> <flag>``      a troop or a morale tactic (alexander, darius, companion, shield)
``fog <flag>``              Fog beside a flag
``mud <flag>``              Mud beside a flag
``scout``                   play Scout (then ``scout-draw ...`` and ``scout-return ...``)
``scout-draw troops``       one Scout draw (``troops`` or ``tactics``)
``scout-return <card>``     put a card from hand back on top of its deck
``redeploy <card> <flag>``  move one of your cards to another flag (``discard`` to discard it)
``deserter <card>``         discard an opponent's card (``fog``/``mud`` included)
``traitor <troop> <flag>``  take an opponent's troop to your side of a flag
``claim <flag>``            claim a flag whose proof succeeds
``done``                    stop claiming this turn
``draw troops``             the end-of-turn draw (``troops`` or ``tactics``)
``pass``                    no troop can be placed
==========================  ====================================================================

>>> parse("play r7 3")
(0, 6, 2)
>>> ACTION_STRINGS[parse("redeploy b10 discard")]
'redeploy b10 discard'
"""

from __future__ import annotations

from typing import Final

from games.battleline.cards import (
    CARD_NAMES,
    DESERTER,
    FOG,
    MORALE,
    MUD,
    NUM_CARDS,
    NUM_TROOPS,
    REDEPLOY,
    SCOUT,
    TRAITOR,
)
from games.protocol import InvalidAction

NUM_FLAGS: Final = 9

# Action kinds (the first field of a parsed action).
PLAY, FOG_A, MUD_A, SCOUT_A, SCOUT_DRAW, SCOUT_RETURN = 0, 1, 2, 3, 4, 5
REDEPLOY_A, DESERTER_A, TRAITOR_A, CLAIM, DONE, DRAW, PASS = 6, 7, 8, 9, 10, 11, 12

KIND_NAMES: Final = (
    "play",
    "fog",
    "mud",
    "scout",
    "scout-draw",
    "scout-return",
    "redeploy",
    "deserter",
    "traitor",
    "claim",
    "done",
    "draw",
    "pass",
)
DECKS: Final = ("troops", "tactics")  # deck 0 and deck 1
DISCARD: Final = -1  # the target of ``redeploy <card> discard``

# Which card each tactic action plays from hand.
KIND_CARD: Final = {FOG_A: FOG, MUD_A: MUD, SCOUT_A: SCOUT, REDEPLOY_A: REDEPLOY,
                    DESERTER_A: DESERTER, TRAITOR_A: TRAITOR}

Action = tuple[int, int, int]  # (kind, card or -1, flag 0..8 / deck 0..1 / DISCARD / -1)


def _build() -> dict[str, Action]:
    table: dict[str, Action] = {}
    placeable = [*range(NUM_TROOPS), *MORALE]
    on_board = [*placeable, FOG, MUD]  # every card that can lie beside a flag
    for card in placeable:
        for f in range(NUM_FLAGS):
            table[f"play {CARD_NAMES[card]} {f + 1}"] = (PLAY, card, f)
    # Redeploy, Deserter and Traitor parse with any card that can lie beside a flag; which
    # of them each tactic may really take is a rules question (IllegalAction), not syntax.
    for card in on_board:
        for f in range(NUM_FLAGS):
            table[f"redeploy {CARD_NAMES[card]} {f + 1}"] = (REDEPLOY_A, card, f)
            table[f"traitor {CARD_NAMES[card]} {f + 1}"] = (TRAITOR_A, card, f)
        table[f"redeploy {CARD_NAMES[card]} discard"] = (REDEPLOY_A, card, DISCARD)
        table[f"deserter {CARD_NAMES[card]}"] = (DESERTER_A, card, -1)
    for f in range(NUM_FLAGS):
        table[f"fog {f + 1}"] = (FOG_A, FOG, f)
        table[f"mud {f + 1}"] = (MUD_A, MUD, f)
        table[f"claim {f + 1}"] = (CLAIM, -1, f)
    for card in range(NUM_CARDS):
        table[f"scout-return {CARD_NAMES[card]}"] = (SCOUT_RETURN, card, -1)
    for d, deck in enumerate(DECKS):
        table[f"scout-draw {deck}"] = (SCOUT_DRAW, -1, d)
        table[f"draw {deck}"] = (DRAW, -1, d)
    table["scout"] = (SCOUT_A, SCOUT, -1)
    table["done"] = (DONE, -1, -1)
    table["pass"] = (PASS, -1, -1)
    return table


PARSE: Final[dict[str, Action]] = _build()
ACTION_STRINGS: Final[dict[Action, str]] = {a: s for s, a in PARSE.items()}

_USAGE: Final = (
    "expected one of: play <card> <flag>, fog <flag>, mud <flag>, scout, scout-draw "
    "troops|tactics, scout-return <card>, redeploy <card> <flag>|discard, deserter <card>, "
    "traitor <troop> <flag>, claim <flag>, done, draw troops|tactics, pass "
    "(cards like r7, b10, alexander; flags 1-9)"
)


def parse(text: str) -> Action:
    """Parse an action string; :class:`InvalidAction` names what is wrong with it."""
    hit = PARSE.get(text)
    if hit is not None:
        return hit
    if not isinstance(text, str):
        raise InvalidAction(f"action must be a string, got {type(text).__name__}")
    canon = " ".join(text.lower().split())
    hit = PARSE.get(canon)
    if hit is not None:
        return hit
    raise InvalidAction(f"malformed Battle Line action {text!r}: {_diagnose(canon)}")


def _diagnose(canon: str) -> str:
    words = canon.split()
    if not words:
        return "empty action; " + _USAGE
    verb = words[0]
    if verb not in KIND_NAMES:
        return f"unknown verb {verb!r}; " + _USAGE
    for word in words[1:]:
        if word not in CARD_NAMES and word not in DECKS and word != "discard" and not (
            word.isdigit() and 1 <= int(word) <= NUM_FLAGS
        ):
            return f"{word!r} is neither a card, a flag 1-9 nor a deck; " + _USAGE
    return f"wrong arguments for {verb!r}; " + _USAGE


def format_action(action: Action) -> str:
    """The canonical string of a parsed action."""
    return ACTION_STRINGS[action]
