"""Results folders written by an older tourney still resume, rate and replay.

The fixtures under tests/fixtures/main-c611855/ were written by main at c611855, before the
harness moved into rooms and before the games table had its ``teams`` column (see the README
there). They are copied before use: a test never writes into them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from games import registry
from harness.bots.spec import parse_spec
from harness.cli.app import app
from harness.figures.verdicts import ratings_text
from harness.league import store
from harness.league.config import LeagueMismatch
from harness.league.service import League

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "main-c611855"


def old_folder(name: str, tmp_path: Path) -> Path:
    """A copy of a fixture league. Should a built-in bot's code have changed since, the copy's
    league.json says so (a changed bot is refused by design; the fixture is about the folder's
    format, not about the bots' code). Its rules version stays as written: War Chest has moved
    from wc-2 to wc-3 since, and such a folder must stay readable but never take new games."""
    out = tmp_path / name
    shutil.copytree(FIXTURES / name, out)
    path = out / "league.json"
    config = json.loads(path.read_text())
    for bot in config["bots"]:
        bot["sha256"] = parse_spec(bot["spec"]).sha256()
    path.write_text(json.dumps(config))
    return out


def test_the_fixtures_are_as_main_wrote_them() -> None:
    for name in ("battleline", "warchest4"):
        config = json.loads((FIXTURES / name / "league.json").read_text())
        assert config["format"] == 1 and config["tourney_version"] == "0.1.0"
        games = store.read_batch(next((FIXTURES / name / "games").glob("*.parquet")))
        assert "teams" not in games.column_names  # written before the column existed


@pytest.mark.parametrize(("name", "games"), [("battleline", 4), ("warchest4", 2)])
def test_an_old_folder_rates_with_the_teams_its_game_declares(name: str, games: int,
                                                              tmp_path: Path) -> None:
    out = old_folder(name, tmp_path)
    loaded = store.load_games([out]).games
    info = registry.get(json.loads((out / "league.json").read_text())["game"]).info
    assert loaded.num_rows == games
    for row in loaded.to_pylist():
        assert row["teams"] == list(info.teams_of(row["players"]))
    text, skipped = ratings_text([out], fmt="json")
    assert skipped == []
    rated = json.loads(text)
    # Four seats, two bots: only teams (0 and 2 against 1 and 3) make these games ratable.
    assert rated["rated_games"] == games and rated["void_games"] == 0
    board = {bot["bot"]: bot for bot in rated["leaderboard"]}
    assert board["greedy"]["wins"] == games and board["random"]["losses"] == games


def test_a_folder_of_older_rules_rates_but_never_takes_new_games(tmp_path: Path) -> None:
    out = old_folder("warchest4", tmp_path)
    assert json.loads((out / "league.json").read_text())["rules_version"] == "wc-2"
    text, _ = ratings_text([out], fmt="json")
    assert json.loads(text)["rated_games"] == 2
    league = League.prepare(None, [], out=out, games=4)
    with pytest.raises(LeagueMismatch, match="rules wc-2, but the engine is now at rules wc-3"):
        league.run(workers=0, progress=False)
    assert store.load_games([out]).games.num_rows == 2


@pytest.mark.parametrize(("name", "more"), [("battleline", 2)])
def test_an_old_folder_resumes_and_grows(name: str, more: int, tmp_path: Path) -> None:
    out = old_folder(name, tmp_path)
    before = store.load_games([out]).games.num_rows
    assert League.resume(out).run(workers=0, progress=False).played == 0
    per_pair = json.loads((out / "league.json").read_text())["games_per_pair"]
    league = League.prepare(None, [], out=out, games=per_pair + more)
    summary = league.run(workers=0, progress=False)
    assert summary.already == before and summary.stored == more
    table = store.load_games([out]).games
    assert table.num_rows == before + more
    assert len(set(table.column("game_id").to_pylist())) == before + more
    text, _ = ratings_text([league.out], fmt="json")
    rated = json.loads(text)
    assert rated["rated_games"] == before + more
    assert all(b["games"] == before + more for b in rated["leaderboard"])
    first = table.column("game_id")[0].as_py()
    lines = list(league.replay(first, boards=False))
    assert lines[-1].startswith("result: won by")


def test_the_command_line_resumes_an_old_folder(tmp_path: Path) -> None:
    out = old_folder("battleline", tmp_path)
    runner = CliRunner()
    result = runner.invoke(app, ["league", "--resume", "--out", str(out), "-q", "--workers", "0"])
    assert result.exit_code == 0, result.output
    assert "played 0 games" in result.output and "4 of 4 scheduled" in result.output
    result = runner.invoke(app, ["ratings", str(out)])
    assert result.exit_code == 0 and "greedy" in result.output.splitlines()[2]
