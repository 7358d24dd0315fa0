"""Pentanomial pair statistics against hand counts and closed forms."""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist

import pytest

from harness.stats.outcome import Result
from harness.stats.pairs import MIN_PAIRS, pair_stats, summarize


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
    # one complete pair: a score and an Elo, but no interval or LOS (pairs.MIN_PAIRS)
    assert s.summary.elo == math.inf and math.isnan(s.summary.elo_low)
    figures = json.loads(json.dumps(s.as_dict(), allow_nan=False))
    assert figures["elo"] is None and figures["los"] is None and figures["elo_low"] is None


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


def test_no_spread_or_too_few_pairs_give_no_interval_and_no_los() -> None:
    """Issue 29: zero sample variance used to print LOS 100 % and a zero-width or infinite
    interval, even after one pair (summarize((0,0,0,1,0)) gave +190.8 [+190.8, +190.8])."""
    for counts in ((0, 0, 7, 0, 0), (0, 0, 0, 1, 0), (0, 0, 0, 9, 0), (0, 1, 2, 1, 0)):
        s = summarize(counts)
        assert not math.isnan(s.score) and not math.isnan(s.elo)
        assert all(math.isnan(x) for x in (s.elo_low, s.elo_high, s.nelo, s.los)), counts
    assert summarize((0, 0, 7, 0, 0)).elo == 0.0
    s = summarize((0, 1, 2, 1, 1))  # five pairs with a spread: every figure
    assert s.pairs == MIN_PAIRS == 5 and 0.5 < s.los < 1 and s.elo_low < s.elo < s.elo_high


def test_the_pair_table_says_n_a_for_figures_it_cannot_give(tmp_path: Path) -> None:
    """One duplicate pair in a league: its row has a score and an Elo, and n/a for the
    interval and the LOS (it printed LOS 100 % or +inf .. +inf before)."""
    from typer.testing import CliRunner

    from harness.cli.app import app

    runner = CliRunner()
    out = tmp_path / "lg"
    done = runner.invoke(app, ["league", "bl", "greedy", "random", "--games", "2", "--seed", "3",
                               "--out", str(out), "--workers", "0", "-q"])
    assert done.exit_code == 0, done.output
    text = runner.invoke(app, ["ratings", str(out), "--pairs"]).stdout
    line = next(line for line in text.splitlines() if line.split()[:3] == ["greedy", "random",
                                                                            "1"])
    cells = line.split()
    assert cells[-5:-3] == ["n/a", "n/a"] and cells[-2] == "n/a", line  # low, high, LOS
