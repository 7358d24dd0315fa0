"""The strength duel (``python -m bench.mcts duel``) is a thin client of the league
(issue 29, item 6): the same deals, pairs and seats as ``tourney league --seed``, read with the
pair statistics of ``tourney ratings --pairs``, and its line states the pair interval and the
load it was measured under."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.dataset as ds
from typer.testing import CliRunner

from bench import mcts as bench
from harness.cli.app import app
from harness.league import store
from harness.stats.outcome import COLUMNS, Result
from harness.stats.pairs import pair_stats


def _games(folder: Path) -> list[tuple[str, tuple[str, ...], tuple[float, ...]]]:
    table = ds.dataset(folder / "games").to_table(columns=["game_id", "bots", "result"])
    return sorted((g, tuple(b), tuple(r)) for g, b, r in zip(
        *(table.column(c).to_pylist() for c in ("game_id", "bots", "result")), strict=True))


def test_the_duel_is_the_league_with_its_pair_statistics(tmp_path: Path) -> None:
    duel = bench.duel("battleline", {}, "greedy", "greedy:p=0.5", games=12, seed=6000,
                      out=tmp_path / "duel")
    done = CliRunner().invoke(app, ["league", "battleline", "a=greedy", "b=greedy:p=0.5",
                                    "--games", "12", "--seed", "6000", "--out",
                                    str(tmp_path / "league"), "--workers", "0", "-q"])
    assert done.exit_code == 0, done.output
    assert _games(tmp_path / "duel") == _games(tmp_path / "league")  # the same games, played
    rows = store.load_games([tmp_path / "league"]).games.select(COLUMNS).to_pylist()
    assert duel.stats == pair_stats([Result.from_row(r) for r in rows], "a", "b")
    assert duel.stats.pairs == 6 and duel.stats.games == 12
    line = duel.line("battleline", {}, "greedy", "greedy:p=0.5")
    s = duel.stats.summary
    assert line.startswith(f"battleline greedy vs greedy:p=0.5: {s.score * 12:g}/12 points = "
                           f"{100 * s.score:.1f} % (95 % ")
    assert f"Elo {s.elo:+.0f} ({s.elo_low:+.0f} .. {s.elo_high:+.0f}); head to head, 6 " \
        "duplicate pairs)" in line
    assert re.search(r"on 1 worker\(s\), \d+ cores, load \d+\.\d -> \d+\.\d$", line), line
