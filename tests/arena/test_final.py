"""The final stage's pure logic (harness/arena/final.py): Swiss pairings and standings, knockout
brackets and tie-breaks, checked on hand-worked cases and by simulation."""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

from harness.arena.final import (
    Knockout,
    Meeting,
    Pairing,
    Standing,
    Swiss,
    bracket_order,
    pair_round,
)


def seeds(n: int) -> list[str]:
    """s1 … sn, best first."""
    return [f"s{i}" for i in range(1, n + 1)]


def pairs(pairings: Sequence[Pairing]) -> list[tuple[str, str]]:
    return [(p.a, p.b) for p in pairings]


def meet(round: int, a: str, b: str, points_a: float, games: int = 2) -> Meeting:
    return Meeting(round, a, b, points_a, games)


def table(standings: Sequence[Standing]) -> list[tuple[str, float, float, float]]:
    """(name, match points, tiebreak, game points) in rank order."""
    assert [s.rank for s in standings] == list(range(1, len(standings) + 1))
    return [(s.name, s.match_points, s.tiebreak, s.game_points) for s in standings]


def play_swiss(swiss: Swiss, rng: random.Random) -> list[Meeting]:
    """Every round of ``swiss`` with random results (draws included), two games a meeting."""
    meetings: list[Meeting] = []
    while pairings := swiss.next_pairings(meetings):
        assert len({p.round for p in pairings}) == 1
        meetings += [meet(p.round, p.a, p.b, rng.choice([0, 0.5, 1, 1.5, 2])) for p in pairings]
    return meetings


def perfect_matchings(bots: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not bots:
        yield []
        return
    first = bots[0]
    for i in range(1, len(bots)):
        for rest in perfect_matchings(bots[1:i] + bots[i + 1:]):
            yield [(first, bots[i]), *rest]


# --- Swiss ---------------------------------------------------------------------------------------

def test_swiss_round_one_pairs_top_half_against_bottom_half() -> None:
    swiss = Swiss(seeds(8), rounds=3)
    assert swiss.next_pairings([]) == [Pairing(1, "s1", "s5"), Pairing(1, "s2", "s6"),
                                       Pairing(1, "s3", "s7"), Pairing(1, "s4", "s8")]
    assert swiss.bye(1, []) is None
    assert swiss.current_round([]) == 1


def test_swiss_round_two_pairs_within_score_groups() -> None:
    swiss = Swiss(seeds(8), rounds=3)
    better_seeds_win = [meet(1, p.a, p.b, 2) for p in swiss.next_pairings([])]
    # winners s1-s4 (top half v bottom half: s1 v s3, s2 v s4), losers s5-s8 likewise
    assert pairs(swiss.next_pairings(better_seeds_win)) == [
        ("s1", "s3"), ("s2", "s4"), ("s5", "s7"), ("s6", "s8")]


def test_swiss_scripted_three_rounds_with_floats_and_standings() -> None:
    swiss = Swiss(seeds(8), rounds=3)
    r1 = [meet(1, "s1", "s5", 2), meet(1, "s2", "s6", 0.5), meet(1, "s3", "s7", 1),
          meet(1, "s4", "s8", 0)]
    # 1 point: s1 s6 s8 | ½: s3 s7 | 0: s2 s4 s5. s1 v s6, s8 floats to meet s3 (top of the ½
    # group), s7 floats to meet s2 (top of the 0 group), s4 v s5.
    assert pairs(swiss.next_pairings(r1)) == [("s1", "s6"), ("s3", "s8"), ("s2", "s7"),
                                              ("s4", "s5")]
    r2 = [meet(2, "s1", "s6", 1.5), meet(2, "s3", "s8", 0.5), meet(2, "s2", "s7", 1),
          meet(2, "s4", "s5", 0)]
    # 2: s1 s8 | 1: s5 s6 s7 | ½: s2 s3 | 0: s4. s1 v s8; s5 v s6 and s7 floats, but s7 has met
    # both s2 and s3: s7 floats on to s4, and s2 v s3.
    assert pairs(swiss.next_pairings(r1 + r2)) == [("s1", "s8"), ("s5", "s6"), ("s2", "s3"),
                                                   ("s4", "s7")]
    r3 = [meet(3, "s1", "s8", 1), meet(3, "s5", "s6", 0.5), meet(3, "s2", "s3", 2),
          meet(3, "s4", "s7", 0.5)]
    everything = r1 + r2 + r3
    assert swiss.next_pairings(everything) == []
    assert swiss.current_round(everything) is None
    # match points: s1 W W D, s8 W W D, s6 W L W, s7 D D W, s2 L D W, s5 L W L, s3 D L L, s4 L L L
    # Buchholz: s1 = s5 1 + s6 2 + s8 2.5 = 5.5; s8 = s4 0 + s3 ½ + s1 2.5 = 3;
    # s6 = s2 1½ + s1 2½ + s5 1 = 5; s7 = s3 ½ + s2 1½ + s4 0 = 2; s2 = s6 2 + s7 2 + s3 ½;
    # s5 = s1 2½ + s4 0 + s6 2; s3 = s7 2 + s8 2½ + s2 1½; s4 = s8 2½ + s5 1 + s7 2
    assert table(swiss.standings(everything)) == [
        ("s1", 2.5, 5.5, 4.5), ("s8", 2.5, 3.0, 4.5), ("s6", 2.0, 5.0, 3.5),
        ("s7", 2.0, 2.0, 3.5), ("s2", 1.5, 4.5, 3.5), ("s5", 1.0, 4.5, 2.5),
        ("s3", 0.5, 6.0, 1.5), ("s4", 0.0, 5.5, 0.5)]
    first = swiss.standings(everything)[0]
    assert first == Standing(1, "s1", 2.5, 4.5, 6, 5.5, 1)


def test_swiss_standings_break_ties_by_buchholz_then_game_points_then_seed() -> None:
    swiss = Swiss(seeds(4), rounds=2)
    # round 1: s1 v s3, s2 v s4 -> s3 and s2 win; round 2: s2 v s3 (1 point), s1 v s4
    r1 = [meet(1, "s1", "s3", 0.5), meet(1, "s2", "s4", 2)]
    assert pairs(swiss.next_pairings(r1)) == [("s2", "s3"), ("s1", "s4")]
    r2 = [meet(2, "s2", "s3", 1, games=2), meet(2, "s1", "s4", 1.5)]
    # s2 1½ (Buchholz s4 0 + s3 1½ = 1½), s3 1½ (s1 1 + s2 1½ = 2½): s3 above s2.
    # s1 1 (Buchholz s3 1½ + s4 0), s4 0
    assert table(swiss.standings(r1 + r2)) == [
        ("s3", 1.5, 2.5, 2.5), ("s2", 1.5, 1.5, 3.0), ("s1", 1.0, 1.5, 2.0),
        ("s4", 0.0, 2.5, 0.5)]
    # all level on match points and Buchholz: game points, then seed
    level = [meet(1, "s1", "s3", 1, games=2), meet(1, "s2", "s4", 2, games=4)]
    assert [s.name for s in swiss.standings(level)] == ["s2", "s4", "s1", "s3"]
    assert [s.seed for s in swiss.standings([])] == [1, 2, 3, 4]


def test_swiss_odd_field_bye_goes_to_the_lowest_ranked_without_one() -> None:
    swiss = Swiss(seeds(5), rounds=3)
    assert swiss.bye(1, []) == "s5"
    assert pairs(swiss.next_pairings([])) == [("s1", "s3"), ("s2", "s4")]
    r1 = [meet(1, "s1", "s3", 2), meet(1, "s2", "s4", 0)]
    # 1 point: s1 s4 s5 (bye) | 0: s2 s3. s3 is the lowest without a bye; s1 v s4, s5 floats to s2
    assert swiss.bye(2, r1) == "s3"
    assert pairs(swiss.next_pairings(r1)) == [("s1", "s4"), ("s2", "s5")]
    # the bye: 1 match point, no game points, no games; counted once its round is complete
    before = {s.name: s for s in swiss.standings([meet(1, "s1", "s3", 2)])}
    assert before["s5"].match_points == 0
    after = {s.name: s for s in swiss.standings(r1)}
    assert (after["s5"].match_points, after["s5"].game_points, after["s5"].games) == (1, 0, 0)
    assert after["s5"].tiebreak == 0  # no opponent yet
    assert after["s1"].tiebreak == 0  # s3 lost
    r2 = [meet(2, "s1", "s4", 1), meet(2, "s2", "s5", 2)]
    assert swiss.bye(3, r1 + r2) not in {"s5", "s3"}


@pytest.mark.parametrize("n", [3, 5, 7, 9])
def test_swiss_odd_field_every_bot_sits_out_at_most_once(n: int) -> None:
    for seed in range(8):
        swiss = Swiss(seeds(n), rounds=n)  # a full round robin: each sits out exactly once
        meetings = play_swiss(swiss, random.Random(seed))
        byes = [swiss.bye(r, meetings) for r in range(1, n + 1)]
        assert sorted(b for b in byes if b is not None) == seeds(n)
        met = Counter(frozenset((m.a, m.b)) for m in meetings)
        assert len(met) == n * (n - 1) // 2 and set(met.values()) == {1}
        for r, bye in enumerate(byes, start=1):
            assert all(bye not in (m.a, m.b) for m in meetings if m.round == r)


@pytest.mark.parametrize("seed", range(30))
def test_swiss_eight_bots_seven_rounds_never_rematch(seed: int) -> None:
    swiss = Swiss(seeds(8), rounds=7)
    meetings = play_swiss(swiss, random.Random(seed))
    met = Counter(frozenset((m.a, m.b)) for m in meetings)
    assert len(meetings) == 28 and set(met.values()) == {1}  # a full round robin
    for r in range(1, 8):
        playing = [x for m in meetings if m.round == r for x in (m.a, m.b)]
        assert sorted(playing) == seeds(8)


@pytest.mark.parametrize(("n", "rounds"), [(6, 5), (10, 9), (12, 6), (11, 8), (16, 7)])
def test_swiss_other_fields_never_rematch(n: int, rounds: int) -> None:
    for seed in range(5):
        meetings = play_swiss(Swiss(seeds(n), rounds), random.Random(seed))
        assert len(meetings) == rounds * (n // 2)
        assert len({frozenset((m.a, m.b)) for m in meetings}) == len(meetings)


def test_swiss_is_deterministic_and_ignores_meeting_order() -> None:
    meetings = play_swiss(Swiss(seeds(9), rounds=5), random.Random(11))
    partial = [m for m in meetings if m.round <= 3] + [m for m in meetings if m.round == 4][:2]
    shuffled = partial[::-1]
    random.Random(3).shuffle(shuffled)
    one, two = Swiss(seeds(9), rounds=5), Swiss(seeds(9), rounds=5)
    assert one.next_pairings(partial) == two.next_pairings(shuffled) == one.next_pairings(partial)
    assert one.standings(partial) == two.standings(shuffled)
    assert one.bye(4, partial) == two.bye(4, shuffled)


def test_swiss_resumes_a_half_stored_round_with_its_own_pairings() -> None:
    swiss = Swiss(seeds(8), rounds=4)
    meetings = play_swiss(swiss, random.Random(5))
    before_3 = [m for m in meetings if m.round < 3]
    round_3 = swiss.next_pairings(before_3)
    assert len(round_3) == 4 and {p.round for p in round_3} == {3}
    # two of round 3's meetings stored (boards 1 and 3), then a crash: the restart gets the
    # other two, unchanged, whatever the stored results
    for outcome in (0, 1, 2):
        stored = [meet(3, round_3[0].a, round_3[0].b, outcome),
                  meet(3, round_3[2].b, round_3[2].a, 2 - outcome)]
        assert swiss.next_pairings(before_3 + stored) == [round_3[1], round_3[3]]
        assert swiss.pairings(3, before_3 + stored) == round_3
        assert swiss.current_round(before_3 + stored) == 3
    done_3 = before_3 + [meet(3, p.a, p.b, 1) for p in round_3]
    assert {p.round for p in swiss.next_pairings(done_3)} == {4}


def test_swiss_completion_check_avoids_a_dead_end() -> None:
    """Eight bots before round 5 of 7: the plain score-group pairing would leave round 6 with
    no pairing of bots that have not met; the stage pairs so that rounds 6 and 7 still exist."""
    points = {"s3": 3.5, "s4": 2.5, "s5": 2.5, "s8": 2.5, "s2": 2.0, "s1": 1.5, "s7": 1.0,
              "s6": 0.5}
    met = [("s1", "s5"), ("s2", "s6"), ("s3", "s7"), ("s4", "s8"), ("s2", "s5"), ("s3", "s8"),
           ("s1", "s6"), ("s4", "s7"), ("s3", "s2"), ("s5", "s4"), ("s8", "s1"), ("s6", "s7"),
           ("s3", "s4"), ("s8", "s2"), ("s5", "s6"), ("s7", "s1")]
    ranked = list(points)
    played = {frozenset(p) for p in met}

    def free_rounds(extra: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
        done = played | {frozenset(p) for p in extra}
        return [m for m in perfect_matchings(sorted(points))
                if not any(frozenset(p) in done for p in m)]

    blind, _ = pair_round(ranked, points, met, rounds_left=0)
    assert blind == [("s3", "s5"), ("s4", "s1"), ("s2", "s7"), ("s8", "s6")]
    assert free_rounds(blind) == []
    careful, bye = pair_round(ranked, points, met, rounds_left=2)
    assert bye is None
    assert careful == [("s3", "s5"), ("s2", "s1"), ("s8", "s7"), ("s4", "s6")]
    assert any(not set(map(frozenset, r6)) & set(map(frozenset, r7))
               for r6, r7 in itertools.combinations(free_rounds(careful), 2))


def test_pair_round_allows_the_fewest_rematches_when_they_cannot_be_avoided() -> None:
    # a has met everyone: one rematch, a v c (the natural pair), and b v d
    assert pair_round(["a", "b", "c", "d"], dict.fromkeys("abcd", 0.0),
                      [("a", "b"), ("a", "c"), ("a", "d")]) == ([("a", "c"), ("b", "d")], None)
    # two triangles met (a-b-c, d-e-f): every pair across them is new, so no rematch
    six = dict.fromkeys("abcdef", 0.0)
    triangles = [("a", "b"), ("b", "c"), ("a", "c"), ("d", "e"), ("e", "f"), ("d", "f")]
    got, _ = pair_round(list("abcdef"), six, triangles)
    assert not {frozenset(p) for p in got} & {frozenset(p) for p in triangles}
    # four bots that have all met: two rematches, in the natural order
    everyone = list(itertools.combinations("abcd", 2))
    assert pair_round(list("abcd"), dict.fromkeys("abcd", 1.0), everyone) == (
        [("a", "c"), ("b", "d")], None)


def test_pair_round_rematches_are_the_fewest_possible_on_random_cases() -> None:
    rng = random.Random(2024)
    for _ in range(300):
        n = rng.choice([4, 5, 6, 7, 8])
        bots = seeds(n)
        scores = sorted((rng.choice([0.0, 0.5, 1.0, 2.0]) for _ in bots), reverse=True)
        points = dict(zip(bots, scores, strict=True))
        density = rng.random()
        met = [p for p in itertools.combinations(bots, 2) if rng.random() < density]
        had_bye = [b for b in bots[:-1] if rng.random() < 0.3]
        got, bye = pair_round(bots, points, met, had_bye)
        assert sorted([x for p in got for x in p] + ([bye] if bye else [])) == sorted(bots)
        done = {frozenset(p) for p in met}
        sitters = [b for b in bots if b not in had_bye] if n % 2 else [None]
        fewest = {s: min(sum(frozenset(p) in done for p in m)
                         for m in perfect_matchings([b for b in bots if b != s]))
                  for s in sitters}
        least = min(fewest.values())
        assert sum(frozenset(p) in done for p in got) == least
        if n % 2:  # the lowest ranked of the bots allowing that
            assert bye == [s for s in sitters if fewest[s] == least][-1]


def test_swiss_is_fast_for_sixty_four_bots() -> None:
    swiss = Swiss([f"bot{i:02d}" for i in range(64)], rounds=6)
    rng = random.Random(1)
    meetings: list[Meeting] = []
    slowest = 0.0
    for _ in range(6):
        start = time.perf_counter()
        pairings = swiss.next_pairings(meetings)  # recomputes every round so far
        slowest = max(slowest, time.perf_counter() - start)
        meetings += [meet(p.round, p.a, p.b, rng.choice([0, 0.5, 1, 1.5, 2])) for p in pairings]
    assert swiss.next_pairings(meetings) == []
    assert len({frozenset((m.a, m.b)) for m in meetings}) == 6 * 32
    assert slowest < 0.25  # about 15 ms on a laptop; a loose bound for busy machines


def test_swiss_rejects_bad_input_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="at least 2 bots"):
        Swiss(["only"], rounds=1)
    with pytest.raises(ValueError, match="duplicate bot names in the seeds: b"):
        Swiss(["a", "b", "c", "b"], rounds=1)
    with pytest.raises(ValueError, match="at least 1 round"):
        Swiss(seeds(4), rounds=0)
    with pytest.raises(ValueError, match="more than a round robin of 8 bots"):
        Swiss(seeds(8), rounds=8)
    assert Swiss(seeds(7), rounds=7).rounds == 7  # odd: every bot sits out once
    with pytest.raises(ValueError, match="more than a round robin of 7 bots"):
        Swiss(seeds(7), rounds=8)
    with pytest.raises(ValueError, match="not one string"):
        Swiss("abcd", rounds=1)
    swiss = Swiss(seeds(4), rounds=2)
    with pytest.raises(ValueError, match="'s9' is not in this final's field"):
        swiss.next_pairings([meet(1, "s1", "s9", 1)])
    with pytest.raises(ValueError, match="round 1: s1 v s2 is not one of the round's pairings"):
        swiss.next_pairings([meet(1, "s2", "s1", 1)])
    with pytest.raises(ValueError, match="meetings of round 2 are stored but round 1 is not"):
        swiss.next_pairings([meet(1, "s1", "s3", 1), meet(2, "s1", "s2", 1)])
    with pytest.raises(ValueError, match="stored twice"):
        swiss.next_pairings([meet(1, "s1", "s3", 1), meet(1, "s3", "s1", 1)])
    with pytest.raises(ValueError, match="this stage has 2 rounds"):
        swiss.next_pairings([meet(3, "s1", "s3", 1)])
    with pytest.raises(ValueError, match="round 2 cannot be paired yet: round 1 is not complete"):
        swiss.bye(2, [])
    with pytest.raises(ValueError, match=r"outside this stage's rounds 1\.\.2"):
        swiss.pairings(3, [])


def test_meeting_rejects_impossible_results() -> None:
    with pytest.raises(ValueError, match="round must be 1 or more"):
        Meeting(0, "a", "b", 1, 2)
    with pytest.raises(ValueError, match="cannot meet itself"):
        Meeting(1, "a", "a", 1, 2)
    with pytest.raises(ValueError, match="at least one game"):
        Meeting(1, "a", "b", 0, 0)
    with pytest.raises(ValueError, match="between 0 and games"):
        Meeting(1, "a", "b", 2.5, 2)
    assert Meeting(1, "a", "b", 1.5, 2).points("b") == 0.5


# --- knockout ------------------------------------------------------------------------------------

def test_bracket_order_keeps_the_top_seeds_apart() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    with pytest.raises(ValueError, match="power of two"):
        bracket_order(6)


def test_knockout_of_eight_bracket_order_and_champion() -> None:
    ko = Knockout(seeds(8))
    assert ko.rounds == 3
    r1 = ko.next_pairings([])
    assert r1 == [Pairing(1, "s1", "s8"), Pairing(1, "s4", "s5"), Pairing(1, "s2", "s7"),
                  Pairing(1, "s3", "s6")]
    results = [meet(1, "s1", "s8", 2), meet(1, "s5", "s4", 1.5), meet(1, "s2", "s7", 1.5),
               meet(1, "s3", "s6", 0)]
    assert ko.next_pairings(results[:2]) == r1[2:]  # resuming: only the undecided ones
    assert ko.next_pairings(results) == [Pairing(2, "s1", "s5"), Pairing(2, "s2", "s6")]
    results += [meet(2, "s1", "s5", 2), meet(2, "s6", "s2", 0.5)]
    assert ko.next_pairings(results) == [Pairing(3, "s1", "s2")]
    assert ko.champion(results) is None
    results += [meet(3, "s1", "s2", 0.5)]
    assert ko.champion(results) == "s2"
    assert ko.next_pairings(results) == []
    # champion, runner-up, semi-final losers by seed, quarter-final losers by seed
    standings = ko.standings(results)
    assert [(s.rank, s.name, s.match_points, s.tiebreak) for s in standings] == [
        (1, "s2", 3.0, 3.0), (2, "s1", 2.0, 3.0), (3, "s5", 1.0, 2.0), (4, "s6", 1.0, 2.0),
        (5, "s3", 0.0, 1.0), (6, "s4", 0.0, 1.0), (7, "s7", 0.0, 1.0), (8, "s8", 0.0, 1.0)]
    assert standings[0] == Standing(1, "s2", 3.0, 1.5 + 1.5 + 1.5, 6, 3.0, 2)


def test_knockout_of_six_gives_the_top_two_seeds_byes() -> None:
    ko = Knockout(seeds(6))
    assert (ko.size, ko.rounds) == (8, 3)
    assert ko.next_pairings([]) == [Pairing(1, "s4", "s5"), Pairing(1, "s3", "s6")]
    # during round 1: s1 and s2 are through (round 2), the others still in round 1
    assert [(s.name, s.tiebreak) for s in ko.standings([])] == [
        ("s1", 2.0), ("s2", 2.0), ("s3", 1.0), ("s4", 1.0), ("s5", 1.0), ("s6", 1.0)]
    r1 = [meet(1, "s4", "s5", 0.5), meet(1, "s6", "s3", 0)]
    assert ko.next_pairings(r1) == [Pairing(2, "s1", "s5"), Pairing(2, "s2", "s3")]
    r2 = [meet(2, "s5", "s1", 2), meet(2, "s2", "s3", 2)]
    assert ko.next_pairings(r1 + r2) == [Pairing(3, "s2", "s5")]
    r3 = [meet(3, "s2", "s5", 1.5)]
    assert ko.champion(r1 + r2 + r3) == "s2"
    assert [(s.name, s.match_points, s.games) for s in ko.standings(r1 + r2 + r3)] == [
        ("s2", 2.0, 4), ("s5", 2.0, 6), ("s1", 0.0, 2), ("s3", 1.0, 4), ("s4", 0.0, 2),
        ("s6", 0.0, 2)]


def test_knockout_tie_breaks_then_the_better_seed() -> None:
    ko = Knockout(seeds(4), max_tiebreak_pairs=2)
    level = [meet(1, "s1", "s4", 1), meet(1, "s2", "s3", 2)]
    assert ko.next_pairings(level) == [Pairing(1, "s1", "s4", tiebreak=1)]
    # the first tie-break not level decides: s4 goes through
    decided = [*level, meet(1, "s4", "s1", 1.5)]
    assert ko.next_pairings(decided) == [Pairing(2, "s2", "s4")]
    # level again: a second tie-break; level after it: the better seed goes through
    still = [*level, meet(1, "s1", "s4", 1)]
    assert ko.next_pairings(still) == [Pairing(1, "s1", "s4", tiebreak=2)]
    assert ko.next_pairings([*still, meet(1, "s1", "s4", 1)]) == [Pairing(2, "s1", "s2")]
    # no tie-break at all: a level match goes to the better seed at once
    sudden = Knockout(seeds(4), max_tiebreak_pairs=0)
    assert sudden.next_pairings(level) == [Pairing(2, "s1", "s2")]
    # a level final with its tie-break
    final = [meet(2, "s1", "s2", 1)]
    assert sudden.champion(level + final) == "s1"
    assert ko.next_pairings([*still, meet(1, "s4", "s1", 1), *final]) == [
        Pairing(2, "s1", "s2", tiebreak=1)]
    standings = ko.standings([*still, meet(1, "s4", "s1", 1), *final])
    assert [(s.name, s.tiebreak) for s in standings[:2]] == [("s1", 2.0), ("s2", 2.0)]
    assert (standings[0].games, standings[0].game_points) == (8, 4.0)


def test_knockout_of_two_and_meeting_order() -> None:
    ko = Knockout(["x", "y"])
    assert ko.next_pairings([]) == [Pairing(1, "x", "y")]
    meetings = [meet(1, "y", "x", 1), meet(1, "x", "y", 0.5)]
    assert ko.champion(meetings) == ko.champion(meetings[::-1]) == "y"
    assert [s.name for s in ko.standings(meetings)] == ["y", "x"]


def test_knockout_rejects_bad_input_with_a_clear_message() -> None:
    with pytest.raises(ValueError, match="at least 2 bots"):
        Knockout([])
    with pytest.raises(ValueError, match="duplicate bot names in the seeds: a"):
        Knockout(["a", "a"])
    with pytest.raises(ValueError, match="max_tiebreak_pairs must be 0 or more"):
        Knockout(seeds(4), max_tiebreak_pairs=-1)
    ko = Knockout(seeds(4), max_tiebreak_pairs=1)
    with pytest.raises(ValueError, match="round 1: s1 v s2 is not a match of the round"):
        ko.next_pairings([meet(1, "s1", "s2", 1)])
    with pytest.raises(ValueError, match="meetings of round 2 are stored but round 1 is not"):
        ko.next_pairings([meet(1, "s1", "s4", 2), meet(2, "s1", "s2", 1)])
    with pytest.raises(ValueError, match="has 2 meetings not level"):
        ko.next_pairings([meet(1, "s1", "s4", 2), meet(1, "s1", "s4", 0)])
    with pytest.raises(ValueError, match=r"has 3 meetings; a match has at most 2"):
        ko.next_pairings([meet(1, "s1", "s4", 1)] * 3)
    with pytest.raises(ValueError, match="this knockout of 4 bots has 2 rounds"):
        ko.next_pairings([meet(3, "s1", "s4", 1)])
    with pytest.raises(ValueError, match="'bad' is not in this final's field"):
        ko.champion([meet(1, "bad", "s4", 1)])
