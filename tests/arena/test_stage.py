"""`tourney arena final`: a Swiss or knockout stage over a living league's top bots, played,
stored and resumed like a league."""

from __future__ import annotations

from collections.abc import Generator, Iterable
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from harness.arena import living, stage
from harness.arena.registry import ArenaError
from harness.cli.app import app
from harness.records import GameRecord, GameSpec
from harness.run.local import InlineExecutor

runner = CliRunner()


def tourney(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("stage") / "club"
    assert tourney("arena", "new", folder, "--game", "battleline", "--seed", "9")[0] == 0
    for name, spec in (("r1", "random"), ("r2", "random"), ("g1", "greedy"),
                       ("g2", "greedy:p=0.3"), ("g3", "greedy:p=0.6")):
        assert tourney("arena", "add", folder, name, spec)[0] == 0
    living.Arena(folder, living.RunOptions(workers=0, stop_after=60, progress=False, seed=2,
                                           say=lambda line: None)).run()
    return folder


class Interrupted(InlineExecutor):
    """Plays ``limit`` games, then the user presses Ctrl-C."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def run(self, specs: Iterable[GameSpec]) -> Generator[GameRecord, None, None]:
        for record in super().run(specs):
            if self.limit == 0:
                raise KeyboardInterrupt
            self.limit -= 1
            yield record


def game_ids(folder: Path) -> list[str]:
    ids: list[str] = ds.dataset(folder / "games").to_table(columns=["game_id"]).column(
        "game_id").to_pylist()
    return ids


def test_a_swiss_final_seeded_from_the_arena_resumes_after_a_stop(arena: Path,
                                                                 tmp_path: Path) -> None:
    out = tmp_path / "swiss"
    with pytest.raises(KeyboardInterrupt):
        stage.play(arena, out, Interrupted(9), fmt="swiss", top=5, rounds=3, pairs=1,
                   say=lambda line: None)
    assert 0 < len(game_ids(out)) < 24
    rows = stage.play(arena, out, InlineExecutor(), say=lambda line: None)
    ids = game_ids(out)
    # 5 bots, 3 rounds: two meetings a round (one bye), one duplicate pair each
    assert len(ids) == len(set(ids)) == 3 * 2 * 2
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]
    assert sum(r.games for r in rows) == 2 * len(ids)
    # one bye each round, so match points add up to meetings + byes
    assert sum(r.match_points for r in rows) == pytest.approx(3 * 2 + 3)
    again = stage.play(arena, out, InlineExecutor(), say=lambda line: None)
    assert again == rows and len(game_ids(out)) == len(ids)  # nothing more to play


def test_a_knockout_final_from_the_command_line(arena: Path, tmp_path: Path) -> None:
    out = tmp_path / "ko"
    code, text = tourney("arena", "final", arena, "--top", "4", "--knockout", "--pairs", "1",
                         "--out", out, "--workers", "0")
    assert code == 0, text
    lines = [line for line in text.splitlines() if line[:1].isdigit()]
    assert len(lines) == 4
    seeds = [int(line.split()[2]) for line in lines]
    assert sorted(seeds) == [1, 2, 3, 4]
    code, text = tourney("ratings", out)
    assert code == 0, text
    with pytest.raises(ArenaError, match="two or more rated active bots"):
        stage.play(arena, tmp_path / "none", InlineExecutor(), top=1, say=lambda line: None)
    with pytest.raises(ArenaError, match="unknown format"):
        stage.play(arena, tmp_path / "bad", InlineExecutor(), fmt="league",
                   say=lambda line: None)
