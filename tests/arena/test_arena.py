"""`tourney arena`: a living league of real Battle Line games, changed while it runs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from harness.arena import entries, living, standings
from harness.arena.registry import ArenaError, Registry
from harness.cli.app import app
from harness.league import store
from tests.patience import patience
from tests.report.leagues import page_replays

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).resolve().parent / "bots"
runner = CliRunner()


def tourney(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def stored(folder: Path) -> list[dict[str, object]]:
    if not store.batch_files(folder / "games"):
        return []
    rows: list[dict[str, object]] = ds.dataset(folder / "games", format="parquet").to_table(
        columns=["game_id", "bots", "pair_id"]).to_pylist()
    return rows


def status(folder: Path) -> dict[str, tuple[str, str]]:
    with Registry.open(folder) as registry:
        return {v.bot: (v.status, v.reason) for v in registry.versions()}


def run(folder: Path, games: int, **options: object) -> living.RunSummary:
    opts = living.RunOptions(workers=0, stop_after=games, progress=False, seed=1,
                             stop_when_idle=True, say=lambda line: None)
    for key, value in options.items():
        setattr(opts, key, value)
    return living.Arena(folder, opts).run()


@pytest.fixture
def arena(tmp_path: Path) -> Path:
    folder = tmp_path / "club"
    code, text = tourney("arena", "new", folder, "--game", "battleline", "--seed", "3")
    assert code == 0, text
    return folder


def test_bots_join_play_change_and_leave_and_every_game_is_kept(arena: Path,
                                                               tmp_path: Path) -> None:
    own = tmp_path / "mine.py"
    own.write_text((BOTS / "first.py").read_text())
    relative = Path(os.path.relpath(arena))  # as typed in another directory
    for name, spec in (("alice", "random"), ("bob", "greedy"), ("carol", f"inproc:{own}")):
        code, text = tourney("arena", "add", relative, name, spec)
        assert code == 0 and f"added as {name}.v1" in text, text
    with Registry.open(arena) as registry:  # the copy's path holds from any directory
        assert Path(registry.entrant_versions("carol")[0].spec.removeprefix("inproc:")
                    ).is_absolute()
    # the copy is what plays: editing the original afterwards changes nothing
    own.write_text("raise SystemExit('edited after it was sent')\n")
    first = run(arena, 24)
    assert sorted(first.admitted) == ["alice.v1", "bob.v1", "carol.v1"]
    assert first.stored == 24
    assert {s for s, _ in status(arena).values()} == {"active"}

    # a new version replaces the old one in the standings, never mixed with its games
    code, text = tourney("arena", "update", arena, "alice", "greedy")
    assert code == 0 and "alice.v2" in text, text
    code, text = tourney("arena", "retire", arena, "bob")
    assert code == 0 and "bob retired (bob.v1)" in text, text
    second = run(arena, 20)
    states = status(arena)
    assert states["alice.v1"] == ("replaced", "replaced by alice.v2")
    assert states["alice.v2"][0] == "active" and states["bob.v1"][0] == "retired"
    rows = stored(arena)
    later = rows[24:]
    assert len(rows) == 44 == len({r["game_id"] for r in rows})
    played_after = {b for r in later for b in r["bots"]}  # type: ignore[attr-defined]
    assert "alice.v2" in played_after and "bob.v1" not in played_after
    assert second.stored == 20

    # the standings: latest versions by default, every version on demand, the retired kept
    code, text = tourney("arena", "status", arena)
    assert code == 0, text
    lines = text.splitlines()
    assert any(" alice " in line and " v2 " in line and "active" in line for line in lines)
    assert not any("v1" in line and "alice" in line for line in lines)
    assert any("bob" in line and "retired" in line for line in lines)
    code, text = tourney("arena", "status", arena, "--versions", "all", "--format", "json")
    data = json.loads(text)
    assert {r["bot"] for r in data} == {"alice.v1", "alice.v2", "bob.v1", "carol.v1"}
    assert next(r for r in data if r["bot"] == "alice.v1")["games"] > 0

    # `tourney ratings` on the same folder: latest versions, all, or a filter
    code, text = tourney("ratings", arena, "--format", "json")
    assert code == 0, text
    names = {r["bot"] for r in json.loads(text)["leaderboard"]}
    assert names == {"alice.v2", "bob.v1", "carol.v1"}
    code, text = tourney("ratings", arena, "--versions", "all", "--format", "json")
    assert {r["bot"] for r in json.loads(text)["leaderboard"]} == names | {"alice.v1"}
    code, text = tourney("ratings", arena, "--versions", "all", "--bot", "alice",
                         "--format", "json")
    assert {r["bot"] for r in json.loads(text)["leaderboard"]} == {"alice.v1", "alice.v2"}


def test_the_entry_check_keeps_a_broken_bot_out_of_rated_games(arena: Path) -> None:
    for name, spec in (("alice", "random"), ("bob", "greedy"),
                       ("crash", str(BOTS / "crasher.py"))):
        assert tourney("arena", "add", arena, name, spec)[0] == 0
    summary = run(arena, 10)
    assert summary.failed == ["crash.v1"]
    state, reason = status(arena)["crash.v1"]
    assert state == "failed" and "crasher: boom" in reason
    assert all("crash.v1" not in r["bots"] for r in stored(arena))  # type: ignore[operator]
    code, text = tourney("arena", "status", arena)
    assert code == 0 and "failed" in text and "crasher: boom" in text


def test_a_bot_that_starts_failing_after_admission_is_suspended_with_the_reason(
        arena: Path) -> None:
    for name, spec in (("alice", "random"), ("bob", "greedy"),
                       ("flaky", f"inproc:{BOTS / 'first.py'}")):
        assert tourney("arena", "add", arena, name, spec)[0] == 0
    run(arena, 6)
    # what an admitted bot may meet later (a dependency gone, a machine changed): its copy
    # now crashes on every move
    (arena / "bots" / "flaky" / "v1" / "first.py").write_text(
        (BOTS / "crasher.py").read_text())
    summary = run(arena, 40, suspend_after=3)
    assert summary.suspended == ["flaky.v1"]
    state, reason = status(arena)["flaky.v1"]
    assert state == "suspended" and reason.startswith("3 forfeits in a row") and "boom" in reason
    rows = stored(arena)
    crashed = [r for r in rows[6:] if "flaky.v1" in r["bots"]]  # type: ignore[operator]
    # the rest of its wave at most, not hundreds
    assert 3 <= len(crashed) <= 3 + 2 * living.PAIRS_PER_WORKER
    (arena / "bots" / "flaky" / "v1" / "first.py").write_text((BOTS / "first.py").read_text())
    code, text = tourney("arena", "reinstate", arena, "flaky")
    assert code == 0 and "flaky.v1 may play again" in text
    assert status(arena)["flaky.v1"][0] == "active"


def test_the_watched_folder_adds_updates_and_retires(arena: Path) -> None:
    inbox = arena / "inbox"
    assert inbox.is_dir()  # made with the folder
    assert tourney("arena", "add", arena, "frank", "greedy")[0] == 0
    old = time.time() - 60  # settled: the arena takes files that stopped changing

    def drop(name: str, text: str) -> None:
        (inbox / name).write_text(text)
        os.utime(inbox / name, (old, old))

    drop("dave.py", (ROOT / "agents" / "random.py").read_text())
    drop("erin.py", (BOTS / "first.py").read_text())
    drop("bad name.py", (BOTS / "first.py").read_text())
    drop("broken.py", "def act(observation, legal_actions)\n")
    lines: list[str] = []
    run(arena, 4, say=lines.append)
    states = status(arena)
    assert states["dave.v1"][0] == states["erin.v1"][0] == "active"
    assert any("bad name.py refused" in line and "not allowed" in line for line in lines)
    assert any("broken.py refused" in line and "does not compile" in line for line in lines)
    drop("erin.py", (ROOT / "agents" / "greedy.py").read_text())  # a changed file
    (inbox / "dave.py").unlink()  # a removed file
    lines.clear()
    arena_run = living.Arena(arena, living.RunOptions(workers=0, stop_after=4, progress=False,
                                                      stop_when_idle=True, say=lines.append))
    arena_run.inbox.know(arena_run.registry)  # what a running arena already took
    arena_run.inbox.seen["dave"] = (old, 0, "")
    arena_run.run()
    states = status(arena)
    assert states["erin.v1"] == ("replaced", "replaced by erin.v2")
    assert states["erin.v2"][0] == "active" and states["dave.v1"][0] == "retired"
    assert "inbox: erin sent version 2" in lines and \
        "inbox: dave removed, entrant dave retired" in lines


def test_bad_input_gets_one_line_exit_2_and_changes_nothing(arena: Path, tmp_path: Path) -> None:
    assert tourney("arena", "add", arena, "alice", "random")[0] == 0
    assert tourney("arena", "add", arena, "gone", "random")[0] == 0
    assert tourney("arena", "retire", arena, "gone")[0] == 0
    broken = tmp_path / "broken.py"
    broken.write_text("def act(observation, legal_actions)\n    return 1\n")
    league = tmp_path / "lg"
    assert tourney("league", "bl", "random", "greedy", "--games", "2", "--out", league,
                   "--workers", "0", "-q")[0] == 0
    before = (arena / "arena.sqlite").read_bytes()
    cases: list[tuple[tuple[str | Path, ...], str, str]] = [
        (("add", arena, "alice", "greedy"), "already in", "tourney arena update"),
        (("add", arena, "gone", "greedy"), "was retired", "choose another name"),
        (("add", arena, "carol", tmp_path / "missing.py"), "missing.py", "nothing was added"),
        (("add", arena, "carol", broken), "does not compile (line 1)", "nothing was added"),
        (("add", arena, "no/slash", "random"), "not allowed", "letters, digits"),
        (("add", tmp_path, "carol", "random"), "not a living league", "tourney arena run"),
        (("add", league, "carol", "random"), "holds a league, not a living league", "arena"),
        (("update", arena, "nobody", "greedy"), "no entrant 'nobody'", "tourney arena add"),
        (("update", arena, "gone", "greedy"), "was retired", "another name"),
        (("update", arena, "alice", "random"), "has the same code", "nothing was added"),
        (("retire", arena, "gone"), "already retired", ""),
        (("reinstate", arena, "alice"), "no suspended version", "status"),
        (("run", arena, "--game", "warchest"), "living league of battleline", "leave out"),
        (("run", arena, "--seed", "4"), "chosen when it starts", "leave them out"),
        (("status", arena, "--versions", "some"), "unknown --versions", "latest or all"),
    ]
    for args, problem, fix in cases:
        code, text = tourney("arena", *args)
        lines = text.strip().splitlines()
        assert code == 2, (args, text)
        assert len(lines) == 1 and lines[0].startswith("tourney: error: "), (args, text)
        assert problem in lines[0] and fix in lines[0], (args, text)
    assert (arena / "arena.sqlite").read_bytes() == before or status(arena) == {
        "alice.v1": ("validating", ""), "gone.v1": ("retired", "entrant retired")}
    assert not (arena / "bots" / "carol").exists()


def _start(folder: Path) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-c", "from harness.cli.app import main; main()", "arena", "run",
           str(folder), "--workers", "2", "--batch-size", "4", "-q"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)


def _wait_for_batches(folder: Path, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + patience(300)
    while len(store.batch_files(folder / "games")) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_killed_and_interrupted_arenas_lose_and_repeat_nothing(arena: Path) -> None:
    for name, spec in (("alice", "random"), ("bob", "greedy"), ("carol", "greedy:p=0.5")):
        assert tourney("arena", "add", arena, name, spec)[0] == 0
    proc = _start(arena)
    _wait_for_batches(arena, 3, proc)
    proc.kill()  # kill -9 of the arena itself; its workers die with it
    proc.wait(patience(60))
    proc = _start(arena)
    _wait_for_batches(arena, len(store.batch_files(arena / "games")) + 3, proc)
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    _, err = proc.communicate(timeout=patience(120))
    assert proc.returncode == 130, err
    with Registry.open(arena) as registry:
        chosen = registry.assignments_since(0)
    summary = run(arena, 2 * len(chosen) + 10)  # every pair chosen so far is finished first
    rows = stored(arena)
    ids = [r["game_id"] for r in rows]
    assert len(ids) == len(set(ids))  # nothing twice
    arena_view = living.Arena(arena)
    done = {str(i) for i in ids}
    for assignment in chosen:  # nothing lost: every chosen pair has both its games
        arena_view.mm = None
        assert all(s.game_id in done for s in arena_view._specs(assignment)), assignment
    assert summary.stored >= 10


class _Killed(BaseException):
    """The arena's process dies (kill -9) before its buffered games are written."""


def test_a_pair_whose_games_die_in_the_buffer_is_played_at_the_next_start(
        arena: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mark of complete assignments follows the games written, not the waves played: a
    wave's games still in the store's buffer when the process is killed are played again.
    (A first wave of one pair, as the fair share gives three newcomers, left two games of a
    four-game batch in the buffer after the mark had passed their pair.)"""
    for name, spec in (("alice", "random"), ("bob", "greedy")):
        assert tourney("arena", "add", arena, name, spec)[0] == 0

    def die(self: store.ResultsStore) -> int:
        raise _Killed

    with monkeypatch.context() as patched:
        patched.setattr(store.ResultsStore, "flush", die)
        with pytest.raises(_Killed):  # one wave of one pair, both games in the buffer
            run(arena, 2, batch_size=4, flush_seconds=1e9)
    assert stored(arena) == []
    with Registry.open(arena) as registry:
        chosen = registry.assignments_since(0)
    assert len(chosen) == 1
    summary = run(arena, 2, batch_size=4, flush_seconds=1e9)
    assert summary.replayed_pairs == 1 and summary.stored == 2
    view = living.Arena(arena)
    assert {str(r["game_id"]) for r in stored(arena)} == \
        {s.game_id for s in view._specs(chosen[0])}
    with Registry.open(arena) as registry:  # written now: the next start skips it
        assert registry.complete_through() == 1


def test_folders_that_are_not_living_leagues_and_games_it_cannot_pair(tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    with pytest.raises(ArenaError, match="not empty"):
        living.create(tmp_path / "full", "battleline")
    with pytest.raises(ArenaError, match="3-player"):
        living.create(tmp_path / "three", "battleline", variants=["players=3"])
    with pytest.raises(ArenaError, match="not a living league"):
        Registry.open(tmp_path)
    with pytest.raises(ArenaError, match="not allowed"):
        entries.add(Registry.create(tmp_path / "new"), "9lives", "random")


def test_standings_at_scale_read_totals_not_rows(arena: Path) -> None:
    """The leaderboard's totals equal a count of the stored rows, pair by pair."""
    for name, spec in (("alice", "random"), ("bob", "greedy"), ("carol", "greedy:p=0.5")):
        assert tourney("arena", "add", arena, name, spec)[0] == 0
    run(arena, 30)
    totals = standings.read_totals(arena)
    table = ds.dataset(arena / "games").to_table(columns=["bots", "result"]).to_pylist()
    by_pair: dict[tuple[str, str], list[float]] = {}
    for row in table:
        (a, b), (ra, rb) = row["bots"], row["result"]
        lo, hi = sorted((a, b))
        pts = 1.0 if ra > rb else 0.5 if ra == rb else 0.0
        acc = by_pair.setdefault((lo, hi), [0.0, 0.0])
        acc[0] += 1
        acc[1] += pts if a == lo else 1.0 - pts
    assert {k: v[:2] for k, v in totals.pairs.items()} == by_pair
    assert sum(totals.games.values()) == 2 * len(table)


def test_entry_check_copies_a_bot_directory(arena: Path) -> None:
    source = ROOT / "tests" / "fixtures" / "dirbot"
    if not source.is_dir():
        pytest.fail("tests/fixtures/dirbot is missing")
    code, text = tourney("arena", "add", arena, "dirbot", f"{source}/")
    assert code == 0, text
    copy = arena / "bots" / "dirbot" / "v1" / source.name
    assert copy.is_dir() and sorted(p.name for p in copy.iterdir() if p.is_file())
    shutil.rmtree(copy.parent)  # a copy that vanished: the entry check fails with a reason
    assert tourney("arena", "add", arena, "bob", "greedy")[0] == 0
    run(arena, 2)
    state, reason = status(arena)["dirbot.v1"]
    assert state == "failed" and reason


def _page_data(path: Path) -> dict[str, object]:
    from harness.figures.report.render import unpack

    html = path.read_text()
    head = '<script type="application/octet-stream" id="report-data">'
    start = html.index(head) + len(head)
    data: dict[str, object] = unpack(html[start:html.index("</script>", start)])
    return data


def test_the_report_shows_each_entrants_status_and_none_of_the_organisers_paths(
        arena: Path, tmp_path: Path) -> None:
    for name, spec in (("alice", "random"), ("bob", "greedy"),
                       ("crash", str(BOTS / "crasher.py")), ("carol", str(BOTS / "first.py"))):
        assert tourney("arena", "add", arena, name, spec)[0] == 0
    live = tmp_path / "live.html"
    run(arena, 8, report=live, report_interval=1.0)  # --report: written as it runs
    entrants = {e["bot"]: e for e in _page_data(live)["entrants"]}  # type: ignore[attr-defined]
    assert entrants["crash.v1"]["status"] == "failed"
    # the report is public: why a version was refused is its entrant's own (issue 47)
    assert entrants["crash.v1"]["reason"] == "refused by its entry check"
    assert "boom" not in live.read_text()
    assert "crasher: boom" in status(arena)["crash.v1"][1]  # the organiser reads it here
    assert entrants["alice.v1"]["status"] == "active" and entrants["alice.v1"]["games"] > 0
    assert tourney("arena", "retire", arena, "bob")[0] == 0
    out = tmp_path / "shared.html"
    code, text = tourney("report", arena, "-o", out, "--replays", "all")
    assert code == 0, text
    assert {e["bot"]: e["status"] for e in _page_data(out)["entrants"]}[  # type: ignore[attr-defined]
        "bob.v1"] == "retired"
    assert sorted(tmp_path.glob("shared*")) == [out]  # one file, its replays in it
    pages = {"report": out.read_text(), **{game_id: json.dumps(replay) for game_id, replay
                                          in page_replays(out).items()}}
    assert len(pages) > 1
    for page, html in pages.items():
        for private in (str(arena.resolve()), str(BOTS), str(ROOT)):
            assert private not in html, (page, private)


def test_arena_new_makes_the_inbox_it_tells_the_organiser_about(tmp_path: Path) -> None:
    folder = tmp_path / "fresh"
    code, text = tourney("arena", "new", folder, "--game", "battleline")
    assert code == 0, text
    assert "drop NAME.py into" in text and str(folder / "inbox") in text
    assert (folder / "inbox").is_dir()
    # a bot dropped there joins at the next run
    shutil.copy(ROOT / "agents" / "greedy.py", folder / "inbox" / "dropped.py")
    old = time.time() - 10
    os.utime(folder / "inbox" / "dropped.py", (old, old))
    run(folder, 0)
    assert "dropped.v1" in status(folder)
