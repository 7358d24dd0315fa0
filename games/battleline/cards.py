"""Battle Line cards: integer ids, names and bit masks.

Troops are ids ``0..59``: ``colour * 10 + (value - 1)`` with colours in the order red, orange,
yellow, green, blue, purple and values 1–10. Tactics follow as ids ``60..69``. A set of cards is
an ``int`` bit mask (bit ``id`` set when the card is in the set), so unions, differences and
membership tests are single integer operations.

>>> card_name(44), card_id("b5"), card_name(TRAITOR)
('b5', 44, 'traitor')
>>> [card_name(c) for c in iter_bits(mask_of([0, 9, COMPANION]))]
['r1', 'r10', 'companion']
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Final

COLOURS: Final = ("red", "orange", "yellow", "green", "blue", "purple")
COLOUR_LETTERS: Final = "roygbp"
NUM_COLOURS: Final = 6
NUM_VALUES: Final = 10  # the standard game; Schotten-Totten uses values 1–9 only
NUM_TROOPS: Final = NUM_COLOURS * NUM_VALUES
VALUE_BITS: Final = (1 << NUM_VALUES) - 1  # a 10-bit mask of values, bit v-1 for value v

# Tactics ids.
ALEXANDER: Final = 60
DARIUS: Final = 61
COMPANION: Final = 62
SHIELD: Final = 63
FOG: Final = 64
MUD: Final = 65
SCOUT: Final = 66
REDEPLOY: Final = 67
DESERTER: Final = 68
TRAITOR: Final = 69
NUM_CARDS: Final = 70

TACTIC_NAMES: Final = (
    "alexander",
    "darius",
    "companion",
    "shield",
    "fog",
    "mud",
    "scout",
    "redeploy",
    "deserter",
    "traitor",
)

LEADERS: Final = (ALEXANDER, DARIUS)
MORALE: Final = (ALEXANDER, DARIUS, COMPANION, SHIELD)  # take a slot like a troop
ENVIRONMENT: Final = (FOG, MUD)  # lie beside a flag, take no slot
GUILE: Final = (SCOUT, REDEPLOY, DESERTER, TRAITOR)  # played to the discard area

ALL_TROOPS: Final = (1 << NUM_TROOPS) - 1
ALL_TACTICS: Final = ((1 << NUM_CARDS) - 1) ^ ALL_TROOPS
LEADER_MASK: Final = (1 << ALEXANDER) | (1 << DARIUS)
MORALE_MASK: Final = LEADER_MASK | (1 << COMPANION) | (1 << SHIELD)


def troop(colour: int, value: int) -> int:
    """The id of the troop of that colour index and value."""
    return colour * NUM_VALUES + value - 1


def _build_names() -> tuple[str, ...]:
    names = [f"{COLOUR_LETTERS[t // NUM_VALUES]}{t % NUM_VALUES + 1}" for t in range(NUM_TROOPS)]
    return (*names, *TACTIC_NAMES)


CARD_NAMES: Final[tuple[str, ...]] = _build_names()
CARD_IDS: Final[dict[str, int]] = {name: i for i, name in enumerate(CARD_NAMES)}


def card_name(card: int) -> str:
    """The notation name of a card: ``r7``, ``b10``, ``alexander``..."""
    return CARD_NAMES[card]


def card_id(name: str) -> int:
    """The id of a card name (KeyError when there is no such card)."""
    return CARD_IDS[name]


def _troop_mask(max_value: int) -> int:
    mask = 0
    for colour in range(NUM_COLOURS):
        for value in range(1, max_value + 1):
            mask |= 1 << troop(colour, value)
    return mask


_TROOP_MASKS: Final = tuple(_troop_mask(v) for v in range(NUM_VALUES + 1))


def troop_mask(max_value: int) -> int:
    """The mask of every troop with value at most ``max_value`` (9 for Schotten-Totten)."""
    if 0 <= max_value <= NUM_VALUES:
        return _TROOP_MASKS[max_value]  # built once: every new state and sample asks
    return _troop_mask(max_value)


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of a collection of card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def iter_bits(mask: int) -> Iterator[int]:
    """The card ids in a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def names_of(mask: int) -> list[str]:
    """The sorted names of the cards in a mask."""
    return sorted(CARD_NAMES[c] for c in iter_bits(mask))


_BIT_LENGTH: Final = tuple(n.bit_length() for n in range(NUM_CARDS + 1))


def _inline_shuffle(rng: random.Random, cards: list[int]) -> None:
    """``Random.shuffle`` written out for a plain :class:`random.Random`: the same draws
    (``getrandbits`` with rejection, as the library's ``_randbelow``) and the same order."""
    getrandbits = rng.getrandbits
    bit_length = _BIT_LENGTH
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = bit_length[n] if n <= NUM_CARDS else n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _inline_matches_library() -> bool:
    """Does :func:`_inline_shuffle` draw and permute exactly as this Python's shuffle?"""
    for seed in range(4):
        for size in (0, 1, 2, 3, 17, 54, 70, 150):
            a, b = random.Random(seed), random.Random(seed)
            x, y = list(range(size)), list(range(size))
            a.shuffle(x)
            _inline_shuffle(b, y)
            if x != y or a.getstate() != b.getstate():
                return False
    return True


_INLINE_SHUFFLE: Final = _inline_matches_library()


def shuffle(rng: random.Random, cards: list[int]) -> None:
    """``rng.shuffle(cards)``, about twice as fast for a plain :class:`random.Random` (checked
    at import to give the library's result and leave the generator in the same state; any
    other generator, or a Python whose shuffle differs, gets ``rng.shuffle`` itself)."""
    if _INLINE_SHUFFLE and type(rng) is random.Random:
        _inline_shuffle(rng, cards)
    else:
        rng.shuffle(cards)
