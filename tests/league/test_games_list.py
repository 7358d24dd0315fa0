"""`tourney games-list` filters a folder's games; an ambiguous replay prefix lists its games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.league.games_list import GamesListError, list_games

runner = CliRunner()


def tourney(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gl")
    crasher = root / "crasher.py"
    crasher.write_text("def act(observation, legal_actions):\n    raise RuntimeError('oops')\n")
    out = root / "lg"
    code, text = tourney("league", "bl", "random", "greedy", crasher, "--games", "4", "--out",
                         out, "-q", "--workers", "0", "--seed", "3")
    assert code == 0, text
    return out


def test_the_list_filters_by_bot_termination_and_winner(folder: Path) -> None:
    every = list_games(folder)
    assert len(every) == 12 and [g.game_id for g in every] == sorted(g.game_id for g in every)
    crashes = list_games(folder, termination="crash")
    assert len(crashes) == 8 and all(g.offender == "crasher" for g in crashes)
    assert {g.game_id for g in list_games(folder, bot="crasher")} == {g.game_id for g in crashes}
    random_games = list_games(folder, bot="random")
    assert len(random_games) == 8 and all("random" in g.bots for g in random_games)
    won = list_games(folder, winner="greedy", termination="normal")
    assert all(g.winner == "greedy" and "crasher" not in g.bots for g in won)
    assert list_games(folder, winner="crasher") == []
    with pytest.raises(GamesListError, match="no bot 'nobody'"):
        list_games(folder, bot="nobody")
    with pytest.raises(GamesListError, match="unknown --termination"):
        list_games(folder, termination="lost")


def test_the_command_prints_a_table_or_json(folder: Path) -> None:
    code, text = tourney("games-list", folder, "--bot", "crasher")
    assert code == 0, text
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["game", "id"] and lines[-1].startswith("8 games;")
    assert all("crash (crasher)" in line for line in lines[1:-1])
    code, text = tourney("games-list", folder, "--termination", "crash", "--format", "json")
    games = json.loads(text)["games"]
    assert len(games) == 8 and set(games[0]) == {
        "game_id", "bots", "winner", "termination", "offender", "decisions", "duration",
        "reason"}
    code, text = tourney("games-list", folder, "--format", "yaml")
    assert code == 2 and "unknown --format 'yaml'" in text


def test_an_ambiguous_replay_prefix_lists_its_games(folder: Path) -> None:
    ids = [g.game_id for g in list_games(folder)]
    code, text = tourney("replay", folder, "g")
    assert code == 2
    assert f"'g' matches {len(ids)} games: " in text and all(i in text for i in ids)
    code, text = tourney("replay", folder, ids[0], "--no-boards")
    assert code == 0 and text.startswith(f"game {ids[0]}")
