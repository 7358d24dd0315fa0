"""SPRT gauntlets: the stop falls on pairs in schedule order, whatever the workers do."""

from __future__ import annotations

import json
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.league import service, store
from harness.league.eta import Eta
from harness.league.sequential import SprtGate, run_sprt
from harness.league.service import League
from harness.records import BotRef, GameRecord, GameSpec, Termination
from harness.stats.sprt import Sprt, SprtParams
from tests.league.helpers import record
from tests.patience import patience

SLOPPY = f"sloppy=inproc:{Path(__file__).parent / 'bots' / 'sloppy.py'}"
PARAMS = SprtParams(100.0, 300.0)  # sloppy v random: H1 after some twenty pairs


def tourney(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def stored_ids(out: Path) -> list[str]:
    return sorted(ds.dataset(out / "games").to_table().column("game_id").to_pylist())


def _specs(pairs: int) -> list[GameSpec]:
    bots = (BotRef("new", "x"), BotRef("old", "y"))
    return [GameSpec(f"g{i:03d}", "battleline", {}, i // 2, bots if i % 2 == 0 else bots[::-1],
                     pair_id=f"p{i // 2:03d}") for i in range(2 * pairs)]


def _finished(spec: GameSpec, new_wins: bool) -> GameRecord:
    seats = tuple(b.name for b in spec.seats)
    won = seats.index("new") if new_wins else seats.index("old")
    returns = tuple(1.0 if s == won else -1.0 for s in range(2))
    rec = record(spec.game_id, seats, returns)
    rec.pair_id = spec.pair_id
    return rec


def test_the_gate_commits_pairs_in_schedule_order_whatever_the_finishing_order() -> None:
    specs = _specs(60)
    rng = random.Random(3)
    outcomes = {s.game_id: rng.random() < 0.85 for s in specs}
    expected = Sprt(PARAMS)
    for k in range(60):
        points = outcomes[specs[2 * k].game_id] + outcomes[specs[2 * k + 1].game_id]
        if expected.update(float(points)):
            break
    assert expected.verdict is not None and expected.decided_after is not None
    for trial in range(5):
        order = list(specs)
        random.Random(trial).shuffle(order)
        gate = SprtGate(specs, "new", "old", PARAMS, {})
        stored: list[str] = []
        for spec in order:
            stored += [r.game_id for r in gate.admit(_finished(spec, outcomes[spec.game_id]))]
            if gate.done:
                break
        assert gate.test.decided_after == expected.decided_after
        assert gate.test.counts == expected.counts and gate.test.llr == expected.llr
        assert stored == [s.game_id for s in specs[:2 * expected.decided_after]]
        assert gate.release() == []  # games past the verdict are not the test's


def test_a_void_game_makes_its_pair_incomplete_and_ctrl_c_keeps_held_games() -> None:
    specs = _specs(3)
    gate = SprtGate(specs, "new", "old", PARAMS, {})
    void = record(specs[0].game_id, ("new", "old"), (0.0, 0.0), Termination.CRASH)
    void.offender = None
    assert gate.admit(_finished(specs[2], True)) == []  # pair 1 waits for pair 0
    assert gate.admit(void) == []
    assert [r.game_id for r in gate.admit(_finished(specs[1], False))] == ["g000", "g001"]
    assert gate.incomplete == 1 and gate.test.pairs == 0 and gate.void == 1
    assert gate.admit(_finished(specs[5], True)) == []
    assert sorted(r.game_id for r in gate.release()) == ["g002", "g005"]  # interrupted: keep


def test_the_last_progress_line_says_the_llr_left_the_interval() -> None:
    """Issue 29, item 7: the bar's last line read `LLR +2.98 in (-2.94, +2.94)` after the test
    had left the interval."""
    specs = _specs(60)
    gate = SprtGate(specs, "new", "old", PARAMS, {})
    assert gate.postfix() == "LLR +0.00 in (-2.94, +2.94), 0 pairs"
    for spec in specs:
        gate.admit(_finished(spec, True))
        if gate.done:
            break
    text = gate.postfix()
    assert gate.test.llr >= PARAMS.upper and " in (" not in text, text
    assert re.fullmatch(r"LLR \+\d\.\d\d ≥ \+2\.94: H1 accepted, \d+ pairs", text), text
    lost = SprtGate(specs, "new", "old", PARAMS, {})
    for spec in specs:
        lost.admit(_finished(spec, False))
        if lost.done:
            break
    assert re.fullmatch(r"LLR -\d\.\d\d ≤ -2\.94: H0 accepted, \d+ pairs", lost.postfix())


def test_the_eta_waits_for_five_pairs_then_aims_at_a_verdict_or_the_cap() -> None:
    def timed(specs: list[GameSpec]) -> Eta:  # every game takes one second, one at a time
        eta = Eta(specs)
        for k in range(3):
            eta.add(["new", "old"], 1.0, [0.5, 0.5], float(k))
        return eta

    wins = [1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1]  # pairs 2, 1, 1, 2, 2, ...
    for pairs, params, expect in [  # sloppy's bounds take minutes; (0, 5) some 40,000 games
            (20_000, PARAMS, r"ETA ~0:0\d:\d\d \(at the slowest plausible Elo\)"),
            (200, SprtParams(0, 5), r"ETA 0:06:\d\d \(to the cap\)")]:
        specs = _specs(pairs)
        gate = SprtGate(specs, "new", "old", params, {})
        shown = []
        for spec, won in zip(specs, wins, strict=False):
            gate.admit(_finished(spec, bool(won)))
            if gate.done:
                break
            shown.append(gate.eta(timed(specs[gate.committed:])))
        assert set(shown[:9]) == {"ETA ? (needs 5 pairs, not all alike)"}, shown
        assert len(shown) > 10 and all(re.fullmatch(expect, e) for e in shown[9:]), shown


class _Bar:
    """Stands in for tqdm: keeps every postfix the league shows."""

    def __init__(self) -> None:
        self.postfixes: list[str] = []

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.postfixes.append(text)

    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


class _Clock:
    """time for the league's loop: two seconds pass between the games' arrivals, so the bar is
    redrawn after every game and a game takes 2 s of wall time."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


def test_the_progress_eta_is_to_the_verdict_not_to_the_cap(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29, item 7: the SPRT's first ETA was the time to play the 20,000-game cap. Now it
    is unknown until 5 pairs, then the expected time to a verdict at the slowest plausible
    strength; the last line says which bound the LLR crossed."""
    bar = _Bar()
    monkeypatch.setattr(service, "_progress", lambda total, initial, enabled, capped: bar)
    monkeypatch.setattr(service, "time", _Clock())
    league = League.prepare("battleline", [SLOPPY, "random"], out=tmp_path / "eta",
                            games=20_000, seed=1, kind="gauntlet")
    run = run_sprt(league, PARAMS, workers=0, progress=True)
    assert run.gate.test.verdict == "H1"
    shown = bar.postfixes
    assert len(shown) >= 10, shown
    etas = [p.split(",")[0] for p in shown[:-1]]
    pairs = [int(m.group(1)) for p in shown[:-1] if (m := re.search(r"(\d+) pairs?\b", p))]
    assert all(e == "ETA ? (needs 5 pairs, not all alike)"
               for e, n in zip(etas, pairs, strict=True) if n < 5)
    timed = [e for e in etas if not e.startswith("ETA ?")]
    assert timed and all(re.fullmatch(r"ETA ~\d+:\d\d:\d\d \(at the slowest plausible Elo\)", e)
                         for e in timed), etas
    # a game takes 2 s here: the cap's 20,000 games would take 11 hours (the ETA shown before)
    assert all(e.startswith("ETA ~0:0") for e in timed), etas
    assert re.fullmatch(r"LLR \+\d\.\d\d ≥ \+2\.94: H1 accepted, \d+ pairs", shown[-1]), shown


def test_two_worker_counts_stop_after_the_same_pairs_and_store_the_same_games(
        tmp_path: Path) -> None:
    runs = {}
    for workers in (0, 2):
        league = League.prepare("battleline", [SLOPPY, "random"], out=tmp_path / f"w{workers}",
                                games=400, seed=1, kind="gauntlet")
        run = run_sprt(league, PARAMS, workers=workers, progress=False)
        assert run.summary is not None and run.summary.stopped
        runs[workers] = run
        assert len(stored_ids(league.out)) == 2 * (run.gate.test.decided_after or 0)
    a, b = runs[0].gate.test, runs[2].gate.test
    assert a.verdict == b.verdict == "H1"
    assert (a.decided_after, a.counts, a.llr) == (b.decided_after, b.counts, b.llr)
    assert stored_ids(tmp_path / "w0") == stored_ids(tmp_path / "w2")


def test_rerunning_continues_the_test_from_the_stored_games(tmp_path: Path) -> None:
    whole, part = tmp_path / "whole", tmp_path / "part"
    spec = "elo0=100,elo1=300"
    code, text = tourney("gauntlet", "bl", SLOPPY, "random", "--sprt", spec, "--out", whole,
                         "--workers", "0", "-q", "--format", "json", "--seed", "1")
    assert code == 0, text
    full = json.loads(text[text.index("{"):])
    assert full["accepted"] == "H1" and full["games"] == 2 * full["decided_after"]
    code, text = tourney("gauntlet", "bl", SLOPPY, "random", "--sprt", spec, "--out", part,
                         "--workers", "0", "-q", "--games", "6", "--seed", "1")
    assert code == 0 and "no verdict: the cap of 6 games was reached" in text, text
    code, text = tourney("gauntlet", "bl", SLOPPY, "random", "--sprt", spec, "--out", part,
                         "--workers", "0", "-q", "--games", "400", "--format", "json")
    assert code == 0, text
    again = json.loads(text[text.index("{"):])
    assert again["played"] == full["games"] - 6
    assert full["median_unbiased"]["read_as"] == "upper"
    assert full["median_unbiased"]["elo_low"] < full["median_unbiased"]["elo"]
    for key in ("accepted", "decided_after", "llr", "pentanomial", "elo", "los",
                "median_unbiased"):
        assert again[key] == full[key], key
    assert stored_ids(whole) == stored_ids(part)
    code, text = tourney("gauntlet", "bl", SLOPPY, "random", "--sprt", spec, "--out", part,
                         "--workers", "0", "-q", "--games", "400")
    assert code == 0 and "already decide the test" in text and "H1 accepted" in text, text
    for line in ("LLR: ", "pairs: ", "games: ", "Elo, median-unbiased (accounts for the SPRT's "
                 "stopping rule): +", "LOS: ", "fixed-sample figures (as if the number of pairs "
                 "had been fixed in advance"):
        assert line in text, text


def test_bots_that_play_alike_get_a_note_on_why_the_figures_are_n_a(tmp_path: Path) -> None:
    """Issue 47: greedy against a copy of itself split every pair 1–1 and the report printed a
    row of n/a with no word of why; the cap was printed as "20000 scheduled" games."""
    out = tmp_path / "twins"
    code, text = tourney("gauntlet", "bl", "greedy", "twin=greedy", "--sprt", "elo0=0,elo1=20",
                         "--out", out, "--workers", "0", "--games", "20", "--seed", "1")
    assert code == 0, text
    assert "n/a" in text and "pairs: 10 complete (greedy's points 0: 0, ½: 0, 1: 10" in text
    note = next(line for line in text.splitlines() if line.startswith("note: "))
    assert note.startswith("note: all 10 pairs split 1–1: each deal was won by the same seat")
    assert "the intervals and the LOS are n/a" in note and "randomness of their own" in note
    assert "scheduled" not in text, text
    assert f"20 games stored in {out} (cap 20)" in text, text
    assert "0 games (cap 20)" in text  # the progress bar shows the cap as a cap, no bar
    code, text = tourney("gauntlet", "bl", "greedy", "twin=greedy", "--sprt", "elo0=0,elo1=20",
                         "--out", out, "--workers", "0", "--games", "20", "-q", "-f", "json")
    assert code == 0 and "reach the cap of 20 games; nothing to play" in text, text
    data = json.loads(text[text.index("{"):])
    assert data["note"] == note and data["games_cap"] == 20


def test_ratings_of_an_sprt_folder_say_their_figures_are_fixed_sample(tmp_path: Path) -> None:
    """`ratings --pairs` on a folder an SPRT stopped reads the same pairs as if their number had
    been fixed: it says so, and where the stopping-aware figures are, instead of printing them
    as the test's answer (issue 29, item 3)."""
    out = tmp_path / "s"
    code, text = tourney("gauntlet", "bl", SLOPPY, "random", "--sprt", "elo0=100,elo1=300",
                         "--out", out, "--workers", "0", "-q", "--seed", "1")
    assert code == 0 and "H1 accepted" in text, text
    code, text = tourney("ratings", out, "--pairs")
    assert code == 0, text
    assert f"{out} holds an SPRT, stopped when its test decided: the figures here are " \
        "fixed-sample" in text
    code, text = tourney("ratings", out, "--format", "json")
    assert code == 0 and "holds an SPRT" in json.loads(text)["notes"][-1]


@pytest.mark.parametrize(("args", "message"), [
    (["gauntlet", "bl", "random", "greedy", "r2=random", "--sprt", "elo0=0,elo1=10"],
     "not 3 bots"),
    (["league", "bl", "random", "greedy", "r2=random", "--sprt", "elo0=0,elo1=10"],
     "not a round robin of 3 bots"),
    (["gauntlet", "bl", "random", "greedy", "--sprt", "elo0=10,elo1=10"], "elo0 must be below"),
    (["gauntlet", "bl", "random", "greedy", "--sprt", "elo0=0,elo1=10,alpha=0.5"],
     "alpha must be within (0, 0.5)"),
    (["gauntlet", "bl", "random", "greedy", "--sprt", "elo0=0,elo1=10,beta=0"],
     "beta must be within (0, 0.5)"),
    (["gauntlet", "bl", "random", "greedy", "--sprt", "elo0=0,elo1=10", "--format", "xml"],
     "unknown --format"),
    (["league", "bl", "random", "greedy", "--sprt", "elo0=0,elo1=10", "--report"],
     "--report do not apply to an SPRT run"),
    (["gauntlet", "bl", "random", "greedy", "--sprt", "elo0=0,elo1=10", "--strict", "--json"],
     "--strict, --json do not apply to an SPRT run"),
])
def test_bad_sprt_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str],
                                               message: str) -> None:
    code, text = tourney(*args, "--out", tmp_path / "x", "--workers", "0", "-q")
    assert code == 2 and message in text, text
    assert len(text.strip().splitlines()) == 1 and text.startswith("tourney: error: ")
    assert not (tmp_path / "x").exists()


def test_an_sprt_on_a_folder_of_another_game_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "bl"
    code, text = tourney("gauntlet", "bl", "greedy", "random", "--games", "2", "--out", out,
                         "--workers", "0", "-q")
    assert code == 0, text
    code, text = tourney("gauntlet", "wc", "greedy", "random", "--sprt", "elo0=0,elo1=10",
                         "--out", out, "--workers", "0", "-q")
    assert code == 2 and "battleline league, not warchest" in text, text
    assert len(text.strip().splitlines()) == 1


@pytest.mark.slow
def test_ctrl_c_keeps_finished_games_and_the_printed_command_continues_the_test(
        tmp_path: Path) -> None:
    spec = "elo0=-100,elo1=100"  # two identical bots: H0 after some 350 pairs
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    code, text = tourney("gauntlet", "bl", "random", "r2=random", "--sprt", spec, "--out", whole,
                         "--workers", "0", "-q", "--format", "json", "--seed", "1")
    assert code == 0, text
    full = json.loads(text[text.index("{"):])
    cmd = [sys.executable, "-c", "from harness.cli.app import main; main()", "gauntlet", "bl",
           "random", "r2=random", "--sprt", spec, "--out", str(cut), "--workers", "2",
           "--batch-size", "20", "--seed", "1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=Path(__file__).parents[2])
    deadline = time.monotonic() + patience(600)
    while len(store.batch_files(cut / "games")) < 3:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=patience(300))
    assert proc.returncode == 130 and "no verdict yet: interrupted" in out, out + err
    resume = err.split("continue with:\n  ")[1].strip()
    assert resume.startswith("tourney gauntlet battleline random=random r2=random --sprt")
    stored = len(stored_ids(cut))
    assert 0 < stored < full["games"]
    code, text = tourney(*shlex.split(resume)[1:], "--workers", "0", "-q", "--format", "json")
    assert code == 0, text
    again = json.loads(text[text.index("{"):])
    assert (again["accepted"], again["decided_after"], again["llr"]) == \
        (full["accepted"], full["decided_after"], full["llr"])
    assert set(stored_ids(whole)) <= set(stored_ids(cut))  # plus any game Ctrl-C kept


def test_league_sprt_keeps_the_limits_it_was_given(tmp_path: Path) -> None:
    """`tourney league A B --sprt` hands over to the gauntlet with every option, limits too."""
    out = tmp_path / "limits"
    code, text = tourney("league", "bl", "greedy", "random", "--sprt", "elo0=0,elo1=400",
                         "--games", "4", "--memory-mb", "512", "--startup-time", "20",
                         "--cpu-seconds", "90", "--out", out, "--workers", "0", "-q")
    assert code == 0, text
    limits = json.loads((out / "league.json").read_text())["limits"]
    assert (limits["memory_bytes"], limits["startup_time"], limits["cpu_seconds"]) == (
        512 << 20, 20.0, 90)


def test_the_hypotheses_are_fixed_when_the_test_starts(tmp_path: Path) -> None:
    """Issue 29: a rerun with other hypotheses re-tested the stored pairs and stopped at the
    first crossing (20 pairs scoring exactly 50 % became "H1 accepted after 3 pairs, Elo
    +279.6"). The folder keeps its test; another is refused with the one to use."""
    out = tmp_path / "S"
    code, text = tourney("gauntlet", "bl", "greedy", "g=greedy:p=0.05", "--sprt",
                         "elo0=0,elo1=5", "--games", "40", "--seed", "3", "--out", out,
                         "--workers", "0", "-q")
    assert code == 0, text
    assert "head to head in these pairs" in text and "fixed-sample figures (as if" in text
    code, text = tourney("gauntlet", "bl", "greedy", "g=greedy:p=0.3", "--sprt",
                         "elo0=-50,elo1=0", "--games", "400", "--seed", "3", "--out",
                         tmp_path / "decided", "--workers", "0", "-q")
    assert code == 0 and ("H1 accepted after 20 pairs: greedy v g is at least normalised Elo 0 "
                          "rather than at most normalised Elo -50") in text  # the bounds' scale
    stored = json.loads((out / "sprt.json").read_text())
    assert stored == {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05,
                      "model": "normalized"}
    games = sorted(p.name for p in (out / "games").iterdir())
    code, text = tourney("gauntlet", "bl", "greedy", "g=greedy:p=0.05", "--sprt",
                         "elo0=-200,elo1=-100,alpha=0.2,beta=0.2", "--out", out, "--workers",
                         "0", "-q")
    assert code == 2
    assert (f"{out} holds an SPRT started with --sprt elo0=0,elo1=5,alpha=0.05,beta=0.05,"
            "model=normalized; a test's hypotheses are fixed when it starts") in text
    assert "accepted" not in text and sorted(p.name for p in (out / "games").iterdir()) == games
    code, text = tourney("gauntlet", "bl", "greedy", "g=greedy:p=0.05", "--sprt",
                         "elo0=0,elo1=5", "--out", out, "--workers", "0", "-q")
    assert code == 0, text  # the same test goes on
    plain = tmp_path / "P"  # games played without a test cannot be tested afterwards
    code, text = tourney("gauntlet", "bl", "greedy", "g=greedy:p=0.05", "--games", "4",
                         "--out", plain, "--workers", "0", "-q")
    assert code == 0, text
    code, text = tourney("gauntlet", "bl", "greedy", "g=greedy:p=0.05", "--sprt",
                         "elo0=0,elo1=5", "--out", plain, "--workers", "0", "-q")
    assert code == 2 and "played without an SPRT" in text
