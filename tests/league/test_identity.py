"""Rating several folders: one name with two versions of code is two bots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.league.folder import load_config

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def tourney(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_two_versions_of_one_name_in_two_folders_are_rated_apart(tmp_path: Path) -> None:
    mine = tmp_path / "mine.py"
    source = (ROOT / "agents" / "random.py").read_text()
    folders = {}
    for version, folder in enumerate(("v1", "v2", "v2again")):
        mine.write_text(source + ("\n# version 2\n" if version else ""))
        folders[folder] = tmp_path / folder
        code, text = tourney("league", "bl", mine, "greedy", "--games", "2", "--out",
                             folders[folder], "--workers", "0", "-q")
        assert code == 0, text
    refs = [load_config(folders[f]).bot("mine") for f in ("v1", "v2")]
    h1, h2 = (ref.sha256[:7] if ref is not None else "" for ref in refs)
    assert h1 != h2
    code, text = tourney("ratings", *folders.values(), "--format", "json")
    assert code == 0, text
    data = json.loads(text)
    games = {row["bot"]: row["games"] for row in data["leaderboard"]}
    # v2 and v2again hold the same code under the same name: one bot, their games merged
    assert games == {f"mine@{h1}": 2, f"mine@{h2}": 4, "greedy": 6}
    assert data["notes"][-1] == (f"note: 'mine' names 2 different versions of a bot in these "
                             f"folders (their code differs); rated apart as mine@{h1}, "
                             f"mine@{h2}")
    code, text = tourney("ratings", *folders.values(), "--times")
    assert code == 0, text
    assert f"mine@{h1}" in text and "note: 'mine' names 2" in text
    times = text.split("think time per decision\n")[1]
    assert {line.split()[0] for line in times.splitlines()[1:]} == {
        f"mine@{h1}", f"mine@{h2}", "greedy"}
    # one folder alone, or the two folders of one version: the plain name
    code, text = tourney("ratings", folders["v2"], folders["v2again"], "--format", "json")
    assert {row["bot"] for row in json.loads(text)["leaderboard"]} == {"mine", "greedy"}
    assert not any("different versions" in n for n in json.loads(text).get("notes", []))


def test_a_changed_external_command_is_a_new_version_not_mixed_into_the_old(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cmd: bot's identity is what it runs: editing its script between two runs of a league
    is refused on resume (it used to be accepted silently, two programs under one name)."""
    from harness.bots.sandbox import bot_python
    from harness.league.config import LeagueMismatch
    from harness.league.service import make_executor, prepare_league, run_league

    monkeypatch.chdir(tmp_path)
    script = tmp_path / "first.py"
    script.write_text(STANDALONE_FIRST)
    script.chmod(0o644)
    out = tmp_path / "lg"
    spec = f"cmd:{bot_python()} first.py"
    plan = prepare_league("battleline", [spec, "random"], out=out, games=2)
    assert [b.name for b in plan.config.bots] == ["first", "random"]
    run_league(plan, make_executor(0, out, None), progress=False)
    stored = json.loads((out / "league.json").read_text())
    assert len(next(b for b in stored["bots"] if b["name"] == "first")["sha256"]) == 64
    script.write_text(STANDALONE_FIRST + "# a new version\n")
    with pytest.raises(LeagueMismatch, match="bot 'first' changed since"):
        run_league(prepare_league("battleline", [spec, "random"], out=out, games=4),
                   make_executor(0, out, None), progress=False)


STANDALONE_FIRST = '''import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "act":
        print(json.dumps({"type": "action", "action": msg["legal_actions"][0]}), flush=True)
    elif msg["type"] in ("start", "end"):
        print(json.dumps({"type": "ready" if msg["type"] == "start" else "ok"}), flush=True)
    else:
        break
'''


def test_one_league_in_two_folders_is_counted_once(tmp_path: Path) -> None:
    """Issue 29: two folders of one --seed league hold the same games under the same ids;
    rated together they counted every game twice (narrower intervals, and every pair dropped
    as incomplete). Now each game counts once and a warning says so."""
    runner = CliRunner()
    folders = [tmp_path / "A", tmp_path / "B", tmp_path / "C"]
    for folder, seed in zip(folders, (5, 5, 6), strict=True):
        done = runner.invoke(app, ["league", "battleline", "greedy", "g2=greedy:p=0.2",
                                   "--games", "10", "--seed", str(seed), "--out", str(folder),
                                   "--workers", "0", "-q"])
        assert done.exit_code == 0, done.output
    alone = runner.invoke(app, ["ratings", str(folders[0]), "--format", "json", "--pairs"])
    both = runner.invoke(app, ["ratings", str(folders[0]), str(folders[1]), "--format", "json",
                               "--pairs"])
    assert both.exit_code == 0, both.output
    assert json.loads(both.stdout) == json.loads(alone.stdout)  # the same games, the same figures
    assert (f"tourney: warning: {folders[1]} is the same league as {folders[0]} (the same key "
            "and game ids): its 10 games already there are counted once") in both.stderr
    other = runner.invoke(app, ["ratings", str(folders[0]), str(folders[2]), "--format", "json"])
    assert other.exit_code == 0 and "same league" not in other.stderr  # another seed: 20 games
    data = json.loads(other.stdout)
    assert sum(row["games"] for row in data["leaderboard"]) == 2 * 20
