"""`tourney play` and `tourney validate` through typer's CliRunner, on the toy game."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.match.validation import outcome_in_words
from tests.isolation_states import everything_in_force

runner = CliRunner()


def write(tmp: Path, name: str, source: str) -> str:
    path = tmp / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def test_play_prints_the_result_and_why(toy: str) -> None:
    result = runner.invoke(app, ["play", "toy", "random", "greedy", "--seed", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "toyduel (rules 1) seed 3; seat 0: random, seat 1: greedy"
    assert " wins (normal): seat " in lines[-1] or lines[-1].startswith("draw (stalemate)")


def test_play_show_draws_every_move_and_json_is_the_record(toy: str) -> None:
    shown = runner.invoke(app, ["play", "toy", "random", "random", "--seed", "2", "--show"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("start:\ntoyduel seed 2 decisions 0")
    assert shown.output.count("\nply ") >= 4 and "toyduel seed 2 decisions 1" in shown.output
    as_json = runner.invoke(app, ["play", "toy", "random", "random", "--seed", "2", "--json"])
    record = json.loads(as_json.output)
    assert record["seed"] == 2 and record["seats"] == ["random", "random#1"]
    assert len(record["moves"]) == record["decisions"] and record["termination"] in (
        "normal", "stalemate")


def test_play_variant_alias_and_sandboxed_builtins(toy: str) -> None:
    result = runner.invoke(app, ["play", "toy", "random", "random", "greedy", "--variant",
                                 "players=3", "--variant", "hand=1", "--seed", "4", "--json",
                                 "--sandbox-builtins"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["variant"] == {"players": "3", "hand": "1"} and len(record["returns"]) == 3


def test_play_reports_a_forfeit_with_its_reason(toy: str, tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.py", "def act(o, legal):\n    return 'play 0'\n")
    result = runner.invoke(app, ["play", "toy", bad, "random", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "seat 0 (bad) forfeits: illegal; seat 0 (bad) played 'play 0'" in result.output


def test_play_errors_are_one_line_with_the_fix(toy: str, tmp_path: Path) -> None:
    cases = [
        (["play", "chess", "random", "random"], "unknown game 'chess'; known games:"),
        (["play", "toy", "random"], "needs 2 bots, got 1; give one bot per seat"),
        (["play", "toy", "nothere.py", "random"], "bot file 'nothere.py' not found; check the"),
        (["play", "toy", "random", "mybot"], "'mybot' is not a bot spec; give a .py bot file"),
        (["play", "toy", "random", "random", "--variant", "hand"], "--variant expects key=value"),
        (["play", "toy", "random", "random", "--variant", "hand=9"], "choose one of: 1, 2, 3"),
        (["validate", "nothere.py", "--game", "toy"], "bot file 'nothere.py' not found"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("tourney: error: ") and message in result.output, args
        assert result.output.count("\n") == 1


def test_validate_passes_a_good_bot(toy: str, tmp_path: Path) -> None:
    good = write(tmp_path, "good.py", """
        class Good:
            def act(self, observation, legal_actions):
                return legal_actions[0]
    """)
    result = runner.invoke(app, ["validate", good, "--game", "toy", "--games", "1"])
    assert result.exit_code == 0, result.output
    assert "ok   start-up in" in result.output
    assert "seat 0 game 1" in result.output and "seat 1 game 1" in result.output
    assert result.output.rstrip().endswith(f"PASS: {good} is ready for toy")


def test_validate_fails_a_slow_or_broken_bot_with_reasons(toy: str, tmp_path: Path) -> None:
    slow = write(tmp_path, "slow.py", """
        import time
        def act(observation, legal_actions):
            if observation["seat"] == 1:
                time.sleep(5)
            return legal_actions[0]
    """)
    result = runner.invoke(app, ["validate", slow, "--game", "toy", "--games", "1",
                                 "--move-time", "0.5", "--overage", "1"])
    assert result.exit_code == 1, result.output
    assert "ok   seat 0 game 1" in result.output
    assert "FAIL seat 1 game 1" in result.output and "timeout" in result.output
    broken = write(tmp_path, "broken.py", "def act(observation, legal_actions:\n    pass\n")
    result = runner.invoke(app, ["validate", broken, "--game", "toy"])
    assert result.exit_code == 1
    assert "FAIL start-up: gave up: could not load bot: syntax error in broken.py line 1" in (
        result.output)
    two = write(tmp_path, "two.py", "class A:\n    def act(self, o, l): return l[0]\n"
                "class B:\n    def act(self, o, l): return l[0]\n")
    result = runner.invoke(app, ["validate", two, "--game", "toy"])
    assert result.exit_code == 1 and "choose one with two.py:A" in result.output


def test_validate_names_the_bot_and_stops_after_repeated_timeouts(toy: str,
                                                                  tmp_path: Path) -> None:
    """Issue 47: the check called the bot "(bot)" and played every game of a bot that timed out
    in each; it now names it, stops after two games lost on time with its slowest answer, and
    says which option raises the limit."""
    slow = write(tmp_path, "dawdler.py", """
        import time

        class Dawdler:
            def __init__(self):
                self.calls = 0

            def act(self, observation, legal_actions):
                self.calls += 1
                time.sleep(0.3 if self.calls == 1 else 30)
                return legal_actions[0]
    """)
    result = runner.invoke(app, ["validate", slow, "--game", "toy", "--games", "3",
                                 "--move-time", "0.2", "--overage", "0.5"])
    assert result.exit_code == 1, result.output
    assert "(bot)" not in result.output
    assert "seat 0 (dawdler) timed out" in result.output
    assert "FAIL seat 0 game 2" in result.output and "seat 0 game 3" not in result.output
    assert "seat 1 game" not in result.output  # the four games left are not played
    stop = next(line for line in result.output.splitlines() if "stopped after" in line)
    assert stop.startswith("FAIL stopped after 2 games lost on time, 4 not played: ")
    assert stop.endswith("against a move time of 0.2 s (and 0.5 s of overage a game)")
    last = result.output.rstrip().splitlines()[-1]
    assert "raise the limit" in last and "--move-time" in last, result.output
    if "its slowest answer took" in stop:  # a first answer in time (0.3 s), as on an idle machine
        took = float(stop.split("its slowest answer took ")[1].split(" s")[0])
        raised = float(last.split("--move-time ")[1].split()[0])
        assert took >= 0.3 and took * 1.25 <= raised < took * 1.25 + 0.11, result.output
    as_json = runner.invoke(app, ["validate", slow, "--game", "toy", "--games", "3",
                                  "--move-time", "0.2", "--overage", "0.5", "--json"])
    report = json.loads(as_json.output)
    assert report["stopped_early"] is True and "--move-time" in report["hint"]


def test_the_template_is_a_working_bot(toy: str) -> None:
    template = str(Path(__file__).resolve().parents[2] / "agents" / "template.py")
    result = runner.invoke(app, ["validate", template, "--game", "toy", "--games", "1"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("returns", "seat", "words"), [
    ([1.0, -1.0], 0, "won"),
    ([1.0, -1.0], 1, "lost"),
    ([0.0, 0.0], 0, "draw"),
    ([1.0, 1.0, -1.0, -1.0], 2, "lost"),  # War Chest for four: a team's result
    ([0.5, 0.5, -1.0], 0, "placed between first and last (score +0.5)"),  # no winner, 3 seats
    ([1.0, 0.0, -1.0], 1, "placed between first and last (score +0)"),
    ([0.0, 0.0, 0.0], 2, "draw"),
])
def test_validate_words_every_result_including_a_middle_place(
        returns: list[float], seat: int, words: str) -> None:
    """Three-player Battle Line scores a middle place between 1 and -1: validate names it
    instead of printing a question mark (as it once did) or calling it a draw."""
    assert outcome_in_words(returns, seat) == words


def test_validate_says_what_is_not_in_force_and_how_to_get_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where per-bot limits are missing (a normal user without a cgroup), validate says the
    limits hold per process only, and names each missing protection with how to get it; it
    no longer prints "per bot: 1024 MB, 64 processes" for limits that do not hold."""
    from harness.bots import sandbox

    real = sandbox.report()
    weak = {**real, "cgroups": False, "mechanism": "rlimits", "freeze": "process group only",
            "seccomp": False}
    monkeypatch.setattr(sandbox, "report", lambda: weak)
    out = CliRunner().invoke(app, ["validate", "random", "--game", "bl", "--games", "1"]).output
    assert "per process only, not per bot: 1024 MB of address space" in out
    assert "; per bot: 1024 MB" not in out
    assert ("NOT in force: per-bot memory, process and CPU limits (cgroup v2 or v1) (run tourney "
            "as root") in out
    assert "NOT in force: a system-call filter (seccomp, built with libseccomp) (install " in out
    monkeypatch.setattr(sandbox, "report", everything_in_force)
    out = CliRunner().invoke(app, ["validate", "random", "--game", "bl", "--games", "1"]).output
    assert "NOT in force" not in out and "per bot: 1024 MB, 64 processes, 600 s CPU" in out
