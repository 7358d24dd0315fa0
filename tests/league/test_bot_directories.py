"""A bot directory in a local league: named ``NAME=DIR/``, stored by its content hash, and a
changed data file refuses the resume like changed code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from harness.bots.spec import directory_sha256
from harness.cli.app import app

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "dirbot"


def tourney(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_a_bot_directory_plays_a_league_and_its_content_hash_guards_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(FIXTURE, tmp_path / "mybot")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    code, text = tourney("league", "bl", "mine=mybot/", "random", "--games", "2", "--seed", "3",
                         "--out", out, "--workers", "2", "-q")
    assert code == 0 and "played 2 games" in text, text
    config = json.loads((out / "league.json").read_text())
    mine = next(bot for bot in config["bots"] if bot["name"] == "mine")
    assert mine["spec"] == f"{tmp_path / 'mybot'}/:TableBot"
    assert mine["sha256"] == directory_sha256(tmp_path / "mybot")
    games = ds.dataset(out / "games").to_table().to_pylist()
    assert len(games) == 2 and all(g["termination"] != "crash" for g in games), games
    logs = "".join(p.read_text() for p in (out / "logs").iterdir())
    assert "table fixture-table loaded: pick first" in logs

    table = tmp_path / "mybot" / "data" / "table.json"
    original = table.read_text()
    table.write_text(original.replace("first", "last"))  # only a data file changes
    code, text = tourney("league", "--resume", "--out", out, "--games", "4", "--workers", "2",
                         "-q")
    assert code == 2 and "bot 'mine' changed" in text, text

    table.write_text(original)  # the same content again: the same bot, the league goes on
    code, text = tourney("league", "--resume", "--out", out, "--games", "4", "--workers", "2",
                         "-q")
    assert code == 0 and "played 2 games" in text, text
