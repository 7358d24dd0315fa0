"""The batch Elo fit against closed forms and its edge cases."""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pytest

from harness.stats.elo import ELO_PER_NAT, Interval, fit_elo
from harness.stats.outcome import Result


def game(a: str, b: str, score_a: float, pair: str = "") -> Result:
    return Result(((a,), (b,)), (score_a, 1.0 - score_a), pair_id=pair)


def duel(a: str, b: str, wins: int, draws: int, losses: int) -> list[Result]:
    return ([game(a, b, 1.0) for _ in range(wins)] + [game(a, b, 0.5) for _ in range(draws)]
            + [game(a, b, 0.0) for _ in range(losses)])


def elo_of(score: float) -> float:
    return 400.0 * math.log10(score / (1.0 - score))


@pytest.mark.parametrize("interval", ["curvature", "bootstrap"])
def test_a_symmetric_pool_rates_everyone_zero_with_los_one_half(interval: Interval) -> None:
    games = []
    for i, (a, b) in enumerate([("x", "y"), ("y", "z"), ("x", "z")]):
        for k in range(5):
            games += [game(a, b, 1.0, f"{i}-{k}"), game(b, a, 1.0, f"{i}-{k}"),
                      game(a, b, 0.5, f"d{i}-{k}"), game(b, a, 0.5, f"d{i}-{k}")]
    fit = fit_elo(games, interval=interval, bootstrap_samples=200)
    assert [round(b.elo, 9) for b in fit.bots] == [0.0, 0.0, 0.0]
    for row in range(3):
        for col in range(3):
            assert fit.los[row][col] == (None if row == col else pytest.approx(0.5))


def test_two_bots_match_the_closed_form() -> None:
    # 7 wins, 2 draws, 3 losses plus one virtual draw: score 8.5 / 13
    fit = fit_elo(duel("a", "b", 7, 2, 3))
    s = 8.5 / 13
    diff = elo_of(s)
    se_diff = ELO_PER_NAT / math.sqrt(13 * s * (1 - s))
    a, b = fit.bot("a"), fit.bot("b")
    assert a.elo == pytest.approx(diff / 2, abs=1e-6)
    assert b.elo == pytest.approx(-diff / 2, abs=1e-6)
    assert a.se == pytest.approx(se_diff / 2, rel=1e-6)
    z = NormalDist().inv_cdf(0.975)
    half = z * se_diff / 2
    assert (a.low, a.high) == pytest.approx((diff / 2 - half, diff / 2 + half))
    assert fit.los_of("a", "b") == pytest.approx(NormalDist().cdf(diff / se_diff), rel=1e-6)
    anchored = fit_elo(duel("a", "b", 7, 2, 3), anchor="b")
    assert anchored.bot("a").elo == pytest.approx(diff, abs=1e-6)
    assert anchored.bot("b").elo == 0.0
    assert anchored.bot("a").se == pytest.approx(se_diff, rel=1e-6)
    assert anchored.bot("b").se == 0.0


def test_the_level_is_selectable() -> None:
    wide = fit_elo(duel("a", "b", 7, 2, 3), level=0.99).bot("a")
    narrow = fit_elo(duel("a", "b", 7, 2, 3), level=0.5).bot("a")
    assert wide.high - wide.low > narrow.high - narrow.low
    z50 = NormalDist().inv_cdf(0.75)
    assert narrow.high - narrow.elo == pytest.approx(z50 * narrow.se)


def test_a_bot_that_won_everything_gets_a_finite_flagged_estimate() -> None:
    fit = fit_elo(duel("a", "b", 10, 0, 0) + duel("b", "c", 5, 0, 5))
    a, c = fit.bot("a"), fit.bot("c")
    assert a.perfect == "won all" and fit.bot("b").perfect is None and c.perfect is None
    assert math.isfinite(a.elo) and a.elo > fit.bot("b").elo + 300
    assert a.se > 100  # wide
    loser = fit_elo(duel("a", "b", 0, 0, 4)).bot("a")
    assert loser.perfect == "lost all" and math.isfinite(loser.elo)


def test_disconnected_pools_are_reported_and_not_compared() -> None:
    games = duel("a", "b", 6, 0, 2) + duel("c", "d", 3, 0, 3) + duel("d", "e", 2, 0, 2)
    fit = fit_elo(games)
    assert fit.components == (("c", "d", "e"), ("a", "b"))
    assert fit.los_of("a", "c") is None and fit.los_of("a", "b") is not None
    assert fit.bot("a").elo + fit.bot("b").elo == pytest.approx(0.0, abs=1e-9)
    assert sum(fit.bot(n).elo for n in "cde") == pytest.approx(0.0, abs=1e-9)
    anchored = fit_elo(games, anchor="b")
    assert anchored.bot("b").elo == 0.0
    assert sum(anchored.bot(n).elo for n in "cde") == pytest.approx(0.0, abs=1e-9)
    assert anchored.bot("a").component != anchored.bot("c").component


def test_an_unknown_anchor_names_the_pool() -> None:
    with pytest.raises(ValueError, match=r"anchor 'zed' is not in the pool \(a, b\)"):
        fit_elo(duel("a", "b", 1, 0, 1), anchor="zed")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"level": 1.0}, "outside"), ({"interval": "jackknife"}, "unknown interval"),
    ({"prior_draws": 0.0}, "prior_draws"), ({"interval": "bootstrap", "bootstrap_samples": 1},
                                            "bootstrap_samples"),
])
def test_bad_options_are_named(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fit_elo(duel("a", "b", 1, 0, 1), **kwargs)  # type: ignore[arg-type]


def test_a_team_of_one_bot_twice_rates_like_that_bot() -> None:
    teams = [Result((("a", "a"), ("b", "b")), (1.0, -1.0)) for _ in range(5)]
    teams += [Result((("b", "b"), ("a", "a")), (1.0, -1.0)) for _ in range(2)]
    solo = fit_elo(duel("a", "b", 5, 0, 2))
    fit = fit_elo(teams)
    assert fit.bot("a").elo == pytest.approx(solo.bot("a").elo)
    assert fit.bot("a").se == pytest.approx(solo.bot("a").se)


def test_a_mixed_team_plays_at_the_mean_of_its_members() -> None:
    # x+y against z+z: by symmetry x = y = r, z = -2r, and every comparison (the games and the
    # virtual draws x-z, y-z, x-y) is worth 3r or 0, so 3r is the Elo of (W + 1) / (N + 2).
    games = [Result((("x", "y"), ("z", "z")), (1.0, 0.0)) for _ in range(6)]
    games += [Result((("x", "y"), ("z", "z")), (0.0, 1.0)) for _ in range(2)]
    fit = fit_elo(games)
    r = fit.bot("x").elo
    assert fit.bot("y").elo == pytest.approx(r)
    assert fit.bot("z").elo == pytest.approx(-2 * r)
    assert 3 * r == pytest.approx(elo_of(7 / 10), abs=1e-6)


def test_a_free_for_all_counts_as_its_pairwise_comparisons_at_half_weight() -> None:
    ffa = [Result((("a",), ("b",), ("c",)), (3.0, 2.0, 1.0)) for _ in range(2)]
    ffa += [Result((("a",), ("b",), ("c",)), (1.0, 3.0, 2.0)) for _ in range(2)]
    pairwise = [game("a", "b", 1.0), game("a", "c", 1.0), game("b", "c", 1.0),
                game("a", "b", 0.0), game("a", "c", 0.0), game("b", "c", 1.0)]
    one, two = fit_elo(ffa), fit_elo(pairwise)
    for name in "abc":
        assert one.bot(name).elo == pytest.approx(two.bot(name).elo)
        assert one.bot(name).se == pytest.approx(two.bot(name).se)


def test_void_and_uninformative_games_are_counted_and_left_out() -> None:
    games = duel("a", "b", 3, 0, 1)
    extra = [Result((("a",), ("b",)), (1.0, 0.0), void=True), game("a", "a", 1.0)]
    fit = fit_elo(games + extra)
    assert (fit.rated_games, fit.void_games, fit.uninformative_games) == (4, 1, 1)
    assert fit.bot("a").elo == pytest.approx(fit_elo(games).bot("a").elo)


def test_bootstrap_over_pairs_keeps_the_seat_swap_variance_reduction() -> None:
    # every pair splits 1-1: resampling pairs can never move the score, resampling games would
    games = []
    for k in range(30):
        games += [game("a", "b", 1.0, f"p{k}"), game("b", "a", 1.0, f"p{k}")]
    boot = fit_elo(games, interval="bootstrap", bootstrap_samples=100).bot("a")
    curv = fit_elo(games).bot("a")
    assert boot.high - boot.low == pytest.approx(0.0, abs=1e-6)
    assert curv.high - curv.low > 50


def test_bootstrap_is_reproducible_from_its_seed_and_brackets_the_estimate() -> None:
    games = []
    for k in range(40):
        games += [game("a", "b", 1.0 if k % 3 else 0.0, f"p{k}"), game("b", "a", 0.5, f"p{k}")]
    one = fit_elo(games, interval="bootstrap", bootstrap_samples=300, seed=4)
    two = fit_elo(games, interval="bootstrap", bootstrap_samples=300, seed=4)
    assert one == two
    a = one.bot("a")
    assert a.low < a.elo < a.high
    assert "bootstrap over duplicate pairs" in one.method


def test_thousands_of_games_per_pair() -> None:
    fit = fit_elo(duel("a", "b", 3000, 1000, 2000))
    assert fit.bot("a").elo - fit.bot("b").elo == pytest.approx(elo_of(3500.5 / 6001), abs=1e-6)


def test_as_dict_is_strict_json() -> None:
    fit = fit_elo(duel("a", "b", 2, 0, 1) + duel("c", "d", 1, 1, 1))
    text = json.dumps(fit.as_dict(), allow_nan=False)
    assert '"method": "curvature of the likelihood (Wald)"' in text


def test_results_from_seats_group_teams() -> None:
    r = Result.from_seats(["a", "b", "a", "b"], [-1, 1, -1, 1], teams=[[0, 2], [1, 3]],
                          pair_id="p")
    assert r == Result((("a", "a"), ("b", "b")), (-1.0, 1.0), pair_id="p")
    with pytest.raises(ValueError, match="two or more sides"):
        Result((("a",),), (1.0,))
