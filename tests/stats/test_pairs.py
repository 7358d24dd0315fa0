"""Pentanomial pair statistics against hand counts and closed forms."""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pytest

from harness.league.elo import Result
from harness.league.pairs import pair_stats, summarize


def g(first: str, second: str, score_first: float, pair: str = "", void: bool = False) -> Result:
    return Result(((first,), (second,)), (score_first, 1.0 - score_first), pair, void)


def test_pentanomial_and_trinomial_counts_by_hand() -> None:
    games = [
        g("a", "b", 1.0, "p1"), g("b", "a", 0.0, "p1"),  # WW: 2 points
        g("a", "b", 0.5, "p2"), g("b", "a", 1.0, "p2"),  # DL: ½
        g("a", "b", 1.0, "p3"), g("b", "a", 1.0, "p3"),  # WL: 1
        g("a", "b", 0.5, "p4"), g("b", "a", 0.5, "p4"),  # DD: 1
        g("a", "b", 1.0, "p5"), g("b", "a", 0.5, "p5"),  # WD: 1½
        g("a", "c", 1.0, "p6"), g("c", "a", 0.0, "p6"),  # another pairing: ignored
    ]
    s = pair_stats(games, "a", "b")
    assert s.pentanomial == (0, 1, 2, 1, 1)
    assert (s.wins, s.draws, s.losses) == (4, 4, 2)
    assert s.draw_ratio == 0.4
    assert s.summary.score == pytest.approx(6 / 10)
    # per-pair scores 1/4, 1/2, 1/2, 3/4, 1: mean 0.6, variance 0.065
    se = math.sqrt(0.065 / 5)

    def elo(x: float) -> float:
        return 400 * math.log10(x / (1 - x))

    z = NormalDist().inv_cdf(0.975)
    assert s.summary.elo == pytest.approx(elo(0.6))
    assert s.summary.elo_low == pytest.approx(elo(0.6 - z * se))
    assert s.summary.elo_high == pytest.approx(elo(0.6 + z * se))
    assert s.summary.los == pytest.approx(NormalDist().cdf(0.1 / se))
    assert s.summary.nelo == pytest.approx(0.1 / math.sqrt(2 * 0.065) * 800 / math.log(10))
    mirror = pair_stats(games, "b", "a")
    assert mirror.pentanomial == (1, 1, 2, 1, 0)
    assert mirror.summary.elo == pytest.approx(-s.summary.elo)


def test_pairs_with_a_void_or_missing_game_are_left_out_and_counted() -> None:
    games = [g("a", "b", 1.0, "p1"), g("b", "a", 0.0, "p1"),
             g("a", "b", 1.0, "p2"), g("b", "a", 0.0, "p2", void=True),
             g("a", "b", 0.0, "p3"),
             g("a", "b", 1.0)]
    s = pair_stats(games, "a", "b")
    assert s.pentanomial == (0, 0, 0, 0, 1)
    assert (s.incomplete_pairs, s.unpaired_games, s.void_games) == (2, 1, 1)
    assert (s.wins, s.draws, s.losses) == (4, 0, 1)
    assert s.summary.elo == math.inf and s.summary.elo_low == math.inf
    assert json.loads(json.dumps(s.as_dict(), allow_nan=False))["elo"] is None


def test_team_games_of_the_pairing_count() -> None:
    games = [Result((("a", "a"), ("b", "b")), (1.0, -1.0), "p"),
             Result((("b", "b"), ("a", "a")), (1.0, -1.0), "p"),
             Result((("a", "c"), ("b", "b")), (1.0, -1.0), "q")]
    assert pair_stats(games, "a", "b").pentanomial == (0, 0, 1, 0, 0)


def test_no_pairs_gives_nan_figures_and_a_bad_pairing_is_named() -> None:
    s = summarize((0, 0, 0, 0, 0))
    assert s.pairs == 0 and math.isnan(s.elo) and s.as_dict()["elo"] is None
    with pytest.raises(ValueError, match="two different bots"):
        pair_stats([], "a", "a")
    with pytest.raises(ValueError, match="outside"):
        pair_stats([], "a", "b", level=95)


def test_all_draws_has_zero_variance() -> None:
    s = summarize((0, 0, 7, 0, 0))
    assert (s.score, s.elo, s.elo_low, s.elo_high, s.los) == (0.5, 0.0, 0.0, 0.0, 0.5)
