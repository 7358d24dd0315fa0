"""`tourney serve-admin stop`: a running server stopped from another terminal, as Ctrl-C would
stop it; one clear line when no server runs; a second server on the same folder refused."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.patience import patience
from tests.serve.conftest import start_server, tourney


def test_serve_admin_stop_stops_the_server_cleanly_and_says_when_none_runs(
        tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    served = start_server(folder, "--game", "battleline", "--seed", "5")
    try:
        again = tourney("serve", folder, "--port", "0")
        assert again.returncode == 2
        assert again.stderr.strip().splitlines()[-1] == (
            f"tourney: error: a server already runs on {folder} (pid {served.process.pid}, "
            f"{served.url}); stop it with tourney serve-admin stop {folder}")

        stopped = tourney("serve-admin", "stop", folder, timeout=180)
        assert stopped.returncode == 0, stopped.stderr
        assert stopped.stdout == (f"stopped the server of {folder} (pid {served.process.pid}, "
                                  f"{served.url})\n")
        # it has stopped, cleanly, by the time the command returns
        assert served.process.wait(patience(30)) == 0
        log = served.output.read_text()
        assert "the league stores the games in hand" in log
        assert log.rstrip().endswith("stopped; the same command continues the competition")
        assert not (folder / ".serve.pid").exists()
    finally:
        served.stop()

    nothing = tourney("serve-admin", "stop", folder, timeout=180)
    assert nothing.returncode == 2
    assert nothing.stdout == ""
    assert nothing.stderr == f"tourney: error: no server runs on {folder}: nothing to stop\n"

    # a server killed with kill -9 leaves its file, but no lock: nothing runs, nothing is hit
    served = start_server(folder)
    try:
        os.kill(served.process.pid, signal.SIGKILL)
        served.process.wait(patience(30))
        assert (folder / ".serve.pid").exists()
        stale = tourney("serve-admin", "stop", folder, timeout=180)
        assert stale.returncode == 2
        assert "no server runs on" in stale.stderr
        # and the next start takes the folder again
        restarted = start_server(folder)
        assert tourney("serve-admin", "stop", folder, timeout=180).returncode == 0
        assert restarted.process.wait(patience(30)) == 0
    finally:
        served.stop()

    elsewhere = tourney("serve-admin", "stop", tmp_path / "nothing-here")
    assert elsewhere.returncode == 2
    assert "is not a competition" in elsewhere.stderr
