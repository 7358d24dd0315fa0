from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from harness.league import schedule
from harness.records import BotRef, GameSpec

BOTS = [BotRef("greedy", "greedy"), BotRef("random", "random"), BotRef("zed", "z.py")]


def ids(specs: list[GameSpec]) -> list[str]:
    return [s.game_id for s in specs]


def test_round_robin_is_deterministic_and_independent_of_bot_order() -> None:
    a = schedule.round_robin("battleline", {}, BOTS, 6, seed=3)
    b = schedule.round_robin("battleline", {}, list(reversed(BOTS)), 6, seed=3)
    assert a == b
    assert len(a) == 3 * 6
    assert len(set(ids(a))) == len(a)
    assert ids(schedule.round_robin("battleline", {}, BOTS, 6, seed=4)) != ids(a)


def test_duplicate_pairs_share_the_deal_with_seats_swapped() -> None:
    specs = schedule.round_robin("battleline", {}, BOTS[:2], 4, seed=1)
    for first, second in (specs[0:2], specs[2:4]):
        assert first.seed == second.seed and first.pair_id == second.pair_id
        assert [s.name for s in first.seats] == [s.name for s in reversed(second.seats)]
    assert specs[0].seed != specs[2].seed
    assert specs[0].pair_id != specs[2].pair_id


def test_growing_a_league_only_adds_ids() -> None:
    small = set(ids(schedule.round_robin("battleline", {}, BOTS[:2], 4, seed=1)))
    more_games = set(ids(schedule.round_robin("battleline", {}, BOTS[:2], 10, seed=1)))
    more_bots = set(ids(schedule.round_robin("battleline", {}, BOTS, 4, seed=1)))
    assert small < more_games and small < more_bots
    assert len(more_games) == 10 and len(more_bots) == 12


def test_gauntlet_ids_are_those_of_the_round_robin() -> None:
    g = schedule.gauntlet("battleline", {}, BOTS[2], BOTS[:2], 4, seed=9)
    rr = schedule.round_robin("battleline", {}, BOTS, 4, seed=9)
    assert len(g) == 8
    assert set(ids(g)) < set(ids(rr))
    assert all("zed" in [s.name for s in spec.seats] for spec in g)


def test_four_players_seat_teams_opposite() -> None:
    specs = schedule.round_robin("warchest", {"players": "4"}, BOTS[:2], 2, seed=1, players=4)
    assert [s.name for s in specs[0].seats] == ["greedy", "random", "greedy", "random"]
    assert [s.name for s in specs[1].seats] == ["random", "greedy", "random", "greedy"]


def test_bad_schedules_are_refused_with_the_fix() -> None:
    with pytest.raises(schedule.ScheduleError, match="at least 2 bots"):
        schedule.round_robin("battleline", {}, BOTS[:1], 2, seed=1)
    with pytest.raises(schedule.ScheduleError, match="NAME=SPEC"):
        schedule.round_robin("battleline", {}, [BOTS[0], BOTS[0]], 2, seed=1)
    with pytest.raises(schedule.ScheduleError, match="--games"):
        schedule.round_robin("battleline", {}, BOTS, 0, seed=1)
    with pytest.raises(schedule.ScheduleError, match="at least 3 bots"):
        schedule.round_robin("battleline", {"players": "3"}, BOTS[:2], 6, seed=1, players=3)
    with pytest.raises(schedule.ScheduleError, match="2 or 3 players, not 5"):
        schedule.round_robin("battleline", {}, BOTS[:2], 2, seed=1, players=5)
    with pytest.raises(schedule.ScheduleError, match="unknown game 'x'"):
        schedule.round_robin("x", {}, BOTS[:2], 2, seed=1)


FIVE = [BotRef(n, "random") for n in ("ann", "bob", "cy", "dee", "eve")]
KEY = schedule.key_from_seed(5)


def pairing_of(spec: GameSpec) -> tuple[str, ...]:
    return tuple(sorted({s.name for s in spec.seats}))


def test_rounds_hold_one_deal_set_of_every_pairing_in_a_fixed_shuffle() -> None:
    specs = schedule.round_robin("battleline", {}, FIVE, 9, seed=0, key=KEY)
    pairings = 10
    assert len(specs) == 9 * pairings
    orders = []
    for r in range(5):  # four rounds of a duplicate pair, then one of a single game
        size = 2 if r < 4 else 1
        block = specs[r * 2 * pairings:][:size * pairings]
        assert Counter(pairing_of(s) for s in block) == {p: size for p in map(pairing_of, block)}
        assert len({pairing_of(s) for s in block}) == pairings
        sets = [block[i:i + size] for i in range(0, len(block), size)]
        assert all(len({s.pair_id for s in pair}) == 1 for pair in sets)  # a pair stays together
        orders.append([pairing_of(pair[0]) for pair in sets])
    assert len({tuple(o) for o in orders}) > 1  # the order is shuffled afresh every round
    assert orders[0] != sorted(orders[0])


def test_rounds_change_the_order_not_the_games() -> None:
    specs = schedule.round_robin("battleline", {}, FIVE, 6, seed=0, key=KEY)
    assert specs == schedule.round_robin("battleline", {}, FIVE[::-1], 6, seed=0, key=KEY)
    by_pairing = [g for x, y in itertools.combinations(FIVE, 2)
                  for g in schedule.pairing_games("battleline", {}, x, y, 6, 0, key=KEY)]
    assert sorted(specs, key=lambda s: s.game_id) == sorted(by_pairing, key=lambda s: s.game_id)
    # the first games of a pairing keep the ids they had before rounds existed (pinned)
    first = schedule.pairing_games("battleline", {}, FIVE[0], FIVE[1], 2, 0, key=KEY)
    assert [s.game_id for s in first] == [schedule.game_id(0, "ann", "bob", i, KEY)
                                          for i in range(2)]


def test_a_triple_plays_each_deal_from_every_seat_order() -> None:
    specs = schedule.round_robin("battleline", {"players": "3"}, FIVE[:3], 12, seed=0,
                                 players=3, key=KEY)
    assert len(specs) == 12 and len(set(ids(specs))) == 12
    for deal in (specs[:6], specs[6:]):
        assert len({s.seed for s in deal}) == len({s.pair_id for s in deal}) == 1
        orders = [tuple(b.name for b in s.seats) for s in deal]
        assert sorted(orders) == sorted(itertools.permutations(["ann", "bob", "cy"]))
    assert specs[0].seed != specs[6].seed and specs[0].pair_id != specs[6].pair_id
    assert ids(specs) == [schedule.group_game_id(0, ["cy", "ann", "bob"], i, KEY)
                          for i in range(12)]


def test_a_free_for_all_schedules_every_triple_in_rounds() -> None:
    specs = schedule.round_robin("battleline", {}, FIVE, 12, seed=0, players=3, key=KEY)
    triples = 10  # 5 choose 3
    assert len(specs) == 12 * triples and len(set(ids(specs))) == len(specs)
    first_round = specs[:6 * triples]
    assert Counter(pairing_of(s) for s in first_round) == {
        tuple(sorted(b.name for b in t)): 6 for t in itertools.combinations(FIVE, 3)}
    assert all(len(s.seats) == 3 for s in specs)


def test_free_for_all_ids_only_grow_and_a_gauntlet_shares_them() -> None:
    def rr(bots: list[BotRef], games: int) -> set[str]:
        return set(ids(schedule.round_robin("battleline", {}, bots, games, seed=0, players=3,
                                            key=KEY)))

    assert rr(FIVE[:3], 6) < rr(FIVE[:3], 12) and rr(FIVE[:4], 6) < rr(FIVE, 6)
    g = schedule.gauntlet("battleline", {}, FIVE[4], FIVE[:4], 6, seed=0, players=3, key=KEY)
    assert len(g) == 6 * 6  # the challenger with each of the 4 choose 2 pairs of opponents
    assert set(ids(g)) < rr(FIVE, 6)
    assert all("eve" in [s.name for s in spec.seats] for spec in g)
    with pytest.raises(schedule.ScheduleError, match="at least 3 bots"):
        schedule.gauntlet("battleline", {}, FIVE[0], FIVE[1:2], 6, seed=0, players=3)


@pytest.mark.parametrize(("games", "fix"), [(1, "use 6$"), (7, "use 6 or 12$"),
                                            (10, "use 6 or 12$")])
def test_free_for_all_games_must_be_whole_sets(games: int, fix: str) -> None:
    with pytest.raises(schedule.ScheduleError, match=f"multiple of 6.*got {games}, {fix}"):
        schedule.round_robin("battleline", {}, FIVE, games, seed=0, players=3, key=KEY)


def test_mixed_teams_split_every_four_bots_into_teams_from_both_sides() -> None:
    bots = [BotRef(n, "random") for n in ("ann", "bob", "cy", "dee", "eve")]
    specs = schedule.round_robin("warchest", {"players": "4"}, bots, 6, seed=1, players=4,
                                 mixed_teams=True)
    assert len(specs) == 5 * 6  # every four of five bots, one deal each
    by_deal: dict[str, list[GameSpec]] = {}
    for spec in specs:
        by_deal.setdefault(spec.pair_id, []).append(spec)
    for games in by_deal.values():
        assert len(games) == 6 and len({g.seed for g in games}) == 1
        teams = {(frozenset({g.seats[0].name, g.seats[2].name}),
                  frozenset({g.seats[1].name, g.seats[3].name})) for g in games}
        # three splits into two teams of two, each from both sides of the table
        assert len(teams) == 6 and len({frozenset(t) for t in teams}) == 3
        for g in games:
            assert len({b.name for b in g.seats}) == 4  # four different bots at the table
    with pytest.raises(schedule.ScheduleError, match="multiple of 6"):
        schedule.round_robin("warchest", {"players": "4"}, bots, 4, seed=1, players=4,
                             mixed_teams=True)
    with pytest.raises(schedule.ScheduleError, match="mixed teams need a game of two teams"):
        schedule.round_robin("battleline", {}, bots, 6, seed=1, mixed_teams=True)


def test_a_mixed_team_league_is_rated_by_bot(tmp_path: Path) -> None:
    from harness.league.service import League
    from harness.stats import ratings

    bots = ["random", "b=random", "c=random", "d=random"]
    league = League.prepare("warchest", bots, out=tmp_path / "mixed", games=6, seed=3,
                            variants=["players=4"], mixed_teams=True)
    league.run(workers=0, progress=False)
    again = League.resume(tmp_path / "mixed")  # the folder remembers its mixed teams
    assert [s.game_id for s in again.plan.specs] == [s.game_id for s in league.plan.specs]
    from harness.league import store
    from harness.stats.outcome import Result

    rows = store.load_games([tmp_path / "mixed"]).games.to_pylist()
    assert len(rows) == 6 and all(len(set(r["bots"])) == 4 for r in rows)
    board = ratings.leaderboard([Result.from_row(r) for r in rows])
    assert sorted(s.name for s in board.bots) == ["b", "c", "d", "random"]
    assert all(s.games == 6 for s in board.bots)
