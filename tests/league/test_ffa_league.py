"""Free-for-all leagues end to end (three-player Battle Line) and leagues played in rounds."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
from typer.testing import CliRunner

from harness.cli.app import app
from harness.league.service import League
from harness.records import GameRecord
from harness.run.local import InlineExecutor

runner = CliRunner()


def tourney(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def rows(out: Path) -> list[dict[str, Any]]:
    table = ds.dataset(out / "games", format="parquet").to_table().sort_by("game_id")
    found: list[dict[str, Any]] = table.to_pylist()
    return found


def stop_after(n: int) -> Callable[[GameRecord], None]:
    """An on_record hook that interrupts the league after ``n`` games, as Ctrl-C would."""
    seen = [0]

    def hook(record: GameRecord) -> None:
        seen[0] += 1
        if seen[0] == n:
            raise KeyboardInterrupt

    return hook


def group(row: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(set(row["bots"])))


def test_an_interrupted_league_holds_k_pairs_of_every_pairing(tmp_path: Path) -> None:
    out = tmp_path / "rr"
    bots = ["r1=random", "r2=random", "r3=random", "r4=random"]
    league = League.prepare("battleline", bots, out=out, games=6, seed=4)
    pairings = 6
    for k in (1, 2):
        again = league if k == 1 else League.resume(out)
        summary = again.run(InlineExecutor(), progress=False, on_record=stop_after(2 * pairings))
        assert summary.interrupted and summary.stored == 2 * pairings
        stored = rows(out)
        assert Counter(group(r) for r in stored) == {
            tuple(sorted(p)): 2 * k for p in itertools.combinations(["r1", "r2", "r3", "r4"], 2)}
        pairs = Counter(str(r["pair_id"]) for r in stored)
        assert len(pairs) == k * pairings and set(pairs.values()) == {2}  # whole pairs only
    summary = League.resume(out).run(InlineExecutor(), progress=False)
    assert (summary.already, summary.stored) == (24, 12)
    assert sorted(r["game_id"] for r in rows(out)) == sorted(s.game_id for s in league.specs)


def test_a_three_bot_free_for_all_league_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "ffa"
    bots = ["random", "greedy", "other=random"]
    league = League.prepare("bl", bots, out=out, games=12, seed=2, variants=["players=3"])
    assert league.config.players == 3 and len(league.specs) == 12
    summary = league.run(InlineExecutor(), progress=False, on_record=stop_after(6))
    assert summary.interrupted and summary.stored == 6
    first = rows(out)
    assert len({r["pair_id"] for r in first}) == 1 and len({r["seed"] for r in first}) == 1
    orders = sorted(tuple(r["bots"]) for r in first)
    assert orders == sorted(itertools.permutations(["greedy", "other", "random"]))
    summary = League.resume(out).run(InlineExecutor(), progress=False)
    assert (summary.already, summary.stored) == (6, 6)
    stored = rows(out)
    assert len(stored) == len({r["game_id"] for r in stored}) == 12
    for r in stored:
        assert r["players"] == 3 and r["teams"] == [0, 1, 2] and r["rated"]
        result = r["result"]
        assert sorted(result) in (  # the ranking formula's only
            [-1.0, 0.0, 1.0], [-0.5, -0.5, 1.0], [-1.0, 0.5, 0.5], [0.0, 0.0, 0.0])  # outcomes
        top = [s for s, x in enumerate(result) if x == max(result)]
        assert r["winner_seats"] == ([] if len(top) == 3 else top)
        assert (r["winner"] is None) == (len(top) > 1) == r["draw"]

    code, text = tourney("ratings", out, "--h2h", "--format", "json")
    assert code == 0, text
    data = json.loads(text)
    assert data["rated_games"] == 12
    board = {b["bot"]: b for b in data["leaderboard"]}
    assert set(board) == {"random", "greedy", "other"}
    assert all(b["games"] == 12 for b in board.values())
    assert data["leaderboard"][0]["bot"] == "greedy"
    wins = sum(b["wins"] for b in board.values())
    assert wins == sum(r["winner"] is not None for r in stored)
    h2h = {(h["bot"], h["opponent"]): h for h in data["h2h"]}
    assert len(h2h) == 6 and all(h["games"] == 12 for h in h2h.values())

    game = str(stored[0]["game_id"])
    code, text = tourney("replay", out, game[:9], "--no-boards")
    assert code == 0, text
    lines = text.splitlines()
    assert lines[0].startswith(f"game {game} (battleline") and "seat 2: " in lines[0]
    assert len([line for line in lines if ". seat " in line]) == stored[0]["decisions"]
    assert lines[-1].startswith("result: ")


def test_the_cli_plays_a_three_player_league_and_refuses_partial_sets(tmp_path: Path) -> None:
    out = tmp_path / "cli"
    code, text = tourney("league", "bl", "--variant", "players=3", "random", "greedy",
                         "r2=random", "--games", "6", "--out", out, "-j", "0", "-q")
    assert code == 0, text
    assert "6 of 6 scheduled games stored" in text
    code, text = tourney("league", "bl", "--variant", "players=3", "random", "greedy",
                         "r2=random", "--games", "8", "--out", tmp_path / "bad", "-j", "0")
    assert code == 2
    assert text.strip().splitlines() == [
        "tourney: error: --games counts games per triple in a 3-player league and must be a "
        "multiple of 6 (each deal is played with the seats in all 6 orders); got 8, use 6 or 12"]
    assert not (tmp_path / "bad").exists()
    code, text = tourney("league", "bl", "--variant", "players=3", "random", "greedy",
                         "--out", tmp_path / "two", "-j", "0")
    assert code == 2 and "at least 3 bots" in text
    code, text = tourney("gauntlet", "bl", "--variant", "players=3", "greedy", "random",
                         "r2=random", "r3=random", "--games", "6", "--out", tmp_path / "g",
                         "-j", "0", "-q")
    assert code == 0 and "18 of 18 scheduled" in text, text  # greedy with each of 3 pairs


def test_the_progress_bars_leader_counts_a_team_as_one_side() -> None:
    """In a 2-against-2 War Chest game each bot holds two seats of one team: a bot that won
    every game was shown winning half (its two seats tied for first, read as sides of their
    own). The leader counts the teams the game declares, from records and from stored rows."""
    from harness.league.service import _Leader
    from harness.match.referee import play_game
    from harness.records import BotRef, GameSpec, PackedRecord

    refs = tuple(BotRef(name, "greedy" if name == "strong" else "random")
                 for name in ("strong", "weak", "strong", "weak"))
    record = play_game(GameSpec("g", "warchest", {"players": "4"}, 3, refs))
    assert record.teams == [0, 1, 0, 1] and record.offender is None, record.reason
    winner = record.seats[record.returns.index(max(record.returns))]
    for seen in (record, PackedRecord.of(record)):
        leader = _Leader()
        for _ in range(3):
            leader.add(seen.seats, seen.returns, seen.teams)
        assert leader.text() == f"{winner} 100%"
    untold = _Leader()  # without the teams, as it was
    untold.add(record.seats, record.returns)
    assert untold.text() != f"{winner} 100%"
