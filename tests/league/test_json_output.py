"""`--json` on the league and gauntlet summaries and on validate: the documented shapes."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness.cli.app import app

runner = CliRunner()


def test_the_gauntlet_summary_as_json_counts_forfeits_per_bot_and_kind(tmp_path: Path) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text("def act(observation, legal_actions):\n    raise RuntimeError('oops')\n")
    out = tmp_path / "lg"
    result = runner.invoke(app, ["gauntlet", "bl", "greedy", "random", str(crasher), "--games",
                                 "2", "--out", str(out), "-q", "--workers", "0", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert set(summary["clock_cuts"]) <= {"greedy", "random"}  # none, unless the machine stalls
    assert summary == {
        "league": "lg", "out": str(out), "scheduled": 4, "already_stored": 0, "played": 4,
        "stored": 4, "seconds": summary["seconds"], "void": 0, "interrupted": False,
        "stopped": "", "quarantined": [],
        "forfeits": {"total": 2, "per_bot": {"crasher": {"crash": 2}},
                     "failing_before_first_move": []},
        "clock_cuts": summary["clock_cuts"],
        "resume_command": f"tourney league --resume --out {out}",
    }


def test_validate_as_json(tmp_path: Path) -> None:
    bot = tmp_path / "bad.py"
    bot.write_text("def act(observation, legal_actions):\n    return 'nonsense'\n")
    result = runner.invoke(app, ["validate", str(bot), "-g", "bl", "--games", "1", "--json"])
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["passed"] is False and report["bot"] == str(bot) and report["game"] == "bl"
    assert len(report["failures"]) == 2 and all("illegal" in f for f in report["failures"])
    assert report["lines"][0].startswith("validating bad.py")
