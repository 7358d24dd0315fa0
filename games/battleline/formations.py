"""Formations: the value of a side and the claim proof.

A formation's strength is one ``int`` rank, ``category * 64 + sum`` (categories: host 0,
skirmish line 1, battalion 2, phalanx 3, wedge 4), so ranks compare with ``<``. Under Fog only
the sum counts: the rank is the plain sum.

The central question, asked by every claim, is *what is the best formation this side can still
become?* :func:`best_rank` answers it for a side holding some troops (a mask), some wild cards
(Leader: any colour and value; Companion Cavalry: any colour, value 8; Shield Bearers: any
colour, value 1–3) and ``k`` free slots to be filled from the ``avail`` troops. It walks the
categories from the strongest down and, inside a category, the sums from the highest down, so the
first formation that fits is the best one. The tables below (runs, columns, sums of the top k
values of a colour) are computed once at import; the wild-card matching is memoised.
A claim check asks :func:`still_beats`, which remembers a *witness* per side and target
(:func:`beat_witness`: troops with which the other side can still win the flag) and skips the
search while the witness stays available; a complete side of troops alone is ranked directly.

>>> from games.battleline.cards import card_id, mask_of
>>> side = mask_of(card_id(n) for n in ("companion", "b9", "b10"))
>>> describe(complete_rank(side, 3, False))
'wedge 27'
>>> describe(complete_rank(mask_of(card_id(n) for n in ("alexander", "companion", "shield")),
...                        3, False))
'battalion 21'
"""

from __future__ import annotations

from typing import Final

from games.battleline.cards import (
    ALEXANDER,
    ALL_TROOPS,
    COMPANION,
    DARIUS,
    NUM_COLOURS,
    NUM_VALUES,
    SHIELD,
    VALUE_BITS,
)

HOST, SKIRMISH, BATTALION, PHALANX, WEDGE = range(5)
CATEGORY_NAMES: Final = ("host", "skirmish line", "battalion", "phalanx", "wedge")
CAT_SHIFT: Final = 64  # rank = category * CAT_SHIFT + sum; sums never reach 64
NO_COMPLETION: Final = -1  # the side cannot be completed at all

# --- tables computed once -------------------------------------------------------------------

SHIFTS: Final = tuple(c * NUM_VALUES for c in range(NUM_COLOURS))


def _popcount(x: int) -> int:
    return x.bit_count()


VALUE_SUM: Final = tuple(
    sum(v + 1 for v in range(NUM_VALUES) if m >> v & 1) for m in range(1 << NUM_VALUES)
)


def _top_k_table() -> tuple[tuple[int, ...], ...]:
    """TOP_K[mask][k]: sum of the k highest values in a 10-bit value mask, -1 if too few."""
    rows = []
    for m in range(1 << NUM_VALUES):
        values = sorted((v + 1 for v in range(NUM_VALUES) if m >> v & 1), reverse=True)
        rows.append(tuple(sum(values[:k]) if k <= len(values) else -1 for k in range(5)))
    return tuple(rows)


TOP_K: Final = _top_k_table()

# COLUMN[v]: every troop of value v (all colours); index 0 unused.
COLUMN: Final = tuple(
    sum(1 << (c * NUM_VALUES + v - 1) for c in range(NUM_COLOURS)) if v else 0
    for v in range(NUM_VALUES + 1)
)


def _runs(n: int, max_value: int) -> tuple[tuple[int, int], ...]:
    """(value mask, sum) of every run of n consecutive values, highest first."""
    out = []
    for start in range(max_value - n + 1, 0, -1):
        mask = ((1 << n) - 1) << (start - 1)
        out.append((mask, VALUE_SUM[mask]))
    return tuple(out)


RUNS: Final = {(n, mv): _runs(n, mv) for n in (3, 4) for mv in (9, 10)}

# Wild cards on a side, keyed by the side mask's tactic bits 60..63 (``mask >> 60 & 15``).
_LEADER_VALUES: Final = VALUE_BITS
_COMPANION_VALUES: Final = 1 << 7  # value 8
_SHIELD_VALUES: Final = 0b111  # values 1, 2, 3
_WILD_MAX: Final = {ALEXANDER: 10, DARIUS: 10, COMPANION: 8, SHIELD: 3}
_WILD_VALUES: Final = {
    ALEXANDER: _LEADER_VALUES,
    DARIUS: _LEADER_VALUES,
    COMPANION: _COMPANION_VALUES,
    SHIELD: _SHIELD_VALUES,
}


def _wild_tables() -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    allowed = []
    maxima = []
    for key in range(16):
        cards = [60 + i for i in range(4) if key >> i & 1]
        # most constrained first: the matching search then fails fast
        cards.sort(key=lambda c: _popcount(_WILD_VALUES[c]))
        allowed.append(tuple(_WILD_VALUES[c] for c in cards))
        maxima.append(sum(_WILD_MAX[c] for c in cards))
    return tuple(allowed), tuple(maxima)


WILD_ALLOWED, WILD_MAX = _wild_tables()
WILD_COUNT: Final = tuple(_popcount(k) for k in range(16))

_CACHE_LIMIT: Final = 200_000  # memo tables are cleared when they grow past this (long leagues)
_COVER_CACHE: Final[dict[int, bool]] = {}


def _covers_search(allowed: tuple[int, ...], rest: int, need: int) -> bool:
    if not allowed:
        return need == 0
    if _popcount(need) > len(allowed):
        return False
    tail = allowed[1:]
    options = rest & allowed[0]
    while options:
        low = options & -options
        options ^= low
        if _covers_search(tail, rest & ~low, need & ~low):
            return True
    return False


def covers(wild_key: int, rest: int, need: int) -> bool:
    """Can the wild cards take distinct values of ``rest``, covering every value of ``need``?"""
    if not wild_key:
        return need == 0
    key = (wild_key << 20) | (rest << 10) | need
    hit = _COVER_CACHE.get(key)
    if hit is None:
        hit = _covers_search(WILD_ALLOWED[wild_key], rest, need)
        if len(_COVER_CACHE) > _CACHE_LIMIT:
            _COVER_CACHE.clear()
        _COVER_CACHE[key] = hit
    return hit


def _top_k_any(avail: int, k: int, max_value: int) -> int:
    """Sum of the k highest values among the available troops (any colours), -1 if too few."""
    total = 0
    for v in range(max_value, 0, -1):
        if not k:
            return total
        count = _popcount(avail & COLUMN[v])
        if count:
            take = count if count < k else k
            total += take * v
            k -= take
    return total if not k else -1


# --- the best formation a side can become ---------------------------------------------------


class _Shape:
    """What a side's cards allow, independent of availability (memoised per side mask)."""

    __slots__ = ("battalion", "colour_shifts", "colours", "distinct", "fixed_sum", "per_colour",
                 "phalanx", "skirmish_runs", "wedge_masks", "wedge_runs", "wild_key")

    def __init__(self, side: int, n: int, max_value: int) -> None:
        troops = side & ALL_TROOPS
        self.wild_key = wild_key = (side >> 60) & 15
        self.per_colour = per_colour = tuple((troops >> s) & VALUE_BITS for s in SHIFTS)
        used = tuple(c for c in range(NUM_COLOURS) if per_colour[c])
        values = 0
        for m in per_colour:
            values |= m
        self.fixed_sum = sum(VALUE_SUM[m] for m in per_colour) + WILD_MAX[wild_key]
        runs = RUNS[n, max_value]
        # wedge and battalion: one colour (any colour while the side holds no troop)
        self.battalion = len(used) <= 1
        self.colours = used if used else tuple(range(NUM_COLOURS))
        fixed = per_colour[used[0]] if used else 0
        self.wedge_runs = tuple(
            (run & ~fixed, total) for run, total in runs if not fixed & ~run
        ) if self.battalion else ()
        self.colour_shifts = tuple(SHIFTS[c] for c in self.colours)
        # without wild cards: per wedge run (best first), its rank and the troop masks that
        # complete it, one per possible colour (complete when all of one mask is available)
        self.wedge_masks = tuple(
            (WEDGE * CAT_SHIFT + total, tuple(rest << s for s in self.colour_shifts))
            for rest, total in self.wedge_runs
        )
        # phalanx: one value, which every wild card must be able to take
        allowed = WILD_ALLOWED[wild_key]
        if _popcount(values) <= 1:
            choices = range(max_value, 0, -1) if not values else (values.bit_length(),)
            self.phalanx = tuple(v for v in choices if all(a >> (v - 1) & 1 for a in allowed))
        else:
            self.phalanx = ()
        # skirmish line: distinct values inside one run
        self.distinct = _popcount(values) == _popcount(troops)
        self.skirmish_runs = tuple(
            (run & ~values, total) for run, total in runs if not values & ~run
        ) if self.distinct else ()


_SHAPES: Final[dict[int, _Shape]] = {}


def _shape(side: int, n: int, max_value: int) -> _Shape:
    key = side | (n << 72) | (max_value << 76)  # side masks use bits 0..69
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _Shape(side, n, max_value)
        if len(_SHAPES) > _CACHE_LIMIT:
            _SHAPES.clear()
        _SHAPES[key] = shape
    return shape


def best_rank(
    side: int,
    k: int,
    avail: int,
    n: int,
    fog: bool,
    min_cat: int = HOST,
    max_value: int = NUM_VALUES,
) -> int:
    """The best rank a side can reach.

    ``side``: mask of the cards already there (troops and morale tactics); ``k``: free slots
    still to fill, each with a distinct troop from ``avail``; ``n``: cards in a complete side
    (3, or 4 under Mud); ``fog``: only sums count. Categories below ``min_cat`` are not
    examined (their ranks are reported as :data:`NO_COMPLETION`), which lets a claim check stop
    early. Returns :data:`NO_COMPLETION` when no completion exists.
    """
    shape = _SHAPES.get(side | (n << 72) | (max_value << 76))
    if shape is None:
        shape = _shape(side, n, max_value)
    if fog:
        return _host(shape, k, avail, max_value)
    wild_key = shape.wild_key
    if shape.wedge_runs and min_cat <= WEDGE:
        if wild_key:
            colour_avail = [(avail >> s) & VALUE_BITS for s in shape.colour_shifts]
            for rest, total in shape.wedge_runs:
                for free in colour_avail:
                    if covers(wild_key, rest, rest & ~free):
                        return WEDGE * CAT_SHIFT + total
        else:
            for rank, masks in shape.wedge_masks:
                for need in masks:
                    if avail & need == need:
                        return rank
    if shape.phalanx and min_cat <= PHALANX:
        for v in shape.phalanx:
            if (avail & COLUMN[v]).bit_count() >= k:
                return PHALANX * CAT_SHIFT + n * v
    if shape.battalion and min_cat <= BATTALION:
        best = -1
        for s in shape.colour_shifts:
            top = TOP_K[(avail >> s) & VALUE_BITS][k]
            if top > best:
                best = top
        if best >= 0:
            return BATTALION * CAT_SHIFT + shape.fixed_sum + best
    if shape.skirmish_runs and min_cat <= SKIRMISH:
        avail_values = 0
        for s in SHIFTS:
            avail_values |= (avail >> s) & VALUE_BITS
        for rest, total in shape.skirmish_runs:
            if covers(wild_key, rest, rest & ~avail_values):
                return SKIRMISH * CAT_SHIFT + total
    if min_cat <= HOST:
        return _host(shape, k, avail, max_value)
    return NO_COMPLETION


def _host(shape: _Shape, k: int, avail: int, max_value: int) -> int:
    top = _top_k_any(avail, k, max_value) if k else 0
    if top < 0:
        return NO_COMPLETION
    return shape.fixed_sum + top


_COMPLETE_CACHE: Final[dict[int, int]] = {}


def complete_rank(side: int, n: int, fog: bool) -> int:
    """The rank of a complete side (wild cards chosen to the owner's best); memoised."""
    key = side | ((n == 4) << 70) | (fog << 71)
    hit = _COMPLETE_CACHE.get(key)
    if hit is None:
        if side >> 60 or _popcount(side) != n:  # wild cards (or a short side): the search
            hit = best_rank(side, 0, 0, n, fog)
        else:
            hit = _troop_rank(side, n, fog)
        if len(_COMPLETE_CACHE) > _CACHE_LIMIT:
            _COMPLETE_CACHE.clear()
        _COMPLETE_CACHE[key] = hit
    return hit


def _troop_rank(side: int, n: int, fog: bool) -> int:
    """The rank of a complete side of ``n`` troops (no wild card), read off directly: what
    :func:`best_rank` finds for it, without building (and memoising) its shape."""
    values = 0
    colours = 0
    total = 0
    for s in SHIFTS:
        m = (side >> s) & VALUE_BITS
        if m:
            colours += 1
            values |= m
            total += VALUE_SUM[m]
    if fog:
        return total
    count = _popcount(values)
    run = count == n and values // (values & -values) == (1 << n) - 1  # n consecutive values
    if colours == 1:
        return (WEDGE if run else BATTALION) * CAT_SHIFT + total
    if count == 1:
        return PHALANX * CAT_SHIFT + total
    if run:
        return SKIRMISH * CAT_SHIFT + total
    return HOST * CAT_SHIFT + total


def can_beat(
    side: int, k: int, avail: int, n: int, fog: bool, target: int, max_value: int = NUM_VALUES
) -> bool:
    """Could this incomplete side still be completed to a rank strictly above ``target``?"""
    min_cat = HOST if fog else target // CAT_SHIFT
    return best_rank(side, k, avail, n, fog, min_cat, max_value) > target


# COLUMNS[values]: every troop whose value is in a 10-bit value mask (bit v-1 for value v).
COLUMNS: Final = tuple(
    sum(COLUMN[v + 1] for v in range(NUM_VALUES) if m >> v & 1) for m in range(1 << NUM_VALUES)
)


def beat_witness(
    side: int, k: int, avail: int, n: int, fog: bool, target: int, max_value: int = NUM_VALUES
) -> int:
    """:func:`can_beat` with a proof: -1 when this incomplete side cannot be completed to a rank
    above ``target``, else a *witness*, a mask of available troops with which it still can.

    The witness holds for any later ``avail`` that contains it (the same completion stays
    possible), so a claim check can remember it and skip the search while it holds: troops
    only ever leave the available set. It walks exactly as :func:`best_rank` does and takes as
    witness the available troops that the category found relied on: the missing troops of the
    wedge's run in its colour, every troop of the phalanx value, every troop of the battalion
    colour, every troop of the skirmish line's missing values, every troop of the values the
    host's sum took.
    """
    shape = _SHAPES.get(side | (n << 72) | (max_value << 76))
    if shape is None:
        shape = _shape(side, n, max_value)
    if fog:
        return _host_witness(shape, k, avail, max_value, target)
    min_cat = target // CAT_SHIFT
    wild_key = shape.wild_key
    if shape.wedge_runs and min_cat <= WEDGE:
        if wild_key:
            for rest, total in shape.wedge_runs:
                for s in shape.colour_shifts:
                    free = (avail >> s) & VALUE_BITS
                    if covers(wild_key, rest, rest & ~free):
                        return (rest & free) << s if WEDGE * CAT_SHIFT + total > target else -1
        else:
            for rank, masks in shape.wedge_masks:
                for need in masks:
                    if avail & need == need:
                        return need if rank > target else -1
    if shape.phalanx and min_cat <= PHALANX:
        for v in shape.phalanx:
            column = avail & COLUMN[v]
            if column.bit_count() >= k:
                return column if PHALANX * CAT_SHIFT + n * v > target else -1
    if shape.battalion and min_cat <= BATTALION:
        best = -1
        witness = 0
        for s in shape.colour_shifts:
            free = (avail >> s) & VALUE_BITS
            top = TOP_K[free][k]
            if top > best:
                best = top
                witness = free << s
        if best >= 0:
            return witness if BATTALION * CAT_SHIFT + shape.fixed_sum + best > target else -1
    if shape.skirmish_runs and min_cat <= SKIRMISH:
        avail_values = 0
        for s in SHIFTS:
            avail_values |= (avail >> s) & VALUE_BITS
        for rest, total in shape.skirmish_runs:
            if covers(wild_key, rest, rest & ~avail_values):
                return avail & COLUMNS[rest] if SKIRMISH * CAT_SHIFT + total > target else -1
    if min_cat <= HOST:
        return _host_witness(shape, k, avail, max_value, target)
    return -1


_WITNESSES: Final[dict[int, int]] = {}


def still_beats(
    side: int, k: int, avail: int, n: int, fog: bool, target: int, max_value: int = NUM_VALUES
) -> int:
    """:func:`beat_witness`, remembering each witness found: while the witness for this side
    and target is still available, it is the answer without a search. (A witness depends only
    on its side, slots, Fog and target, so it holds in any game.)"""
    key = side | (n == 4) << 70 | fog << 71 | target << 72 | max_value << 82
    witness = _WITNESSES.get(key)
    if witness is not None and avail & witness == witness:
        return witness
    witness = beat_witness(side, k, avail, n, fog, target, max_value)
    if witness >= 0:
        if len(_WITNESSES) > _CACHE_LIMIT:
            _WITNESSES.clear()
        _WITNESSES[key] = witness
    return witness


def _host_witness(shape: _Shape, k: int, avail: int, max_value: int, target: int) -> int:
    """:func:`_host` with a witness (see :func:`beat_witness`)."""
    total = shape.fixed_sum
    witness = 0
    for v in range(max_value, 0, -1):
        if not k:
            break
        column = avail & COLUMN[v]
        count = column.bit_count()
        if count:
            take = count if count < k else k
            total += take * v
            k -= take
            witness |= column
    if k or total <= target:
        return -1
    return witness


def describe(rank: int) -> str:
    """A rank in words, e.g. ``'wedge 27'`` (a Fog rank, a plain sum, reads ``'host 24'``)."""
    if rank < 0:
        return "no completion"
    return f"{CATEGORY_NAMES[rank // CAT_SHIFT]} {rank % CAT_SHIFT}"
