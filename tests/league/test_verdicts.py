"""`tourney ratings`: the Elo fit beside TrueSkill, LOS and pair statistics, in every format."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.figures import verdicts


def row(gid: str, bots: list[str], result: list[float], pair: str, *,
        teams: list[int] | None = None, rated: bool = True) -> dict[str, Any]:
    return {"game_id": gid, "bots": bots, "result": result, "termination": "normal",
            "offender": None, "rated": rated, "teams": teams, "pair_id": pair}


def duel(pairs: list[tuple[float, float]], a: str = "a", b: str = "b",
         four: bool = False) -> list[dict[str, Any]]:
    """Duplicate pairs of a v b: a's result in the game where a sits first, then swapped."""
    rows = []
    for k, (first, second) in enumerate(pairs):
        for i, (bots, result) in enumerate((([a, b], [first, -first]),
                                             ([b, a], [-second, second]))):
            teams = None
            if four:
                bots, result, teams = bots * 2, result * 2, [0, 1, 0, 1]
            rows.append(row(f"g{a}{b}{k}{i}", bots, result, f"p{a}{b}{k}", teams=teams))
    return rows


def test_a_four_player_team_game_rates_like_its_two_player_duel() -> None:
    pairs = [(1.0, 1.0), (1.0, -1.0), (1.0, 0.0), (-1.0, 1.0), (1.0, 1.0)]
    two, four = verdicts.rate(duel(pairs)), verdicts.rate(duel(pairs, four=True))
    assert [(b.name, round(b.elo, 6)) for b in two.fit.bots] == \
        [(b.name, round(b.elo, 6)) for b in four.fit.bots]
    assert two.pairs[0].pentanomial == four.pairs[0].pentanomial == (0, 0, 2, 1, 2)
    assert (four.pairs[0].wins, four.pairs[0].draws, four.pairs[0].losses) == (7, 1, 2)


def test_perfect_records_and_pools_that_never_met_are_said() -> None:
    rows = duel([(1.0, 1.0)] * 4) + duel([(1.0, -1.0), (-1.0, 1.0)], "c", "d")
    rated = verdicts.rate(rows)
    text = verdicts.render(rated)
    assert "a won all 8 of its games" in text and "b lost all 8 of its games" in text
    assert "cannot be compared: {a, b}; {c, d}" in text
    data = json.loads(verdicts.render(rated, "json"))
    assert "c" not in data["los"]["a"] and data["los"]["a"]["b"] > 0.95
    assert data["elo"]["components"] == [["a", "b"], ["c", "d"]]


def test_the_anchor_sits_at_zero_and_an_unknown_anchor_is_refused() -> None:
    rows = duel([(1.0, 1.0), (1.0, -1.0), (0.0, 1.0)])
    rated = verdicts.rate(rows, anchor="b")
    assert rated.fit.bot("b").elo == 0.0 and rated.fit.bot("a").elo > 0
    with pytest.raises(verdicts.RatingsInputError, match="anchor 'zed' is not in the pool"):
        verdicts.rate(rows, anchor="zed")


def test_every_figure_is_in_json_and_csv_holds_one_table() -> None:
    rows = duel([(1.0, 1.0), (1.0, -1.0), (0.0, 1.0), (-1.0, -1.0)])
    rows.append(row("gvoid", ["a", "b"], [0.0, 0.0], "pvoid", rated=False))
    rated = verdicts.rate(rows, level=0.9)
    data = json.loads(verdicts.render(rated, "json"))
    top = data["leaderboard"][0]
    assert top["rank"] == 1 and {"elo", "elo_low", "elo_high", "elo_se", "mu", "sigma",
                                 "perfect", "pool", "wins", "forfeits"} <= set(top)
    assert data["elo"]["level"] == 0.9 and data["elo"]["method"].startswith("curvature")
    pair = data["pairs"][0]
    assert pair["pentanomial"] == [1, 0, 1, 1, 1] and pair["incomplete_pairs"] == 1
    assert pair["draw_ratio"] == 0.125 and {"elo_low", "elo_high", "los", "score"} <= set(pair)
    assert set(data["los"]) == {"a", "b"}
    lines = list(csv.DictReader(io.StringIO(verdicts.render(rated, "csv", pairs=True))))
    assert lines[0]["pairs_2"] == "1" and lines[0]["incomplete_pairs"] == "1"
    lines = list(csv.DictReader(io.StringIO(verdicts.render(rated, "csv", los=True))))
    assert {(r["bot"], r["opponent"]) for r in lines} == {("a", "b"), ("b", "a")}
    with pytest.raises(verdicts.RatingsInputError, match="CSV holds one table"):
        verdicts.render(rated, "csv", h2h=True, pairs=True)
    markdown = verdicts.render(rated, "markdown", los=True, pairs=True)
    assert markdown.startswith("| rank | bot | Elo | low | high | mu |")
    assert "Likelihood of superiority" in markdown and "Duplicate pairs" in markdown


def tourney(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_ratings_command_shows_elo_beside_trueskill(tmp_path: Path) -> None:
    out = tmp_path / "l"
    code, text = tourney("league", "bl", "random", "greedy", "r2=random", "--games", "4",
                         "--out", out, "--workers", "0", "-q")
    assert code == 0, text
    code, text = tourney("ratings", out, "--interval", "bootstrap", "--anchor", "random",
                         "--level", "0.8", "--pairs", "--los")
    assert code == 0, text
    lines = text.splitlines()
    assert lines[0].split()[:6] == ["rank", "bot", "Elo", "low", "high", "mu"]
    assert lines[2].split()[1] == "greedy"
    assert "random = 0; 80% interval from the bootstrap over duplicate pairs" in text
    assert "TrueSkill (mu, sigma, mu-3σ): a live estimate" in text
    code, text = tourney("ratings", "--help")
    assert "live estimate" in " ".join(text.split())
    for args, message in ((["--anchor", "nobody"], "anchor 'nobody' is not in the pool"),
                          (["--interval", "jackknife"], "unknown --interval 'jackknife'"),
                          (["--level", "1.5"], "--level must be between 0 and 1")):
        code, text = tourney("ratings", out, *args)
        assert code == 2 and message in text and len(text.strip().splitlines()) == 1, text
