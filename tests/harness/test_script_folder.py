"""A league run from a script (or a notebook) in the organiser's own folder: the folder Python
puts first on ``sys.path`` is the organiser's working folder, not the Python environment, so
the sandbox neither shows it to bots (it holds the results, whose league.json has the secret
key) nor fails to cover a results folder inside it (every game was a crash: "bwrap: Can't
mkdir ... Read-only file system")."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness.league import store
from tests.patience import patience

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys
from harness import api
summary = api.league("battleline", ["random", "mybot.py"], "results/notebook", games=2,
                     seed=1, workers=1)
print(json.dumps({"stored": summary.stored, "forfeits": dict(
    (f"{k[0]}:{k[1]}", v) for k, v in summary.forfeits.counts.items())}))
"""

SNOOP = """
import os

def act(observation, legal_actions):
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("script.py", "results", "secret.txt"):
        for folder in ("/tourney/path1", "/tourney/path2", here):
            if os.path.exists(os.path.join(folder, name)):
                raise RuntimeError(f"saw {name} in {folder}")
    return legal_actions[0]
"""


def test_a_league_from_a_script_in_the_organisers_folder(tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="tourney-script-"))
    try:
        folder.chmod(0o755)  # the sandbox's user reads the bot file here
        (folder / "script.py").write_text(SCRIPT)
        (folder / "mybot.py").write_text(SNOOP)
        (folder / "secret.txt").write_text("the organiser's")
        done = subprocess.run([sys.executable, "script.py"], cwd=folder, capture_output=True,
                              text=True, timeout=patience(120),
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr
        assert '"stored": 2' in done.stdout and '"forfeits": {}' in done.stdout, done.stdout
        rows = store.load_games([folder / "results" / "notebook"]).games.to_pylist()
        assert [r["termination"] for r in rows if r["termination"] == "crash"] == []
    finally:
        shutil.rmtree(folder, ignore_errors=True)
