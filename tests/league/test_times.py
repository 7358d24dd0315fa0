"""Think-time statistics per bot, checked by hand on games with known think times."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.figures import times
from harness.league import store
from harness.league.config import LeagueConfig
from harness.records import BotRef, MoveRecord, Termination

from .helpers import record

runner = CliRunner()


def write(root: Path) -> None:
    config = LeagueConfig(
        name="t", game="battleline", variant={"rules": "standard"}, rules_version="1", seed=1,
        games_per_pair=2, bots=[BotRef("a", "random", "aa"), BotRef("b", "greedy", "bb")])
    # game 1: a (seat 0) thinks 1, 2, 3 ms; b (seat 1) 10, 20 ms
    g1 = dataclasses.replace(record("g1"), moves=[
        MoveRecord(0, 0, "x", 0.001), MoveRecord(1, 1, "x", 0.010), MoveRecord(2, 0, "x", 0.002),
        MoveRecord(3, 1, "x", 0.020), MoveRecord(4, 0, "x", 0.003)], decisions=5)
    # game 2, seats swapped: b (seat 0) 30 ms, then a (seat 1) loses on time after 4 ms
    g2 = dataclasses.replace(
        record("g2", seats=("b", "a"), termination=Termination.TIMEOUT, offender=1),
        moves=[MoveRecord(0, 0, "x", 0.030), MoveRecord(1, 1, "x", 0.004)], decisions=2)
    with store.ResultsStore.open(root, config) as st:
        st.add(g1)
        st.add(g2)
        st.flush()


def test_median_percentile_slowest_total_and_timeouts(tmp_path: Path) -> None:
    write(tmp_path / "lg")
    rows, skipped = times.bot_times([tmp_path / "lg"])
    assert skipped == []
    by_bot = {r.bot: r for r in rows}
    a, b = by_bot["a"], by_bot["b"]
    assert a.decisions == 4 and b.decisions == 3
    assert a.median == pytest.approx(0.0025) and b.median == pytest.approx(0.020)
    # numpy's linear 95th percentile: a's 1,2,3,4 ms -> 3 + 0.85 ms; b's 10,20,30 -> 29 ms
    assert a.p95 == pytest.approx(0.00385) and b.p95 == pytest.approx(0.029)
    assert [a.slowest, b.slowest] == pytest.approx([0.004, 0.030])
    assert [a.total, b.total] == pytest.approx([0.010, 0.060])
    assert (a.timeouts, b.timeouts) == (1, 0)
    assert [r.bot for r in rows] == ["b", "a"]  # slowest median first


def test_ratings_times_in_table_and_json(tmp_path: Path) -> None:
    write(tmp_path / "lg")
    result = runner.invoke(app, ["ratings", str(tmp_path / "lg"), "--times"])
    assert result.exit_code == 0, result.output
    table = result.output.split("think time per decision\n")[1].splitlines()
    assert table[1].split() == ["b", "3", "20.00", "29.00", "30.00", "0.06", "0"]
    assert table[2].split() == ["a", "4", "2.50", "3.85", "4.00", "0.01", "1"]
    result = runner.invoke(app, ["ratings", str(tmp_path / "lg"), "--times", "-f", "json"])
    data = json.loads(result.output)
    assert {"leaderboard", "times"} <= set(data)
    assert data["times"][1] == {"bot": "a", "decisions": 4, "median": pytest.approx(0.0025),
                                "p95": pytest.approx(0.00385), "slowest": pytest.approx(0.004),
                                "total": pytest.approx(0.01), "timeouts": 1}
    result = runner.invoke(app, ["ratings", str(tmp_path / "lg"), "--times", "-f", "csv"])
    assert result.exit_code == 2 and "--times prints a table or JSON" in result.output
