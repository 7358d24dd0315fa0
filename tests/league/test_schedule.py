from __future__ import annotations

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
    with pytest.raises(schedule.ScheduleError, match="3-player"):
        schedule.round_robin("x", {}, BOTS[:2], 2, seed=1, players=3)
