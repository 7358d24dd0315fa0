from __future__ import annotations

import random

import trueskill

from harness.league import verdicts
from harness.stats import ratings
from harness.stats.outcome import Result


def game(game_id: str, bots: list[str], result: list[float], termination: str,
         offender: int | None, rated: bool, teams: list[int] | None = None) -> Result:
    """A stored row of the games table, as the statistics read it."""
    return Result.from_row({"game_id": game_id, "bots": bots, "result": result,
                            "termination": termination, "offender": offender, "rated": rated,
                            "teams": teams})


def rows_strong_v_weak(n: int = 60, seed: int = 1) -> list[Result]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        seats = ["strong", "weak"] if i % 2 == 0 else ["weak", "strong"]
        strong_wins = rng.random() < 0.8
        result = [1.0, -1.0] if (seats[0] == "strong") == strong_wins else [-1.0, 1.0]
        out.append(game(f"g{i:04d}", seats, result, "normal", None, True))
    return out


def test_the_stronger_bot_leads_and_counts_add_up() -> None:
    board = ratings.leaderboard(rows_strong_v_weak())
    strong, weak = board.bots
    assert strong.name == "strong" and strong.rating > weak.rating
    assert strong.wins == weak.losses and strong.games == 60
    assert strong.wins + strong.losses + strong.draws == 60
    assert board.h2h[("strong", "weak")][1] == 60
    assert abs(board.h2h[("strong", "weak")][0] + board.h2h[("weak", "strong")][0] - 1) < 1e-9


def test_the_table_does_not_depend_on_finishing_order() -> None:
    rows = rows_strong_v_weak()
    shuffled = rows[:]
    random.Random(5).shuffle(shuffled)
    assert verdicts.trueskill_rows(ratings.leaderboard(rows)) == verdicts.trueskill_rows(
        ratings.leaderboard(shuffled))


def test_one_v_one_matches_trueskill_itself() -> None:
    rows = rows_strong_v_weak(30)
    rows.append(game("g9999", ["strong", "weak"], [0.0, 0.0], "stalemate", None, True))
    board = ratings.leaderboard(rows, draw_probability=0.1)
    env = trueskill.TrueSkill(draw_probability=0.1)
    r = {"strong": env.create_rating(), "weak": env.create_rating()}
    for row in sorted(rows, key=lambda x: x.game_id):
        (a,), (b,) = row.sides
        ranks = [0, 0] if row.scores[0] == row.scores[1] else (
            [0, 1] if row.scores[0] > row.scores[1] else [1, 0])
        (r[a],), (r[b],) = env.rate([(r[a],), (r[b],)], ranks=ranks)
    for s in board.bots:
        assert abs(s.mu - r[s.name].mu) < 1e-6 and abs(s.sigma - r[s.name].sigma) < 1e-6
    assert board.bots[0].draws == 1


def test_draw_probability_is_estimated_from_the_data() -> None:
    draws = [game(f"g{i}", ["a", "b"], [0.0, 0.0], "stalemate", None, True) for i in range(8)]
    wins = [game(f"h{i}", ["a", "b"], [1.0, -1.0], "normal", None, True) for i in range(8)]
    assert ratings.estimate_draw_probability(wins) < 0.15
    assert ratings.estimate_draw_probability(draws + wins) == 0.5
    assert ratings.leaderboard(draws + wins).bots[0].draws == 8


def test_team_games_are_rated_as_teams() -> None:
    rows = [game(f"g{i}", ["a", "b", "c", "d"], [1.0, -1.0, 1.0, -1.0], "normal", None, True,
                    teams=[0, 1, 0, 1]) for i in range(5)]
    board = ratings.leaderboard(rows)
    by = {s.name: s for s in board.bots}
    assert by["a"].wins == by["c"].wins == 5 and by["b"].losses == by["d"].losses == 5
    assert abs(by["a"].mu - by["c"].mu) < 1e-9 and by["a"].mu > by["b"].mu
    same_bot_teams = [game("g1", ["a", "b", "a", "b"], [1.0, -1.0, 1.0, -1.0], "normal",
                              None, True, teams=[0, 1, 0, 1])]
    board = ratings.leaderboard(same_bot_teams)
    assert {s.name: s.games for s in board.bots} == {"a": 1, "b": 1}


def test_the_teams_come_from_the_row_not_from_the_player_count() -> None:
    # Four players without teams: every seat for itself, seats 0 and 2 ahead of 1 and 3.
    alone = ratings.leaderboard([game("g1", ["a", "b", "c", "d"], [1.0, -1.0, 1.0, -1.0],
                                         "normal", None, True)])
    # The same seats in teams 0-1 against 2-3: a and b won together.
    paired = ratings.leaderboard([game("g1", ["a", "b", "c", "d"], [1.0, 1.0, -1.0, -1.0],
                                          "normal", None, True, teams=[0, 0, 1, 1])])
    mu = {s.name: s.mu for s in alone.bots}
    assert min(mu["a"], mu["c"]) > max(mu["b"], mu["d"])
    mu = {s.name: s.mu for s in paired.bots}
    assert abs(mu["a"] - mu["b"]) < 1e-9 and mu["b"] > mu["c"]


def test_forfeits_are_counted_per_bot_and_void_games_not_rated() -> None:
    rows = [
        game("g1", ["a", "b"], [1.0, -1.0], "timeout", 1, True),
        game("g2", ["b", "a"], [1.0, -1.0], "illegal", 1, True),
        game("g3", ["a", "b"], [-1.0, 1.0], "crash", 0, True),
        game("g4", ["a", "b"], [0.0, 0.0], "crash", None, False),
    ]
    board = ratings.leaderboard(rows)
    by = {s.name: s for s in board.bots}
    assert by["b"].forfeits["timeout"] == 1 and by["a"].forfeits["illegal"] == 1
    assert by["a"].forfeits["crash"] == 1 and by["b"].forfeit_total == 1
    assert board.void_games == 1 and board.rated_games == 3
    assert by["a"].games == 3 and by["a"].draws == 0


