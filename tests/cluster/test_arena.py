"""`tourney arena run --cluster`: a living league's waves on a real scheduler and two workers,
with a bot file given by a relative path the workers cannot see (it travels by hash)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from harness.cli.app import app
from harness.records import Termination
from harness.run.dask.cluster import LocalDaskProcesses

FIRST_BOT = '''"""Always the first legal action."""


def act(observation, legal_actions):
    return legal_actions[0]
'''

runner = CliRunner()


def test_a_living_league_runs_on_dask_as_a_league_does(
        cluster: LocalDaskProcesses, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("first.py").write_text(FIRST_BOT)
    for args in (["arena", "new", "club", "--game", "battleline", "--seed", "2"],
                 ["arena", "add", "club", "alice", "random"],
                 ["arena", "add", "club", "bob", "greedy"],
                 ["arena", "add", "club", "carol", "first.py"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["arena", "run", "club", "--cluster", cluster.address,
                                 "--stop-after", "24", "-q"])
    assert result.exit_code == 0, result.output
    rows = ds.dataset(Path("club") / "games").to_table(
        columns=["game_id", "bots", "termination"]).to_pylist()
    assert len(rows) >= 24 and len({r["game_id"] for r in rows}) == len(rows)
    assert not any(Termination(r["termination"]).is_forfeit for r in rows), rows
    assert any("carol.v1" in r["bots"] for r in rows)  # the file travelled to the workers
