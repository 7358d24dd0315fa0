"""A deliberately naive formation evaluator: the oracle for the fast claim proof.

It knows nothing of bit masks or tables: it enumerates every way to fill the free slots from the
available troops and every colour/value each wild card could take, classifies each resulting
hand of cards by the rulebook's definitions and keeps the best.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, product

ALEXANDER, DARIUS, COMPANION, SHIELD = 60, 61, 62, 63
OTHER = 99  # a colour no troop has: enough to stand for "any other colour"


def _wild_options(card: int, colours: Sequence[int]) -> list[tuple[int, int]]:
    palette = [*sorted(set(colours)), OTHER]
    if card in (ALEXANDER, DARIUS):
        values = range(1, 11)
    elif card == COMPANION:
        values = range(8, 9)
    elif card == SHIELD:
        values = range(1, 4)
    else:
        raise ValueError(card)
    return [(c, v) for c in palette for v in values]


def classify(cards: Sequence[tuple[int, int]], fog: bool) -> int:
    """Rank of fixed (colour, value) cards: category * 64 + sum, or the sum under Fog."""
    values = sorted(v for _, v in cards)
    total = sum(values)
    if fog:
        return total
    same_colour = len({c for c, _ in cards}) == 1
    consecutive = all(values[i + 1] == values[i] + 1 for i in range(len(values) - 1))
    same_value = len(set(values)) == 1
    if same_colour and consecutive:
        cat = 4
    elif same_value:
        cat = 3
    elif same_colour:
        cat = 2
    elif consecutive:
        cat = 1
    else:
        cat = 0
    return cat * 64 + total


def rank_of(cards: Sequence[int], fog: bool) -> int:
    """Best rank of a complete set of card ids (troops 0..59, wild tactics 60..63)."""
    troops = [(c // 10, c % 10 + 1) for c in cards if c < 60]
    wilds = [c for c in cards if c >= 60]
    best = -1
    colours = [c for c, _ in troops]
    choices: Iterator[tuple[tuple[int, int], ...]] = product(
        *(_wild_options(w, colours) for w in wilds)
    )
    for assignment in choices:
        best = max(best, classify([*troops, *assignment], fog))
    return best


def best_completion(side: Sequence[int], k: int, avail: Sequence[int], fog: bool) -> int:
    """Best rank over every choice of k distinct available troops; -1 if none exists."""
    best = -1
    for extra in combinations(avail, k):
        best = max(best, rank_of([*side, *extra], fog))
    return best
