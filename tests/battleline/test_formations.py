"""Formations and the claim proof: the rulebook's worked examples, then the fast proof checked
against brute-force enumeration on many random positions with wild cards, Mud and Fog."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from games.battleline import GAME
from games.battleline import formations as fm
from games.battleline.cards import ALL_TROOPS, iter_bits
from games.battleline.state import BattleLineState
from tests.battleline.bruteforce import best_completion, rank_of
from tests.battleline.helpers import ids, mask, position


def rank(text: str, fog: bool = False) -> int:
    cards = ids(text)
    return fm.complete_rank(mask(text), len(cards), fog)


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("r3 r4 r5", "wedge 12"),
        ("r8 y8 g8", "phalanx 24"),
        ("b1 b5 b9", "battalion 15"),
        ("r7 g6 b8", "skirmish line 21"),
        ("r1 g5 b9", "host 15"),
        ("companion b9 b10", "wedge 27"),
        ("alexander companion shield", "battalion 21"),
        ("b8 alexander g8", "phalanx 24"),
        ("b8 darius b9", "wedge 27"),  # leader as b10
        ("b8 alexander b10", "wedge 27"),  # leader as b9
        ("shield r2 r3", "wedge 6"),
        ("shield y5 g5", "host 13"),  # shield cannot become a 5
        ("companion shield r9", "battalion 20"),  # both wilds turn red: 8 + 3 + 9
        ("r1 r2 r3 r4", "wedge 10"),
        ("r10 o10 y10 g10", "phalanx 40"),
        ("alexander r9 r10 companion", "wedge 34"),  # 7-8-9-10 red
    ],
)
def test_named_formations(cards: str, expected: str) -> None:
    assert fm.describe(rank(cards)) == expected


def test_category_beats_sum() -> None:
    assert rank("r1 r2 r3") > rank("r10 o10 y10")  # wedge 6 beats phalanx 30
    assert rank("r1 r2 r3") < rank("r2 r3 r4")


def test_fog_counts_sums_only_with_wilds_at_maximum() -> None:
    assert rank("r3 r4 r5", fog=True) == 12
    assert rank("alexander companion shield", fog=True) == 21
    assert rank("r3 r4 r5", fog=True) < rank("y1 g2 b10", fog=True)


def test_rulebook_red_wedge_beats_yellow_red_green_8s() -> None:
    s = position([(0, 3, "r3 r4 r5"), (1, 3, "y8 r8 g8")])
    assert s.can_claim(0, 2)
    assert not s.can_claim(1, 2)


def test_rulebook_three_2s_beat_a_red_7_and_green_6() -> None:
    # red 7 + green 6 can at best become a skirmish line: a phalanx of 2s cannot be beaten
    s = position([(0, 5, "r2 o2 y2"), (1, 5, "r7 g6")])
    assert s.can_claim(0, 4)
    best = fm.best_rank(mask("r7 g6"), 1, s.available(), 3, False)
    assert fm.describe(best) == "skirmish line 21"


def test_rulebook_red_wedge_beats_lone_blue_8_once_blue_7_and_10_are_gone() -> None:
    s = position([(0, 2, "r3 r4 r5"), (1, 2, "b8")])
    assert not s.can_claim(0, 1)  # blue 8 could still become b8 b9 b10 or b6 b7 b8...
    s = position([(0, 2, "r3 r4 r5"), (1, 2, "b8"), (0, 7, "b7"), (1, 8, "b10")])
    assert s.can_claim(0, 1)


def test_claim_may_not_use_the_claimers_hand() -> None:
    # the blue 7 in the claimer's hand still counts as available
    s = position([(0, 2, "r3 r4 r5"), (1, 2, "b8"), (1, 8, "b10")], hands=("b7", ""))
    assert not s.can_claim(0, 1)


def test_unplayed_tactics_never_block() -> None:
    # y8 r8 could only beat r3 r4 r5 with a leader; unplayed tactics do not count
    s = position([(0, 3, "r3 r4 r5"), (1, 3, "y9 r9")], hands=("", "alexander"))
    assert s.can_claim(0, 2)


def test_wild_card_on_the_opponent_side_keeps_its_freedom() -> None:
    # g10 + alexander could become g8 g9 g10 (wedge 27) if g8 or g9 is available
    s = position([(0, 1, "r3 r4 r5"), (1, 1, "g10 alexander")])
    assert not s.can_claim(0, 0)
    s = position([(0, 1, "r3 r4 r5"), (1, 1, "g10 alexander"), (0, 5, "g9 g8 g7 g6"),
                  (1, 6, "g5 g4 g3 g2 g1")])
    # with every green gone the best left is a phalanx of 10s, and a wedge beats any phalanx
    best = fm.best_rank(mask("g10 alexander"), 1, s.available(), 3, False)
    assert fm.describe(best) == "phalanx 30"
    assert s.can_claim(0, 0)


def test_tie_on_complete_sides_goes_to_the_side_completed_first() -> None:
    s = position([(0, 4, "r3 r4 r5"), (1, 4, "b3 b4 b5")])  # seat 0 completed first
    assert s.can_claim(0, 3) and not s.can_claim(1, 3)
    s = position([(1, 4, "b3 b4 b5"), (0, 4, "r3 r4 r5")])
    assert s.can_claim(1, 3) and not s.can_claim(0, 3)


def test_tie_at_best_for_incomplete_side_lets_the_claim_succeed() -> None:
    # b3 b4 can at best become b3 b4 b5 = wedge 12, the same as r3 r4 r5 (b2 gone, b5 free)
    s = position([(0, 4, "r3 r4 r5"), (1, 4, "b3 b4"), (0, 8, "b2")])
    assert fm.describe(fm.best_rank(mask("b3 b4"), 1, s.available(), 3, False)) == "wedge 12"
    assert s.can_claim(0, 3)


def test_mud_needs_four_cards() -> None:
    s = position([(0, 6, "r3 r4 r5"), (1, 6, "y1 y2 y3")], env=[("mud", 1, 6)])
    assert not s.can_claim(0, 5)
    s = position([(0, 6, "r3 r4 r5 r6"), (1, 6, "y1 y2 y3 g9")], env=[("mud", 1, 6)])
    assert s.can_claim(0, 5)


def test_fog_and_mud_together_compare_four_card_sums() -> None:
    s = position([(0, 6, "r1 r2 r3 r4"), (1, 6, "y10 g1 b1 p1")],
                 env=[("mud", 1, 6), ("fog", 0, 6)])
    assert s.can_claim(1, 5)  # 13 beats 10
    assert not s.can_claim(0, 5)


def test_no_completion_possible_means_the_claim_succeeds() -> None:
    board = [(0, 1, "r1 o1 y2"), (1, 1, "b9 b10")]
    # every troop except the board's is used up: discard everything else
    used = {"r1", "o1", "y2", "b9", "b10"}
    from games.battleline.cards import CARD_NAMES
    rest = " ".join(CARD_NAMES[c] for c in iter_bits(ALL_TROOPS) if CARD_NAMES[c] not in used)
    s = position(board, discards=(rest, ""))
    assert s.available() == 0
    assert s.can_claim(0, 0)


# --- the fast proof against brute force ------------------------------------------------------

WILDS = [60, 61, 62, 63]


def _random_case(rng: random.Random) -> tuple[list[int], int, list[int], int, bool]:
    n = 4 if rng.random() < 0.35 else 3
    fog = rng.random() < 0.25
    have = rng.randrange(0, n)
    k = n - have
    wild_count = min(have, rng.choice([0, 0, 0, 1, 1, 2, 3]))
    wilds = rng.sample([rng.choice([60, 61]), 62, 63], wild_count)
    troops = rng.sample(range(60), have - wild_count) if rng.random() < 0.5 else _clustered(
        rng, have - wild_count)
    side = [*troops, *wilds]
    pool = [c for c in range(60) if c not in troops]
    size = {1: 30, 2: 18, 3: 11, 4: 9}[k]
    # wild cards multiply the brute force's work: keep each case to a few hundred completions
    work = 1
    for w in wilds:
        work *= {60: 30, 61: 30, 62: 3, 63: 9}[w]
    while size > k + 1 and math.comb(size, k) * work > 600:
        size -= 1
    # bias the available troops toward the side's colours and values, where it matters
    near = [c for c in pool if any(c // 10 == t // 10 or c % 10 == t % 10 for t in troops)]
    chosen = set(rng.sample(near, min(len(near), size // 2)))
    chosen |= set(rng.sample(pool, min(len(pool), size - len(chosen))))
    return side, k, sorted(chosen), n, fog


def _clustered(rng: random.Random, count: int) -> list[int]:
    colour = rng.randrange(6)
    start = rng.randrange(10)
    out: set[int] = set()
    while len(out) < count:
        if rng.random() < 0.7:
            out.add(colour * 10 + (start + rng.randrange(-2, 3)) % 10)
        else:
            out.add(rng.randrange(6) * 10 + start)
    return list(out)


def _mask(cards: list[int]) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def _check_cases(count: int, seed: int) -> int:
    rng = random.Random(seed)
    checked = 0
    for _ in range(count):
        side, k, avail, n, fog = _random_case(rng)
        want = best_completion(side, k, avail, fog)
        got = fm.best_rank(_mask(side), k, _mask(avail), n, fog)
        assert got == want, (side, k, avail, n, fog, fm.describe(got), fm.describe(want))
        # the claim question for a random target, and for the exact best (a tie: no beat)
        target = rng.choice([want, want - 1, rng.randrange(0, 4 * 64 + 40)])
        beat = fm.can_beat(_mask(side), k, _mask(avail), n, fog, target)
        assert beat == (want > target), (side, k, avail, n, fog, target)
        # the claim check's shortcut: a witness, enough on its own while it stays available
        witness = fm.beat_witness(_mask(side), k, _mask(avail), n, fog, target)
        assert (witness >= 0) == beat, (side, k, avail, n, fog, target)
        if witness >= 0:
            assert witness & ~_mask(avail) == 0
            assert fm.can_beat(_mask(side), k, witness, n, fog, target), (side, k, avail, target)
        checked += 1
    return checked


def test_complete_ranks_match_brute_force() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        n = rng.choice([3, 4])
        fog = rng.random() < 0.2
        wilds = rng.sample([rng.choice([60, 61]), 62, 63], rng.choice([0, 0, 1, 1, 2, 3]))
        troops = _clustered(rng, n - len(wilds))
        cards = [*troops, *wilds]
        assert fm.complete_rank(_mask(cards), n, fog) == rank_of(cards, fog), cards


def test_complete_troop_sides_read_directly_match_brute_force() -> None:
    """complete_rank reads a side of troops only (no wild card) off directly, without the
    search: every 3-troop side, and many 4-troop (Mud) sides, with and without Fog."""
    rng = random.Random(12)
    sides = [*itertools.combinations(range(60), 3),
             *(tuple(rng.sample(range(60), 4)) for _ in range(20_000))]
    for side in sides:
        cards = list(side)
        for fog in (False, True):
            assert fm._troop_rank(_mask(cards), len(cards), fog) == rank_of(cards, fog), cards


def test_claim_proof_matches_brute_force_on_10000_positions() -> None:
    assert _check_cases(10_000, seed=2024) == 10_000


def _brute_claim(state: BattleLineState, seat: int, flag: int) -> bool:
    """The claim rule of the rules page, decided by brute force from the raw board."""
    n = state.capacity(flag)
    mine = list(state.sides[seat * 9 + flag])
    theirs = list(state.sides[(1 - seat) * 9 + flag])
    if state.claimed[flag] >= 0 or len(mine) != n:
        return False
    fog = state.fog[flag] >= 0
    rank = rank_of(mine, fog)
    if len(theirs) == n:
        other = rank_of(theirs, fog)
        if rank != other:
            return rank > other
        return max(state.placed[c] for c in mine) < max(state.placed[c] for c in theirs)
    avail = [c for c in iter_bits(state.available())]
    return best_completion(theirs, n - len(theirs), avail, fog) <= rank


def test_claims_in_real_games_match_brute_force() -> None:
    rng = random.Random(8)
    seen: set[tuple[int, ...]] = set()
    outcomes: set[tuple[bool, bool, int]] = set()
    for seed in range(50):
        state = GAME.new_game(seed, rules=rng.choice(["standard", "advanced", "no-tactics"]))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            for seat in (0, 1):
                for flag in range(9):
                    theirs = (1 - seat) * 9 + flag
                    missing = state.capacity(flag) - len(state.sides[theirs])
                    if state.side_rank(seat, flag) < 0 or missing > 2:
                        continue
                    if missing == 2 and rng.random() < 0.7:  # the costly brute forces
                        continue
                    key = (seed, seat, flag, state.smask[seat * 9 + flag], state.smask[theirs],
                           state.fog[flag], state.available().bit_count())
                    if key in seen:
                        continue
                    seen.add(key)
                    got = state.can_claim(seat, flag)
                    assert got == _brute_claim(state, seat, flag), f"seat {seat} flag {flag + 1}"
                    outcomes.add((got, state.fog[flag] >= 0, missing))
    assert len(seen) >= 300, len(seen)
    assert (True, False, 1) in outcomes and (False, False, 2) in outcomes
    assert any(fog for _, fog, _ in outcomes)


@pytest.mark.parametrize(
    ("available", "expected"),
    [
        ("b10", "wedge 27"),  # leader as b9
        ("b9", "wedge 27"),  # leader as b10
        ("b7", "wedge 24"),  # leader as b9: 7-8-9
        ("b6", "wedge 21"),  # leader as b7: 6-7-8
        ("r8", "phalanx 24"),  # leader as any 8
        ("b1", "battalion 19"),  # leader as b10: 1 + 8 + 10
        ("r6", "skirmish line 21"),  # leader as a 7
        ("r5", "host 23"),  # 5, 8 and a leader make no run: leader counts 10
    ],
)
def test_rulebook_blue_8_and_leader_options(available: str, expected: str) -> None:
    best = fm.best_rank(mask("b8 alexander"), 1, mask(available), 3, False)
    assert fm.describe(best) == expected
