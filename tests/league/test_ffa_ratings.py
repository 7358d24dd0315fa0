"""Ratings of free-for-all games (three sides): TrueSkill by rank, W/D/L, head to head, Elo."""

from __future__ import annotations

import dataclasses

import pytest
import trueskill

from harness.stats import ratings
from harness.stats.elo import fit_elo
from harness.stats.outcome import Result


def game(game_id: str, bots: list[str], result: list[float], termination: str,
         offender: int | None, rated: bool, teams: list[int] | None = None) -> Result:
    """A stored row of the games table, as the statistics read it."""
    return Result.from_row({"game_id": game_id, "bots": bots, "result": result,
                            "termination": termination, "offender": offender, "rated": rated,
                            "teams": teams})


FFA = [0, 1, 2]
ROWS = [  # results by the ranking formula (below - above) / 2
    game("g1", ["a", "b", "c"], [1.0, 0.0, -1.0], "normal", None, True, FFA),
    game("g2", ["b", "c", "a"], [0.5, 0.5, -1.0], "normal", None, True, FFA),  # b, c share 1st
    game("g3", ["c", "a", "b"], [0.0, 0.0, 0.0], "stalemate", None, True, FFA),
]



def test_trueskill_rates_a_free_for_all_by_rank_with_shared_ranks_as_ties() -> None:
    board = ratings.leaderboard(ROWS, draw_probability=0.2)
    env = trueskill.TrueSkill(draw_probability=0.2)
    r = {n: env.create_rating() for n in "abc"}
    for names, ranks in ((["a", "b", "c"], [0, 1, 2]), (["b", "c", "a"], [0, 0, 1]),
                         (["c", "a", "b"], [0, 0, 0])):
        new = env.rate([(r[n],) for n in names], ranks=ranks)
        r.update({n: rated[0] for n, rated in zip(names, new, strict=True)})
    for s in board.bots:
        assert s.mu == pytest.approx(r[s.name].mu) and s.sigma == pytest.approx(r[s.name].sigma)
    assert board.rated_games == 3


def test_a_sole_first_wins_a_shared_first_draws_and_the_rest_lose() -> None:
    board = ratings.leaderboard(ROWS)
    wdl = {s.name: (s.wins, s.draws, s.losses) for s in board.bots}
    assert wdl == {"a": (1, 1, 1), "b": (0, 2, 1), "c": (0, 2, 1)}
    # 9 comparisons of two bots, 4 of them level (b-c in g2, all three in g3): (4 + 1) / (9 + 2)
    assert board.draw_probability == pytest.approx(5 / 11)


def test_head_to_head_counts_who_finished_above_whom() -> None:
    h2h = ratings.leaderboard(ROWS).h2h
    points = {pair: (rate * games, games) for pair, (rate, games) in h2h.items()}
    assert points[("a", "b")] == (1.5, 3)  # above, below, level
    assert points[("b", "c")] == (2.0, 3)  # above, level, level
    assert points[("c", "b")] == (1.0, 3)
    assert points[("c", "a")] == (1.5, 3)
    assert len(h2h) == 6


def test_a_forfeit_counts_against_the_offender_and_the_others_share_first() -> None:
    row = game("g1", ["a", "b", "c"], [0.5, -1.0, 0.5], "timeout", 1, True, FFA)
    board = ratings.leaderboard([row])
    by = {s.name: s for s in board.bots}
    assert by["b"].forfeits["timeout"] == 1 and by["b"].losses == 1
    assert (by["a"].draws, by["c"].draws) == (1, 1)
    assert min(by["a"].mu, by["c"].mu) > by["b"].mu  # (TrueSkill's chain of ties is not
    assert by["a"].mu == pytest.approx(by["c"].mu, abs=0.2)  # exactly symmetric)


def test_the_batch_elo_reads_a_free_for_all_as_its_pairwise_comparisons() -> None:
    games = [dataclasses.replace(row, pair_id="p1", game_id="") for row in ROWS]
    assert [len(g.sides) for g in games] == [3, 3, 3]
    fit = fit_elo(games * 20)
    by = {b.name: b for b in fit.bots}
    # every bot is in two comparisons a game: a takes 2, 0 and 1 of them (3 of 6), b 1, 1.5
    # and 1 (7 of 12), c 0, 1.5 and 1 (5 of 12)
    assert by["a"].score == pytest.approx(0.5) and by["b"].score == pytest.approx(7 / 12)
    assert by["c"].score == pytest.approx(5 / 12)
    assert by["b"].elo > by["a"].elo > by["c"].elo
    assert by["a"].games == 60
