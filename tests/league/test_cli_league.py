"""End to end: real Battle Line games through the referee, the CLI and the results folder."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.league import store
from harness.league.service import prepare_league, run_league
from harness.records import GameRecord
from harness.run.base import default_play
from harness.run.local import InlineExecutor, ProcessExecutor
from tests.patience import patience

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def tourney(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def game_ids(out: Path) -> list[str]:
    ids: list[str] = ds.dataset(out / "games", format="parquet").to_table().column(
        "game_id").to_pylist()
    return ids


def test_league_reruns_and_grows_by_new_games_only(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    base: list[str | Path] = ["league", "bl", "r1=random", "greedy", "--out", out,
                              "--workers", "0", "-q"]
    code, text = tourney(*base, "--games", "4", "--seed", "3")
    assert code == 0, text
    assert "played 4 games" in text and "4 of 4 scheduled" in text
    code, text = tourney(*base, "--games", "4", "--seed", "3")
    assert code == 0 and "played 0 games" in text
    code, text = tourney(*base, "r2=random", "--games", "4", "--seed", "3")
    assert code == 0 and "played 8 games" in text, text
    code, text = tourney(*base, "r2=random", "--games", "6", "--seed", "3")
    assert code == 0 and "played 6 games" in text, text
    ids = game_ids(out)
    assert len(ids) == len(set(ids)) == 18
    config = json.loads((out / "league.json").read_text())
    assert config["game"] == "battleline" and config["rules_version"]
    assert {b["name"] for b in config["bots"]} == {"r1", "r2", "greedy"}
    assert all(len(b["sha256"]) == 64 for b in config["bots"])

    code, text = tourney("ratings", out, "--h2h")
    assert code == 0, text
    assert text.splitlines()[2].split()[1] == "greedy"  # the heuristic beats random
    assert "Head to head" in text
    code, text = tourney("ratings", out, "--format", "json")
    assert [row["games"] for row in json.loads(text)["leaderboard"]] == [12, 12, 12]

    code, text = tourney("replay", out, ids[0][:8], "--no-boards")
    assert code == 0, text
    assert text.startswith(f"game {ids[0]} (battleline") and "result:" in text


def test_same_results_whatever_the_worker_count(tmp_path: Path) -> None:
    cols = ["game_id", "seed", "bots", "result", "decisions"]
    tables = []
    for workers in ("0", "2"):
        out = tmp_path / f"w{workers}"
        code, text = tourney("league", "battleline", "r1=random", "r2=random", "--games", "6",
                             "--out", out, "--workers", workers, "-q", "--seed", "1")
        assert code == 0, text
        tables.append(ds.dataset(out / "games").to_table(columns=cols).sort_by("game_id"))
    assert tables[0].equals(tables[1])


@pytest.mark.parametrize(("args", "message"), [
    (["chess", "random", "greedy"], "unknown game 'chess'; known games"),
    (["bl", "random", "nosuchbot"], "is not a bot spec"),
    (["bl", "random", "missing.py"], "bot file 'missing.py' not found"),
    (["bl", "random"], "at least 2 bots"),
    (["bl", "random", "random"], "two bots are named 'random'"),
    (["bl", "random", "greedy", "--variant", "rules=chess"], "choose one of"),
    (["bl", "random", "greedy", "--games", "0"], "--games must be at least 1"),
    (["bl", "random", "greedy", "--workers", "-1"], "--workers must be 0"),
    (["bl", "random", "greedy", "--workers", "0", "--game-timeout", "5"], "needs worker processes"),
])
def test_bad_league_input_gives_one_clear_line(tmp_path: Path, args: list[str],
                                               message: str) -> None:
    code, text = tourney("league", *args, "--out", tmp_path / "x", "-q")
    assert code == 2
    assert text.startswith("tourney: error: ") and message in text, text
    assert text.count("\n") == 1


def test_a_folder_of_another_league_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    base: list[str | Path] = ["league", "bl", "random", "greedy", "--games", "2", "--out", out,
                              "--workers", "0"]
    assert tourney(*base, "-q")[0] == 0
    code, text = tourney(*base, "--variant", "rules=no-tactics", "-q")
    assert code == 2 and "variant rules=standard, not rules=no-tactics" in text
    code, text = tourney("league", "wc", "random", "greedy", "--out", out, "-q")
    assert code == 2 and "a battleline league, not warchest" in text
    code, text = tourney("league", "--resume", "--out", tmp_path / "none", "-q")
    assert code == 2 and "no league to resume" in text
    code, text = tourney("ratings", tmp_path)
    assert code == 2 and "no league.json" in text
    code, text = tourney("replay", out, "gnope")
    assert code == 2 and "no game 'gnope'" in text


def test_a_full_disk_is_a_clear_error_without_partial_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(table: object, fh: Any) -> None:
        fh.write(b"PAR1 half a file")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    out = tmp_path / "lg"
    monkeypatch.setattr(store, "_write_parquet", full)
    code, text = tourney("league", "bl", "random", "greedy", "--games", "2", "--out", out,
                         "--workers", "0", "-q")
    assert code == 2, text
    assert "disk is full; free some space; then resume with: tourney league --resume" in text
    assert not list((out / "games").iterdir()) and not list((out / "moves").iterdir())
    monkeypatch.undo()
    code, text = tourney("league", "--resume", "--out", out, "--workers", "0", "-q")
    assert code == 0 and "played 2 games" in text


def test_a_damaged_batch_is_quarantined_and_replayed(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    plan = prepare_league("bl", ["random", "greedy"], out=out, games=4)
    run_league(plan, InlineExecutor(), progress=False, batch_size=1)
    damaged = store.batch_files(out / "games")[2]
    damaged.write_bytes(damaged.read_bytes()[: damaged.stat().st_size // 2])
    code, text = tourney("ratings", out)
    assert code == 0 and "unreadable" in text and "\n3 rated games" in text
    summary = run_league(plan, InlineExecutor(), progress=False)
    assert summary.played == 1 and len(summary.quarantined) == 2
    assert sorted(game_ids(out)) == sorted(s.game_id for s in plan.specs)


def test_a_worker_killed_mid_league_loses_and_repeats_nothing(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    plan = prepare_league("bl", ["r1=random", "r2=random"], out=out, games=16)
    executor = ProcessExecutor(2, default_play(None))
    killed: list[int] = []

    def kill_one(record: GameRecord) -> None:
        if not killed:
            killed.append(executor.worker_pids()[0])
            os.kill(killed[0], signal.SIGKILL)

    summary = run_league(plan, executor, progress=False, on_record=kill_one)
    ids = game_ids(out)
    assert killed and summary.stored == len(ids) == len(set(ids)) == 16
    terminations = ds.dataset(out / "games").to_table().column("termination").to_pylist()
    assert set(terminations) <= {"normal", "stalemate"}  # the lost game was re-run


# 2,000 a pair: enough that a signal sent after the first batches finds games left, even with
# the compiled engines (about 2 ms a game; 600 games could all end between two looks at the
# folder, and on a loaded machine the test's own looks come late: 3,000 were once all played
# before the Ctrl-C arrived)
LEAGUE_GAMES = 6000


def _start(out: Path, *extra: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-c", "from harness.cli.app import main; main()"]
    args = ["league", "bl", "greedy", "g2=greedy", "r=random", "--games", str(LEAGUE_GAMES // 3),
            "--out", str(out),
            "--workers", "2", "--batch-size", "4", *extra]
    return subprocess.Popen([*cmd, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)


def _wait_for_batches(out: Path, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + patience(600)
    while len(store.batch_files(out / "games")) < n:
        assert proc.poll() is None, "the league ended before it could be interrupted"
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_killed_or_interrupted_leagues_resume_to_every_game_once(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    proc = _start(out)
    _wait_for_batches(out, 1, proc)
    proc.kill()  # SIGKILL of the league process itself; its workers die with it
    proc.wait(patience(60))
    stored = len(game_ids(out))
    assert 0 < stored < LEAGUE_GAMES

    proc = _start(out)
    _wait_for_batches(out, len(store.batch_files(out / "games")) + 1, proc)
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    _, err = proc.communicate(timeout=patience(300))
    assert proc.returncode == 130
    assert f"resume with:\n  tourney league --resume --out {out}" in err

    code, text = tourney("league", "--resume", "--out", out, "--workers", "2", "-q")
    assert code == 0, text
    ids = game_ids(out)
    assert len(ids) == len(set(ids)) == LEAGUE_GAMES


def test_gauntlet_resume_from_elsewhere_and_a_changed_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text((ROOT / "agents" / "random.py").read_text())
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "g"
    code, text = tourney("gauntlet", "bl", "inproc:mine.py", "random", "greedy", "--games", "2",
                         "--out", out, "--workers", "0", "-q")
    assert code == 0 and "played 4 games" in text, text
    config = json.loads((out / "league.json").read_text())
    assert config["kind"] == "gauntlet" and config["challenger"] == "mine"
    assert config["bots"][0]["spec"] == f"inproc:{bot}"
    bots = ds.dataset(out / "games").to_table().column("bots").to_pylist()
    assert all("mine" in seats for seats in bots)  # random never meets greedy

    monkeypatch.chdir(ROOT)
    code, text = tourney("league", "--resume", "--out", out, "--games", "4", "--workers", "0",
                         "-q")
    assert code == 0 and "played 4 games" in text, text

    bot.write_text(bot.read_text() + "\n# changed\n")
    code, text = tourney("league", "--resume", "--out", out, "--workers", "0", "-q")
    assert code == 2 and "bot 'mine' changed" in text


def test_ratings_of_several_folders(tmp_path: Path) -> None:
    for name, bots in (("a", ["random", "greedy"]), ("b", ["random", "r2=random"])):
        code, text = tourney("league", "bl", *bots, "--games", "2", "--out", tmp_path / name,
                             "--workers", "0", "-q")
        assert code == 0, text
    code, text = tourney("ratings", tmp_path / "a", tmp_path / "b", "--format", "csv")
    assert code == 0, text
    games = {line.split(",")[1]: int(line.split(",")[5]) for line in text.splitlines()[1:]}
    assert games == {"greedy": 2, "random": 4, "r2": 2}
    code, text = tourney("league", "wc", "random", "greedy", "--games", "2",
                         "--out", tmp_path / "w", "--workers", "0", "-q")
    assert code == 0, text
    code, text = tourney("ratings", tmp_path / "a", tmp_path / "w")
    assert code == 2 and "cannot rate different games" in text


def test_an_unwritable_results_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, text = tourney("league", "bl", "random", "greedy", "--out", blocker / "lg", "-q")
    assert code == 2 and "cannot write results to" in text and "--out" in text


BAD_BOTS = {
    "crasher.py": "def act(observation, legal_actions):\n    raise RuntimeError('oops')\n",
    "cheater.py": "def act(observation, legal_actions):\n    return 'play nonsense'\n",
    "sleeper.py": ("import time\n\ndef act(observation, legal_actions):\n"
                   "    time.sleep(60)\n    return legal_actions[0]\n"),
}


def test_forfeits_are_stored_and_counted_per_bot(tmp_path: Path) -> None:
    for name, source in BAD_BOTS.items():
        (tmp_path / name).write_text(source)
    out = tmp_path / "lg"
    code, text = tourney("gauntlet", "bl", "random", *(tmp_path / n for n in BAD_BOTS),
                         "--games", "2", "--move-time", "0.2", "--overage", "0", "--out", out,
                         "-q")
    assert code == 0, text
    rows = ds.dataset(out / "games").to_table().to_pylist()
    assert {(r["offender_bot"], r["termination"]) for r in rows} == {
        ("crasher", "crash"), ("cheater", "illegal"), ("sleeper", "timeout")}
    assert all(r["winner"] == "random" and r["rated"] for r in rows)
    code, text = tourney("ratings", out, "--format", "json")
    board = {row["bot"]: row for row in json.loads(text)["leaderboard"]}
    assert board["random"]["wins"] == 6 and board["random"]["forfeits"] == 0
    assert board["sleeper"]["forfeits_timeout"] == 2
    assert board["crasher"]["forfeits_crash"] == 2
    assert board["cheater"]["forfeits_illegal"] == 2


@pytest.mark.slow
def test_soak_many_worker_kills_still_store_every_game_once(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    plan = prepare_league("bl", ["r1=random", "r2=random", "greedy"], out=out, games=100)
    executor = ProcessExecutor(2, default_play(None))
    seen: list[str] = []

    def kill_now_and_then(record: GameRecord) -> None:
        seen.append(record.game_id)
        if len(seen) % 25 == 0 and executor.worker_pids():
            os.kill(executor.worker_pids()[-1], signal.SIGKILL)

    summary = run_league(plan, executor, progress=False, batch_size=7, on_record=kill_now_and_then)
    ids = game_ids(out)
    assert summary.stored == len(ids) == len(set(ids)) == len(plan.specs) == 300
    assert len(seen) == len(set(seen))


def test_a_four_player_league_seats_and_rates_teams(tmp_path: Path) -> None:
    out = tmp_path / "wc4"
    code, text = tourney("league", "wc", "random", "greedy", "--variant", "players=4",
                         "--games", "2", "--out", out, "--workers", "0", "-q")
    assert code == 0, text
    rows = ds.dataset(out / "games").to_table().sort_by("game_id").to_pylist()
    for row in rows:
        assert row["players"] == 4 and len(row["result"]) == len(row["think_time"]) == 4
        assert row["bots"][0] == row["bots"][2] and row["bots"][1] == row["bots"][3]
        assert row["draw"] or len(row["winner_seats"]) == 2
    code, text = tourney("ratings", out, "--format", "json")
    assert [r["games"] for r in json.loads(text)["leaderboard"]] == [2, 2]
    code, text = tourney("replay", out, rows[0]["game_id"], "--no-boards")
    last = text.splitlines()[-1]
    if rows[0]["winner"]:
        seats = ", ".join(str(s) for s in rows[0]["winner_seats"])
        assert last.startswith(f"result: won by {rows[0]['winner']} (seats {seats}); ")
    else:
        assert last.startswith("result: draw; ")


def test_a_game_hung_in_process_is_recorded_void_by_the_watchdog(tmp_path: Path) -> None:
    (tmp_path / "hang.py").write_text(
        "import time\n\ndef act(observation, legal_actions):\n    time.sleep(3600)\n")
    out = tmp_path / "lg"
    code, text = tourney("league", "bl", f"inproc:{tmp_path / 'hang.py'}", "random", "--games", "1",
                         "--game-timeout", "1", "--workers", "1", "--out", out, "-q")
    assert code == 0, text
    (row,) = ds.dataset(out / "games").to_table().to_pylist()
    assert row["termination"] == "timeout" and row["offender"] is None and not row["rated"]
    assert "watchdog" in row["reason"]
    code, text = tourney("ratings", out)
    assert code == 0 and "0 rated games, 1 void" in text
