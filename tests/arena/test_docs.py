"""docs/arena.md's examples run: every ```sh block, in order, in one folder holding the clone's
``agents/``, with this environment's ``tourney`` on PATH."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.patience import patience

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "arena.md"


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)


def test_every_example_of_the_arena_manual_runs(tmp_path: Path) -> None:
    blocks = sh_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 3
    (tmp_path / "agents").symlink_to(ROOT / "agents")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for block in blocks:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=patience(600))
        assert done.returncode == 0, (block, done.stdout[-2000:], done.stderr[-2000:])
    assert (tmp_path / "club.html").stat().st_size > 0
    assert (tmp_path / "results" / "club" / "final" / "stage.json").is_file()
