"""`tourney play --trace` and `tourney validate --trace`: the wire exchange of a sandboxed bot,
line by line, per seat, with the seconds since the start; nothing traced when it is off."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.bots import protocol
from harness.bots.sandbox import bot_python
from harness.bots.spec import parse_spec
from harness.cli.app import app
from tests.doc_examples import _protocol_bot

runner = CliRunner()
LINE = re.compile(r"^ *(\d+\.\d{6}) (seat \d \(.*?\)|\S.*?) ([<>]) (.*)$")


@pytest.fixture
def standalone(tmp_path: Path) -> str:
    """The standalone bot of docs/protocol.md, as a cmd: bot."""
    path = tmp_path / "engine.py"
    path.write_text(_protocol_bot(), encoding="utf-8")
    path.chmod(0o755)
    return f"cmd:{bot_python()} {path}"


def parsed(text: str) -> list[tuple[float, str, str, dict[str, object]]]:
    rows = []
    for line in text.splitlines():
        match = LINE.match(line)
        assert match, line
        rows.append((float(match[1]), match[2], match[3], json.loads(match[4])))
    return rows


def test_play_traces_both_directions_of_a_cmd_bot_per_seat(standalone: str,
                                                           tmp_path: Path) -> None:
    trace = tmp_path / "wire.txt"
    result = runner.invoke(app, ["play", "bl", "random", standalone, "--seed", "3",
                                 "--trace", str(trace)])
    assert result.exit_code == 0, result.output
    rows = parsed(trace.read_text())
    assert {who for _, who, _, _ in rows} == {f"seat 1 ({parse_spec(standalone).label})"}
    # (the sandbox's runner reports what confines the bot before the bot's own replies)
    kinds = [(way, str(msg["type"])) for _, _, way, msg in rows if msg["type"] != "confined"]
    assert kinds[:2] == [(">", "start"), ("<", "ready")]
    assert kinds[-3:] == [(">", "end"), ("<", "ok"), (">", "quit")]
    acts = [k for k in kinds if k == (">", "act")]
    assert acts and kinds.count(("<", "action")) == len(acts)
    start = rows[0][3]
    assert isinstance(start["info"], dict) and start["info"]["seat"] == 1
    times = [t for t, *_ in rows]
    assert times == sorted(times)
    # what the bot answered is what the game record says it played
    played = [msg["action"] for _, _, way, msg in rows if way == "<" and msg["type"] == "action"]
    assert all(isinstance(a, str) for a in played)


def test_play_traces_to_stderr_with_a_dash(standalone: str) -> None:
    result = runner.invoke(app, ["play", "bl", standalone, "random", "--seed", "4",
                                 "--trace", "-"])
    assert result.exit_code == 0, result.output
    rows = parsed(result.stderr)
    assert rows[0][1].startswith("seat 0 (") and rows[0][3]["type"] == "start"
    assert "seat 0" in result.stdout  # the result is still printed as always


def test_validate_traces_the_bot_in_every_seat(standalone: str, tmp_path: Path) -> None:
    trace = tmp_path / "wire.txt"
    result = runner.invoke(app, ["validate", standalone, "--game", "bl", "--games", "1",
                                 "--seed", "5", "--trace", str(trace)])
    assert result.exit_code == 0, result.output
    seats = {who.split(" (")[0] for _, who, _, _ in parsed(trace.read_text())}
    assert {"seat 0", "seat 1"} <= seats


def test_a_trace_of_in_process_bots_warns_and_the_hook_is_off_afterwards(
        tmp_path: Path) -> None:
    trace = tmp_path / "wire.txt"
    result = runner.invoke(app, ["play", "bl", "random", "greedy", "--seed", "1",
                                 "--trace", str(trace)])
    assert result.exit_code == 0, result.output
    assert "--trace shows the wire of sandboxed bots" in result.stderr
    assert trace.read_text() == ""
    assert protocol.tracer() is None


def test_a_trace_file_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "bl", "random", "sandbox:random", "--trace",
                                 str(tmp_path / "no" / "such" / "wire.txt")])
    assert result.exit_code == 2
    assert result.stderr.startswith("tourney: error: --trace ")
    assert result.stderr.count("\n") == 1
