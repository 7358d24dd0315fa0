"""How well an order of estimates matches the truth: Kendall's tau, in O(n log n)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence


def kendall_tau(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-a of two equally long sequences, in O(n log n): (concordant − discordant)
    pairs over all ``n (n − 1) / 2`` pairs; a pair tied in either sequence counts as neither.

    >>> kendall_tau([1, 2, 3, 4], [10, 20, 40, 30])
    0.6666666666666666
    """
    n = len(x)
    if n != len(y):
        raise ValueError("kendall_tau needs two sequences of the same length")
    if n < 2:
        return math.nan
    pairs = sorted(zip(x, y, strict=True))
    ys = [b for _, b in pairs]
    discordant = _inversions(ys)
    total = n * (n - 1) // 2

    def tied(values: Iterable[object]) -> int:
        counts: dict[object, int] = {}
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        return sum(c * (c - 1) // 2 for c in counts.values())

    ties_x, ties_y, ties_xy = tied(x), tied(y), tied(pairs)
    concordant = total - discordant - ties_x - ties_y + ties_xy
    return (concordant - discordant) / total


def _inversions(values: list[float]) -> int:
    """Pairs i < j with values[i] > values[j] (strictly), by merge sort."""
    count = 0
    width = 1
    data = list(values)
    n = len(data)
    while width < n:
        merged: list[float] = []
        for start in range(0, n, 2 * width):
            left = data[start:start + width]
            right = data[start + width:start + 2 * width]
            a = b = 0
            while a < len(left) and b < len(right):
                if right[b] < left[a]:
                    merged.append(right[b])
                    count += len(left) - a
                    b += 1
                else:
                    merged.append(left[a])
                    a += 1
            merged.extend(left[a:])
            merged.extend(right[b:])
        data = merged
        width *= 2
    return count
