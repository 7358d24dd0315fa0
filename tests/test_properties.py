"""Property tests (hypothesis): action notation round-trips for every legal action of both
games, and Battle Line's claim proof (and its witnesses) agrees with brute-force enumeration on
generated sides."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import registry
from games.battleline import formations as fm
from games.battleline import notation as bl_notation
from games.warchest import notation as wc_notation
from tests.battleline.bruteforce import best_completion

VARIANTS: list[tuple[str, dict[str, str]]] = [
    ("battleline", {}), ("battleline", {"rules": "schotten-totten"}),
    ("battleline", {"players": "3"}), ("warchest", {}), ("warchest", {"players": "4"})]


@pytest.mark.parametrize(("name", "variant"), VARIANTS, ids=lambda v: str(v) or "default")
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), choices=st.lists(st.integers(0, 10**6), max_size=150))
def test_every_legal_action_round_trips_through_the_notation(
        name: str, variant: dict[str, str], seed: int, choices: list[int]) -> None:
    state = registry.get(name).new_game(seed, **variant)
    for choice in choices:
        if state.is_terminal():
            break
        legal = state.legal_actions()
        for action in legal:
            if name == "battleline":
                assert bl_notation.format_action(bl_notation.parse(action)) == action
                # spacing and case are not part of the action
                assert bl_notation.parse(f"  {action.upper()} ") == bl_notation.parse(action)
            else:
                assert wc_notation.canonical(action) == action
                assert wc_notation.canonical(f" {action.upper()}  ") == action
        state.apply(legal[choice % len(legal)])


TROOPS = st.integers(0, 59)  # colour * 10 + value - 1
WILDS = st.sampled_from([60, 61, 62, 63])  # the two leaders, Companion, Shield Bearers


@st.composite
def sides(draw: st.DrawFn) -> tuple[list[int], int, list[int], int, bool]:
    """A side of a flag (troops, maybe wild tactics), the cards it still needs and a small
    pool of available troops (small enough for brute force)."""
    n = draw(st.sampled_from([3, 4]))
    wilds = draw(st.lists(WILDS, max_size=2, unique=True))
    if 60 in wilds and 61 in wilds:  # one player holds at most one leader
        wilds.remove(61)
    have = draw(st.integers(0, n - len(wilds)))
    troops = draw(st.lists(TROOPS, min_size=have, max_size=have, unique=True))
    side = [*troops, *wilds][:n]
    avail = draw(st.lists(TROOPS.filter(lambda c: c not in side), max_size=9, unique=True))
    return side, n - len(side), avail, n, draw(st.booleans())


def _mask(cards: list[int]) -> int:
    out = 0
    for card in cards:
        out |= 1 << card
    return out


@settings(max_examples=400, deadline=None)
@given(case=sides(), target=st.integers(-1, 4 * 64 + 40))
def test_the_claim_proof_agrees_with_brute_force(
        case: tuple[list[int], int, list[int], int, bool], target: int) -> None:
    side, k, avail, n, fog = case
    want = best_completion(side, k, avail, fog)
    assert fm.best_rank(_mask(side), k, _mask(avail), n, fog) == want
    assert fm.can_beat(_mask(side), k, _mask(avail), n, fog, target) == (want > target)


@settings(max_examples=400, deadline=None)
@given(case=sides(), target=st.integers(-1, 4 * 64 + 40))
def test_a_claim_witness_proves_the_side_can_still_beat(
        case: tuple[list[int], int, list[int], int, bool], target: int) -> None:
    """beat_witness answers as can_beat does, and its witness alone (any available set that
    holds it) still lets the side beat the target: what lets a claim check skip the search."""
    side, k, avail, n, fog = case
    witness = fm.beat_witness(_mask(side), k, _mask(avail), n, fog, target)
    want = best_completion(side, k, avail, fog)
    assert (witness >= 0) == (want > target)
    if witness >= 0:
        assert witness & ~_mask(avail) == 0
        cards = [c for c in avail if witness >> c & 1]
        assert best_completion(side, k, cards, fog) > target
