"""docs/serve.md's examples run: every ```sh block, in order, in one folder, with this
environment's ``tourney`` on PATH and the server on a free port instead of 8000."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.patience import patience

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "serve.md"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_every_example_of_the_competition_manual_runs(tmp_path: Path) -> None:
    blocks = re.findall(r"^```sh\n(.*?)^```", DOC.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert len(blocks) >= 5
    port = str(free_port())
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    outputs = []
    try:
        for block in blocks:
            block = block.replace("8000", port)
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path,
                                  env=env, capture_output=True, text=True,
                                  timeout=patience(300), stdin=subprocess.DEVNULL)
            assert done.returncode == 0, (block, done.stdout[-2000:], done.stderr[-2000:])
            outputs.append(done.stdout)
    finally:
        subprocess.run(["pkill", "-KILL", "-f", f"serve results/contest --game battleline "
                                                f"--port {port}"], check=False)
    log = (tmp_path / "serve.log").read_text()
    assert f"serving on http://127.0.0.1:{port}" in log and "organiser token" in log
    assert "stopped; the same command continues the competition" in log
    assert "invitation link" in outputs[1] and "alice: token tny_" in outputs[1]
    assert outputs[2].startswith("ended 0 sessions")
    assert "alice.v1 is active" in outputs[4]
    assert "log_mb_per_entrant: 100" in outputs[5] and "log_mb_total: 1000" in outputs[5]
    # a bot in another language (Node.js): built on the server, checked, and playing
    assert "ok   build `mkdir -p out" in outputs[6] and "alice.v2 is active" in outputs[6]
    assert '"status":"active"' in outputs[7] and '"entrant":"bob"' in outputs[7]
    assert '"entrant":"bob","joined"' in outputs[7]  # bob's public page
    assert outputs[8] == ("deadline: 2099-12-01 18:00 UTC\nfinal: knockout among the top 8, "
                          "1 duplicate pair a meeting\nstate: open\n")
    assert outputs[9].startswith("stopped the server of results/contest (pid ")
    assert "alice" in outputs[9] and (tmp_path / "final.html").stat().st_size > 0
