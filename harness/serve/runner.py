"""The server's two kinds of worker processes: the living league that plays (``tourney arena
run``, one, restarted if it dies, stopped while the organiser pauses) and the entry checks of
uploads (one at a time, started the moment an upload is accepted, so an entrant hears within
seconds whether the bot was admitted rather than when the league next looks at its field).

Both are separate processes, never threads of the server: a bot's game hardens and forks the
process that plays it, which a web server must not be. Each child asks the kernel to stop it
when the server dies (``PR_SET_PDEATHSIG``), so a server killed with ``kill -9`` leaves no
orphan holding the league's lock; a restart takes up where it stopped (the league's exactly-once
store and the registry's claims).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ARENA_LOG = "serve-arena.log"
CHECK_SECONDS = 600.0  # the longest an entry check may take before it is stopped
RESTART_SECONDS = 5.0  # a league that died is started again after this long


def wait_or_kill(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait for a child (its own process group) to end; past ``timeout``, kill the group."""
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def child_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness.serve.child", str(os.getpid()), *args]


class ArenaProcess:
    """``tourney arena run FOLDER`` as a child process the server starts, stops and restarts."""

    def __init__(self, folder: Path, options: Sequence[str] = ()) -> None:
        self.folder = folder
        self.options = list(options)
        self._proc: subprocess.Popen[bytes] | None = None
        self._want = False
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._watch: threading.Thread | None = None
        self.restarts = 0

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        with self._lock:
            self._want = True
            self._spawn()
        if self._watch is None:
            self._watch = threading.Thread(target=self._watchdog, daemon=True,
                                           name="arena-watchdog")
            self._watch.start()

    def _spawn(self) -> None:
        if self.running:
            return
        log = open(self.folder / ARENA_LOG, "ab")  # noqa: SIM115 - the child owns it
        try:
            self._proc = subprocess.Popen(
                child_command("arena", str(self.folder), *self.options),
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        finally:
            log.close()

    def stop(self, timeout: float = 60.0) -> None:
        """Stop playing (SIGTERM: the league finishes its game in hand, stores, exits)."""
        with self._lock:
            self._want = False
            proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        wait_or_kill(proc, timeout)

    def close(self) -> None:
        self._closed.set()
        self.stop()

    def _watchdog(self) -> None:
        while not self._closed.wait(1.0):
            with self._lock:
                died = self._want and self._proc is not None and self._proc.poll() is not None
            if died:
                self._closed.wait(RESTART_SECONDS)
                with self._lock:
                    if self._want and not self._closed.is_set() and not self.running:
                        self.restarts += 1
                        self._spawn()


class Checker:
    """Entry checks of uploaded versions, one at a time, each in a child process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="entry-check")
        self._queued: set[str] = set()
        self._lock = threading.Lock()

    def submit(self, bot: str) -> None:
        with self._lock:
            if bot in self._queued:
                return
            self._queued.add(bot)
        self._pool.submit(self._run, bot)

    def _run(self, bot: str) -> None:
        try:
            with open(self.folder / ARENA_LOG, "ab") as log:
                proc = subprocess.Popen(child_command("check", str(self.folder), bot),
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                        start_new_session=True)
                wait_or_kill(proc, CHECK_SECONDS)
        finally:
            with self._lock:
                self._queued.discard(bot)

    def idle(self) -> bool:
        with self._lock:
            return not self._queued

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def wait_idle(checker: Checker, timeout: float) -> bool:
    """Whether the checker finished its queue within ``timeout`` seconds (tests, shutdown)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if checker.idle():
            return True
        time.sleep(0.05)
    return checker.idle()
