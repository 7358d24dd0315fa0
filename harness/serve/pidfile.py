"""Which server runs on a competition folder, and stopping it: ``tourney serve`` holds a lock
on ``.serve.pid`` in the folder (its process id and address in it) for as long as it runs, and
``tourney serve-admin stop`` reads it and asks that process to stop as Ctrl-C would.

The lock (``flock``) is the proof that a server runs, not the file: a server killed with
``kill -9`` leaves the file behind, but the kernel releases its lock, so a stale file never
names a process that is not the server (nor stops a stranger that got its pid).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from harness.league.folder import ResultsFolder
from harness.serve.db import ServeError

PID_FILE = ".serve.pid"
STOP_SECONDS = 120.0  # how long `serve-admin stop` waits for the league to store its games


@dataclass(frozen=True)
class Running:
    pid: int
    url: str


class ServerLock:
    """The lock a running server holds on its folder (released when the process ends)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / PID_FILE
        self._file: IO[str] | None = None

    def acquire(self, url: str) -> None:
        """Take the folder, or refuse with the one line that says which server has it."""
        handle = open(self.path, "a+")  # noqa: SIM115 - held while the server runs
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            other = running(self.path.parent)
            who = f" (pid {other.pid}, {other.url})" if other else ""
            raise ServeError(f"a server already runs on {self.path.parent}{who}; stop it with "
                             f"tourney serve-admin stop {self.path.parent}") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n{url}\n")
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        self._file.close()  # the lock goes with the last descriptor
        self._file = None


def running(folder: Path) -> Running | None:
    """The server that holds ``folder`` now (None: none runs, whatever file is left)."""
    try:
        handle = open(folder / PID_FILE)  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            lines = handle.read().splitlines()
            try:
                return Running(int(lines[0]), lines[1] if len(lines) > 1 else "")
            except (IndexError, ValueError):
                return Running(0, "")  # being written this instant
        return None  # nobody holds it: a file left by a killed server


def stop(folder: Path, timeout: float = STOP_SECONDS) -> Running:
    """Ask the server of ``folder`` to stop (SIGTERM: it finishes the requests in hand and the
    league stores the games in hand) and wait until it has; refuse when none runs."""
    if not ResultsFolder(folder).holds_league():
        raise ServeError(f"{folder} is not a competition; give the folder you ran "
                         f"tourney serve on", 404)
    found = running(folder)
    if found is None or found.pid <= 0:
        raise ServeError(f"no server runs on {folder}: nothing to stop", 404)
    with contextlib.suppress(ProcessLookupError):
        os.kill(found.pid, signal.SIGTERM)
    end = time.monotonic() + timeout
    while running(folder) is not None:
        if time.monotonic() > end:
            raise ServeError(f"the server (pid {found.pid}) did not stop within {timeout:g} s; "
                             f"look at its output, or end it with kill -9 {found.pid} (nothing "
                             f"stored is lost)", 504)
        time.sleep(0.1)
    return found
