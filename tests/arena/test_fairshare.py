"""Each entrant's fair share of the living league's worker time (issue 45: a bot that always
thought just under the move limit cut a competition's league from 67 games a minute to 2).

The ledger and its gate are checked on made-up games; the league itself with a bot that sleeps
near the move limit among quick ones, asserting on the games each entrant got (never on time)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pyarrow.dataset as ds
from typer.testing import CliRunner

from harness.arena import living
from harness.arena.fairshare import FairShare, entrant_of
from harness.arena.matchmaking import Matchmaker
from harness.cli.app import app
from harness.records import GameRecord, Termination

BOTS = Path(__file__).resolve().parent / "bots"


def game(a: str, b: str, think_a: float, think_b: float, rest: float = 0.0) -> GameRecord:
    return GameRecord(
        game_id=f"{a}-{b}", game="battleline", variant={}, rules_version="1", seed=1,
        seats=[a, b], returns=[1.0, -1.0], scores=[1.0, 0.0], winners=[0],
        termination=Termination.NORMAL, reason="", decisions=40,
        duration=think_a + think_b + rest, think_time=[think_a, think_b])


def test_the_ledger_charges_each_seat_its_own_time_and_credits_everyone() -> None:
    fair = FairShare()
    field = ["fast.v1", "quick.v2", "slow.v1"]
    fair.charge(game("slow.v1", "fast.v1", 30.0, 0.5, rest=1.5), field)
    assert fair.charged == {"slow": 30.75, "fast": 1.25}
    assert round(sum(fair.balance.values()), 9) == 0.0  # shares and uses cancel out
    assert fair.balance["quick"] == 32.0 / 3
    assert fair.balance["slow"] == 32.0 / 3 - 30.75
    assert entrant_of("alice.v12") == "alice" and entrant_of("random") == "random"


def test_the_gate_holds_back_an_entrant_past_its_share() -> None:
    fair = FairShare()
    field = ["a.v1", "b.v1", "c.v1", "slow.v1"]
    fair.charge(game("a.v1", "b.v1", 0.1, 0.1), field)
    fair.charge(game("c.v1", "slow.v1", 0.1, 40.0), field)
    gate = fair.gate(field)
    assert gate.allowed() == {"a.v1", "b.v1", "c.v1"}
    # the matchmaker would play the slow bot at once (it is the least sure); the gate says no
    mm = Matchmaker(field)
    pairs = mm.choose_many(random.Random(1), 16, fair.gate(field))
    assert pairs and all("slow.v1" not in pair for pair in pairs)
    assert "slow.v1" in {bot for pair in Matchmaker(field).choose_many(random.Random(1), 16)
                         for bot in pair}
    # the most costly pair of a wave is played first
    assert fair.order([("a.v1", "b.v1"), ("slow.v1", "a.v1")], field) == [1, 0]


def test_a_newcomer_gets_one_pair_a_wave_and_two_bots_always_play() -> None:
    fair = FairShare()
    field = ["a.v1", "b.v1", "new.v1"]
    fair.charge(game("a.v1", "b.v1", 0.1, 0.1), field)
    pairs = Matchmaker(field).choose_many(random.Random(2), 12, fair.gate(field))
    assert sum("new.v1" in pair for pair in pairs) <= 1
    # one slow bot and one quick one: nobody else could use the workers, so they play
    fair = FairShare()
    fair.charge(game("slow.v1", "quick.v1", 60.0, 0.1), ["slow.v1", "quick.v1"])
    pairs = Matchmaker(["slow.v1", "quick.v1"]).choose_many(
        random.Random(3), 4, fair.gate(["slow.v1", "quick.v1"]))
    assert len(pairs) == 4


def test_a_bot_near_the_move_limit_leaves_the_others_their_games(tmp_path: Path) -> None:
    folder = tmp_path / "club"
    runner = CliRunner()
    made = runner.invoke(app, ["arena", "new", str(folder), "--game", "battleline", "--seed",
                               "3", "--move-time", "0.05"])
    assert made.exit_code == 0, made.output
    for name, spec in (("alice", "random"), ("bob", "greedy"), ("carol", "random"),
                       ("slow", str(BOTS / "near_limit.py"))):
        added = runner.invoke(app, ["arena", "add", str(folder), name, spec])
        assert added.exit_code == 0, added.output
    games = 100
    opts = living.RunOptions(workers=2, stop_after=games, progress=False, seed=1,
                             stop_when_idle=True, say=lambda line: None)
    summary = living.Arena(folder, opts).run()
    assert "slow.v1" in summary.admitted, summary
    rows = ds.dataset(folder / "games", format="parquet").to_table(columns=["bots"]
                                                                   ).to_pylist()
    assert len(rows) >= games
    per = Counter(entrant_of(bot) for row in rows for bot in set(row["bots"]))
    # Without a fair share the matchmaker gives the slow bot about half of all games (3 of
    # the 6 pairings are its), and each of them lasts a hundred times longer: the others'
    # games come at the slow bot's pace. With it, the slow bot plays a few games and the
    # others keep nearly all of them.
    assert 1 <= per["slow"] <= games // 10, per
    assert len(rows) - per["slow"] >= 0.9 * len(rows), per
    for name in ("alice", "bob", "carol"):
        assert per[name] >= len(rows) // 6, per
