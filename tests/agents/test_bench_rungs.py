"""`make bench` prints each ladder rung's slowest decision and its headroom under the clock's
safety net at the move time the ladder gives that rung."""

from __future__ import annotations

import re

import pytest

from bench.mcts import positions, rungs_headroom
from harness.league.ladder import RUNGS


@pytest.mark.parametrize("game", ["battleline", "warchest"])
def test_the_bench_prints_every_rungs_slowest_decision_and_headroom(
        game: str, capsys: pytest.CaptureFixture[str]) -> None:
    rungs_headroom(game, positions(game, {}, 1))
    out = capsys.readouterr().out
    names = [rung.partition("=")[0] if "=" in rung.partition(":")[0] else rung
             for rung in (r.partition("@")[0] for r in RUNGS)]
    for name in names:
        line = next(line for line in out.splitlines() if f"rung {name} slowest" in line)
        found = re.search(r"slowest decision: ([\d,.]+) ms .*headroom ([\d,.]+)x", line)
        assert found, line
        assert float(found.group(2).replace(",", "")) > 0
    assert "its 4 s move time" in next(line for line in out.splitlines() if "mcts-x4" in line)
