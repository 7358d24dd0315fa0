"""The league's secret key: deals and ids keyed by it, --seed for experiments, old leagues kept
on their old derivation, and --require-isolation."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from harness.bots import isolation, sandbox
from harness.league import schedule, store
from harness.league.config import LeagueMismatch
from harness.league.folder import load_config
from harness.league.service import LeagueError, make_executor, prepare_league, run_league
from harness.records import BotRef
from tests.isolation_states import everything_in_force

BOTS = ["a=random", "b=greedy"]


def test_a_new_league_gets_a_random_key_and_keyed_deals(tmp_path: Path) -> None:
    one = prepare_league("battleline", BOTS, out=tmp_path / "one", games=4)
    two = prepare_league("battleline", BOTS, out=tmp_path / "two", games=4)
    assert one.config.deal_scheme == "hmac-v1" and len(one.config.key) == 32
    assert one.config.key != two.config.key and one.config.seed is None
    assert [s.seed for s in one.specs] != [s.seed for s in two.specs]
    assert [s.game_id for s in one.specs] != [s.game_id for s in two.specs]


def test_seed_derives_the_key_reproducibly_and_unlike_the_old_scheme(tmp_path: Path) -> None:
    one = prepare_league("battleline", BOTS, out=tmp_path / "one", games=4, seed=0)
    two = prepare_league("battleline", BOTS, out=tmp_path / "two", games=4, seed=0)
    assert one.config.key == two.config.key == schedule.key_from_seed(0).hex()
    assert [s.seed for s in one.specs] == [s.seed for s in two.specs]
    refs = [BotRef("a", "random"), BotRef("b", "greedy")]
    legacy = schedule.round_robin("battleline", {}, refs, 4, 0)
    assert not {s.seed for s in legacy} & {s.seed for s in one.specs}
    assert not {s.game_id for s in legacy} & {s.game_id for s in one.specs}


def test_a_league_stored_before_keys_resumes_on_its_old_derivation(tmp_path: Path) -> None:
    out = tmp_path / "old"
    plan = prepare_league("battleline", BOTS, out=out, games=2, seed=7)
    run_league(plan, make_executor(0, out, None), progress=False)
    manifest = json.loads((out / "league.json").read_text())
    del manifest["key"], manifest["deal_scheme"]  # as written before keys existed
    (out / "league.json").write_text(json.dumps(manifest))
    for folder in ("games", "moves"):
        shutil.rmtree(out / folder)
    run_league(prepare_league(None, [], out=out, resume=True), make_executor(0, out, None),
               progress=False)  # the old league's first games, under its old derivation
    resumed = prepare_league(None, [], out=out, games=4, resume=True)
    refs = [BotRef("a", "random"), BotRef("b", "greedy")]
    legacy = schedule.round_robin("battleline", {}, refs, 4, 7)
    assert [s.game_id for s in resumed.specs] == [s.game_id for s in legacy]
    assert [s.seed for s in resumed.specs] == [s.seed for s in legacy]
    run_league(resumed, make_executor(0, out, None), progress=False)
    assert load_config(out).deal_scheme == "sha256-v0"  # kept, recorded
    assert store.load_games([out]).games.num_rows == 4


def test_a_seed_does_not_continue_a_league_with_a_random_key(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    run_league(prepare_league("battleline", BOTS, out=out, games=2),
               make_executor(0, out, None), progress=False)
    stored = load_config(out)
    assert stored.isolation == {"sandboxed_bots": False}
    plan = prepare_league("battleline", BOTS, out=out, games=2, seed=3)
    with pytest.raises(LeagueMismatch, match="a secret random key, not --seed 3"):
        run_league(plan, make_executor(0, out, None), progress=False)
    again = prepare_league(None, [], out=out, games=4, resume=True)
    assert again.config.key == stored.key


def test_require_isolation_refuses_what_this_machine_does_not_give(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = isolation.missing(sandbox.report())
    if here:  # a normal user without a cgroup (or a locked-down machine): refused, and why
        with pytest.raises(LeagueError, match=re.escape(f"this machine does not give bots "
                                                        f"{'; '.join(here)}")):
            prepare_league("battleline", ["a=sandbox:random", "greedy"], out=tmp_path / "ok",
                           games=2, require_isolation=True)
    else:  # root (CI): everything is in force, so the league is accepted
        plan = prepare_league("battleline", ["a=sandbox:random", "greedy"],
                              out=tmp_path / "ok", games=2, require_isolation=True)
        assert plan.config.isolation["missing"] == []
        assert plan.config.isolation["mechanism"] in ("cgroup1", "cgroup2")
    weak = {**sandbox.report(), "mechanism": "rlimits", "cgroups": False,
            "freeze": "process group only"}
    monkeypatch.setattr(sandbox, "report", lambda: weak)
    with pytest.raises(LeagueError, match="--require-isolation: this machine does not give "
                                          "bots per-bot memory, process and CPU limits"):
        prepare_league("battleline", ["a=sandbox:random", "greedy"],
                       out=tmp_path / "deep" / "no", games=2, require_isolation=True)
    # the folder made (and hidden) for the probe's start-up server is not left behind
    assert not (tmp_path / "deep").exists()
    plan = prepare_league("battleline", ["a=sandbox:random", "greedy"], out=tmp_path / "no",
                          games=2)
    assert plan.config.isolation["mechanism"] == "rlimits"  # runs, and says so


def test_void_games_are_counted_loudly_in_the_summary(tmp_path: Path) -> None:
    from harness.league.service import RunSummary, _summary_lines

    plan = prepare_league("battleline", BOTS, out=tmp_path / "lg", games=2)
    quiet = _summary_lines(plan, RunSummary(scheduled=2, already=0, played=2, stored=2))
    assert not any(line.startswith("WARNING") for line in quiet)
    loud = _summary_lines(plan, RunSummary(scheduled=2, already=0, played=2, stored=2, void=1))
    assert loud[-1].startswith("WARNING: 1 of the games played are void (the harness failed")


def test_require_isolation_is_kept_in_the_folder_and_enforced_on_every_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A league started with --require-isolation stores it; a resume without the flag on a
    machine that gives less is refused, not played silently with less."""
    out = tmp_path / "lg"
    monkeypatch.setattr(sandbox, "report", everything_in_force)  # a machine that gives it all
    plan = prepare_league("battleline", ["a=sandbox:random", "greedy"], out=out, games=2,
                          require_isolation=True)
    run_league(plan, make_executor(0, out, None), progress=False)
    assert json.loads((out / "league.json").read_text())["isolation"]["required"] is True
    monkeypatch.setattr(sandbox, "report", lambda: {**everything_in_force(), "seccomp": False})
    with pytest.raises(LeagueError, match="--require-isolation: this machine does not give bots "
                                          "a system-call filter"):
        prepare_league(None, [], out=out, resume=True)
    with pytest.raises(LeagueError, match="--require-isolation"):  # new bots, same folder
        prepare_league("battleline", ["a=sandbox:random", "greedy", "r=random"], out=out,
                       games=2)
    assert (out / "league.json").is_file()  # a refused resume leaves the folder as it was
    other = tmp_path / "free"  # a league that never asked is not held to it
    assert prepare_league("battleline", ["a=sandbox:random", "greedy"], out=other,
                          games=2).config.isolation["required"] is False


@pytest.mark.parametrize("bend", ["remove the key", "change one digit", "change the scheme"])
def test_a_league_json_whose_key_was_bent_is_refused_and_nothing_is_dealt(
        tmp_path: Path, bend: str) -> None:
    """Issue 29: a league.json without its key (or with one digit changed, or another deal
    scheme) resumed silently and played a second set of games under deals that were not the
    league's (80 games stored for a 40-game league). Now it is one clear error, nothing is
    played, and the folder is as it was."""
    out = tmp_path / "lg"
    plan = prepare_league("battleline", ["random", "r2=random"], out=out, games=4, seed=5)
    run_league(plan, make_executor(0, out, None), progress=False)
    config = json.loads((out / "league.json").read_text())
    if bend == "remove the key":
        del config["key"], config["deal_scheme"]
    elif bend == "change one digit":
        config["key"] = ("1" if config["key"][0] != "1" else "2") + config["key"][1:]
    else:
        config["deal_scheme"] = "sha256-v0"
    (out / "league.json").write_text(json.dumps(config))
    before = sorted(p.name for p in (out / "games").iterdir())
    with pytest.raises(LeagueError, match=r"league\.json does not describe the games stored "
                                          r"there: 4 stored games of these bots, none of them"):
        run_league(prepare_league(None, [], out=out, resume=True), make_executor(0, out, None),
                   progress=False)
    assert sorted(p.name for p in (out / "games").iterdir()) == before
    assert len(store.load_games([out]).games) == 4


def test_logs_that_cannot_be_written_stop_the_league_before_any_game(tmp_path: Path) -> None:
    """Issue 29: a logs/ that could not be written turned every game into a void game; now the
    league stops first with one line and stores nothing."""
    out = tmp_path / "lg"
    bots = ["random", "r2=sandbox:random"]
    run_league(prepare_league("battleline", bots, out=out, games=2),
               make_executor(0, out, None), progress=False)
    shutil.rmtree(out / "logs")
    (out / "logs").write_text("in the way")
    before = sorted((out / "games").iterdir())
    plan = prepare_league("battleline", bots, out=out, games=4)
    with pytest.raises(LeagueError, match=r"cannot write the bots' logs to .*logs \(File exists\)"
                                          r"; make it a folder you may write"):
        run_league(plan, make_executor(0, out, None), progress=False)
    assert sorted((out / "games").iterdir()) == before
    if os.geteuid() != 0:  # a folder this user may not write (root may write anything)
        (out / "logs").unlink()
        (out / "logs").mkdir(mode=0o555)
        with pytest.raises(LeagueError, match="Permission denied"):
            run_league(plan, make_executor(0, out, None), progress=False)
