"""Fail fast and limits per bot: a league checks every bot's start-up before the first game,
reports forfeits per bot and kind, stops at the first one with --strict, and plays each bot
under its own limits (``NAME=SPEC@move-time=...``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.league.clock_cuts import NEAR, ClockCuts
from harness.league.config import LeagueMismatch
from harness.league.folder import load_config
from harness.league.forfeits import STREAK, Forfeits
from harness.league.limits import LimitChoice, LimitError, split_limits
from harness.league.service import League, RunSummary
from harness.records import Limits, MoveRecord, PackedRecord
from tests.league.helpers import record, spec

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
# sleeps 0.3 s on its first decision of a game (one sleep keeps the test short)
SLEEPER = ("import time\n\nclass Slow:\n    def start(self, info):\n        self.first = True\n"
           "    def act(self, observation, legal_actions):\n"
           "        if self.first:\n            time.sleep(0.3)\n        self.first = False\n"
           "        return legal_actions[0]\n")


def tourney(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_a_bot_that_cannot_start_stops_the_league_before_anything_is_stored(
        tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def act(observation, legal_actions)\n    return legal_actions[0]\n")
    twice = tmp_path / "twice.py"
    twice.write_text("class A:\n    def act(self, o, l):\n        return l[0]\n\n"
                     "class B(A):\n    pass\n")
    out = tmp_path / "lg"
    code, text = tourney("league", "bl", "random", broken, twice, "--games", "2", "--out",
                         out, "-q")
    assert code == 2, text
    errors = [line for line in text.splitlines() if line.startswith("tourney: error: bot")]
    assert len(errors) == 2, text
    assert "'broken'" in errors[0] and "syntax error in broken.py line 1" in errors[0]
    assert "'twice'" in errors[1]
    assert "nothing was stored" in text
    assert not out.exists() or not any(out.iterdir())
    # fixed under the same name: accepted, nothing of the broken file was kept
    broken.write_text((ROOT / "agents" / "random.py").read_text())
    twice.write_text((ROOT / "agents" / "random.py").read_text())
    code, text = tourney("league", "bl", "random", broken, twice, "--games", "2", "--out",
                         out, "-q")
    assert code == 0, text
    assert "forfeits: none" in text
    assert len(ds.dataset(out / "games").to_table()) == 6


def test_strict_stops_at_the_first_forfeit_and_keeps_finished_games(tmp_path: Path) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text("def act(observation, legal_actions):\n    raise RuntimeError('oops')\n")
    out = tmp_path / "lg"
    code, text = tourney("gauntlet", "bl", "random", "greedy", crasher, "--games", "4",
                         "--out", out, "-q", "--strict", "--workers", "0")
    assert code == 1, text
    assert "--strict: stopped at the first forfeit" in text
    assert "forfeits: 1 (crasher: 1 crash)" in text
    stored = ds.dataset(out / "games").to_table().to_pylist()
    assert 1 <= len(stored) < 8
    assert sum(r["offender_bot"] == "crasher" for r in stored) == 1
    # without --strict the league plays on and the summary counts every forfeit per kind
    code, text = tourney("gauntlet", "bl", "random", "greedy", crasher, "--games", "4",
                         "--out", out, "-q", "--workers", "0")
    assert code == 0, text
    assert "crasher: " in text and " crash" in text


def test_start_up_failures_in_a_row_are_reported() -> None:
    seen = Forfeits()
    for k in range(STREAK):
        assert seen.add(["a", "b"], "crash", 1, "could not load", f"g{k}", 0)
        assert ("b" in seen.failing) == (k == STREAK - 1)
    assert "failing before a first move: b" in seen.progress_text()
    assert any("WARNING: b" in line for line in seen.summary_lines())
    seen.add(["a", "b"], "illegal", 0, "bad move", "g9", 5)  # a forfeit mid-game: no streak
    assert seen.failing == {"b"} and seen.streak["a"] == 0
    assert seen.to_json()["per_bot"] == {"a": {"illegal": 1}, "b": {"crash": STREAK}}


def test_decisions_that_reach_the_safety_net_are_counted_per_bot_from_either_record() -> None:
    """Each move's think time against its seat's move time (the net at 90 %, 20 ms short of it
    at least, counted from NEAR of it), from a full record or a packed one alike."""
    game = record("g1", moves=0)
    game.moves = [MoveRecord(i, i % 2, f"act{i}", t)
                  for i, t in enumerate([0.85, 0.5, 0.9, 0.95, 0.01, 0.3])]
    one_second = spec("g1")  # both seats at the default 1 s: counted from 0.81 s
    assert ClockCuts().near(1.0) == pytest.approx(NEAR * 0.9)
    slow_b = dataclasses.replace(one_second, seat_limits=(Limits(), Limits(move_time=2.0)))
    for game_or_packed in (game, PackedRecord.of(game)):
        seen = ClockCuts()
        assert seen.add_record(game_or_packed, one_second) == 3
        assert (seen.decisions, seen.games) == ({"a": 2, "b": 1}, {"a": 1, "b": 1})
        assert seen.add_record(game_or_packed, slow_b) == 2  # b's own 2 s: 0.95 s is far off
        assert (seen.decisions, seen.games) == ({"a": 4, "b": 1}, {"a": 2, "b": 1})
        assert seen.move_time == {"a": 1.0, "b": 1.0}
    quick = record("g2")  # every move in 0.1 ms
    assert ClockCuts().add_record(quick, spec("g2")) == 0
    assert ClockCuts().add_record(PackedRecord.of(record("g3", moves=0)), spec("g3")) == 0
    tiny = ClockCuts()  # a 50 ms move time: the net is the 20 ms floor short of it, 30 ms
    assert tiny.add(["a", "b"], [0.05, 0.05], [0, 1, 0], [0.028, 0.026, 0.03]) == 2
    assert tiny.to_json() == {"a": {"decisions": 2, "games": 1, "move_time": 0.05}}


def test_the_league_summary_sums_up_the_safety_net_once_per_bot(tmp_path: Path) -> None:
    league = League.prepare("bl", ["random", "mcts"], out=tmp_path / "lg", games=2)
    summary = RunSummary(scheduled=2, already=0, played=2, stored=2, seconds=1.5)
    assert not [line for line in league.summary_lines(summary) if line.startswith("clock")]
    summary.clock_cuts.add(["mcts", "random"], [1.0, 1.0], [0, 1, 0, 1], [0.89, 0.1, 0.88, 0.1])
    summary.clock_cuts.add(["random", "mcts"], [1.0, 1.0], [1, 0, 1], [0.9, 0.01, 0.2])
    lines = league.summary_lines(summary)
    assert lines[0].startswith("lg: played 2 games in 1.5 s")  # the league's real duration
    assert [line for line in lines if line.startswith("clock")] == [
        "clock: mcts reached the clock's safety net (0.9 s of its 1 s move time) in 3 decisions "
        "of 2 games: a fixed-budget search such as mcts stops short of its budget, so the "
        "games it was in are not the ones their seeds give; use fewer workers (-j) or a longer "
        "--move-time"]
    assert league.summary_json(summary)["clock_cuts"] == {
        "mcts": {"decisions": 3, "games": 2, "move_time": 1.0}}


def test_a_league_counts_an_in_process_bot_that_thinks_past_its_safety_net(
        tmp_path: Path) -> None:
    """The slow bot, trusted in-process (never stopped at its move time), thinks 0.3 s of its
    0.2 s on its first decision of each game: past the net whatever the machine's speed."""
    (tmp_path / "slow.py").write_text(SLEEPER)
    out = tmp_path / "lg"
    code, text = tourney("gauntlet", "bl", f"inproc:{tmp_path / 'slow.py'}", "random",
                         "--games", "2", "--move-time", "0.2", "--out", out, "-q",
                         "--workers", "0")
    assert code == 0, text
    assert "forfeits: none" in text
    line = next(line for line in text.splitlines() if line.startswith("clock: slow "))
    assert "(0.18 s of its 0.2 s move time)" in line and " of 2 games:" in line
    assert "use fewer workers (-j) or a longer --move-time" in line


def test_limit_syntax() -> None:
    assert split_limits("x=bot.py@move-time=0.2,overage=0,startup-time=5,memory-mb=256,"
                        "cpu-seconds=9") == ("x=bot.py", {
                            "move_time": 0.2, "overage": 0.0, "startup_time": 5.0,
                            "memory_bytes": 256 << 20, "cpu_seconds": 9})
    assert split_limits("bot.py") == ("bot.py", {})
    for bad, words in [("b.py@speed=2", "unknown limit 'speed'"),
                       ("b.py@move-time=fast", "not a number"),
                       ("b.py@move-time=0", "at least 0.001 seconds"),
                       ("b.py@memory-mb=1", "at least 16")]:
        with pytest.raises(LimitError, match=words):
            split_limits(bad)


def test_a_bot_loses_on_time_under_its_own_move_time_only(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(SLEEPER)
    slow = tmp_path / "slow.py"
    fast_out, own_out = tmp_path / "default", tmp_path / "own"
    for out, arg in [(fast_out, f"slow={slow}"), (own_out, f"slow={slow}@move-time=0.2")]:
        code, text = tourney("gauntlet", "bl", arg, "random", "--games", "2", "--overage", "0",
                             "--out", out, "-q", "--workers", "0")
        assert code == 0, text
    default_rows = ds.dataset(fast_out / "games").to_table().to_pylist()
    assert all(r["termination"] != "timeout" for r in default_rows)
    own_rows = ds.dataset(own_out / "games").to_table().to_pylist()
    assert [(r["termination"], r["offender_bot"]) for r in own_rows] == [("timeout", "slow")] * 2
    config = load_config(own_out)
    assert config.bot_limits == {"slow": {"move_time": 0.2}}
    assert config.limits_for("slow").move_time == 0.2
    assert config.limits_for("random").move_time == 1.0
    # resuming checks the limits: the same bot without its own limits is refused
    with pytest.raises(LeagueMismatch, match=r"its own limits move-time=0\.2, not none"):
        League.prepare("bl", [f"slow={slow}", "random"], out=own_out, games=4,
                       kind="gauntlet", limits=LimitChoice({"overage": 0})).run(
            workers=0, progress=False)
    resumed = League.resume(own_out)
    assert resumed.config.bot_limits == {"slow": {"move_time": 0.2}}
    assert {s.limits_of(s.seats.index(next(r for r in s.seats if r.name == "slow"))).move_time
            for s in resumed.specs} == {0.2}


def test_league_wide_limits_are_stored_and_checked(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    code, text = tourney("league", "bl", "random", "greedy", "--games", "2", "--memory-mb",
                         "512", "--cpu-seconds", "30", "--startup-time", "4", "--out", out, "-q")
    assert code == 0, text
    stored = json.loads((out / "league.json").read_text())["limits"]
    assert (stored["memory_bytes"], stored["cpu_seconds"], stored["startup_time"]) == (
        512 << 20, 30, 4.0)
    code, text = tourney("league", "bl", "random", "greedy", "--memory-mb", "256", "--out",
                         out, "-q")
    assert code == 2 and "--memory-mb 512, not --memory-mb 256" in text, text
    code, text = tourney("league", "bl", "random", "greedy", "--memory-mb", "2", "--out", out)
    assert code == 2 and "--memory-mb" in text and "at least 16" in text, text
