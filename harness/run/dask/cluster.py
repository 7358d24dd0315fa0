"""A Dask scheduler and workers as local subprocesses on 127.0.0.1: for the tests, the
benchmark and trying a cluster out (:class:`LocalDaskProcesses`)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from distributed import Client

from harness.run.dask import ClusterError

if TYPE_CHECKING:
    pass



# --------------------------------------------------------------------------------------------
# A scheduler and workers as local subprocesses (tests, bench, trying it out)


PARENT_ENV = "TOURNEY_DASK_PARENT"  # set by LocalDaskProcesses for the preload hook below


def dask_setup(server: Any) -> None:
    """Dask preload hook (``--preload harness.run.dask.cluster``, ``--preload-nanny`` likewise).

    When :data:`PARENT_ENV` names a process id, a thread ends this process's whole group once
    that process is gone: the scheduler and workers :class:`LocalDaskProcesses` starts never
    outlive the program that started them, even one killed without a chance to clean up.
    """
    parent = os.environ.get(PARENT_ENV, "")
    if parent.isdigit():
        threading.Thread(target=_end_with_parent, args=(int(parent),), daemon=True,
                         name="tourney-parent-watch").start()


def _end_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os.killpg(os.getpgid(0), signal.SIGKILL)


class LocalDaskProcesses:
    """``dask scheduler`` and N ``dask worker`` processes on 127.0.0.1, torn down on exit.

    Ports are chosen by the OS (the scheduler writes its address to a scheduler file), nothing
    listens beyond the loopback interface, and each process runs in its own process group so
    :meth:`kill_worker` can SIGKILL a worker together with its nanny. The processes end by
    themselves if this process dies without closing them (:func:`dask_setup`).
    """

    def __init__(self, workers: int = 2, *, threads: int = 1, directory: Path | None = None,
                 startup_timeout: float = 60.0, config: dict[str, str] | None = None) -> None:
        self.n_workers = workers
        self.config = dict(config or {})  # dask settings, e.g. {"scheduler.allowed-failures": "0"}
        self.threads = threads
        self.startup_timeout = startup_timeout
        self._own_dir = directory is None
        self.directory = Path(tempfile.mkdtemp(prefix="tourney-dask-")) if directory is None \
            else directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []
        self.address = ""

    # -- lifecycle

    def start(self) -> LocalDaskProcesses:
        try:
            self.start_scheduler()
            for _ in range(self.n_workers):
                self.add_worker()
            self.wait_for_workers(self.n_workers)
        except BaseException:
            self.close()
            raise
        return self

    def start_scheduler(self) -> str:
        """Start a scheduler on a free loopback port; returns its address."""
        sched_file = self.directory / f"scheduler-{uuid.uuid4().hex[:6]}.json"
        self.scheduler = self._spawn("scheduler", [
            "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
            "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(sched_file),
            "--preload", __name__,
        ])
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if sched_file.is_file():
                with contextlib.suppress(ValueError, KeyError):
                    self.address = str(json.loads(sched_file.read_text())["address"])
                    return self.address
            self._check_alive(self.scheduler, "scheduler")
            if time.monotonic() > deadline:
                raise ClusterError(f"dask scheduler did not start within "
                                   f"{self.startup_timeout:.0f} s; see {self.directory}")
            time.sleep(0.05)

    def add_worker(self) -> subprocess.Popen[bytes]:
        """Start one more worker process (1 process, ``threads`` threads) on loopback."""
        n = len(self.workers)
        proc = self._spawn(f"worker-{n}", [
            "worker", self.address, "--host", "127.0.0.1", "--nworkers", "1",
            "--nthreads", str(self.threads), "--no-dashboard", "--name", f"w{n}",
            "--local-directory", str(self.directory / f"worker-{n}"),
            "--death-timeout", "60", "--preload-nanny", __name__,
        ])
        self.workers.append(proc)
        return proc

    def wait_for_workers(self, n: int) -> None:
        """Block until ``n`` workers are registered (bounded by the startup timeout)."""
        deadline = time.monotonic() + self.startup_timeout
        with Client(  # type: ignore[no-untyped-call]  # distributed's __init__ is untyped
                self.address, timeout="10s", set_as_default=False) as client:
            while len(client.scheduler_info(n_workers=-1)["workers"]) < n:
                for i, proc in enumerate(self.workers):
                    if proc.poll() is None:
                        continue
                    self._check_alive(proc, f"worker-{i}")
                if time.monotonic() > deadline:
                    raise ClusterError(f"{n} dask workers did not join within "
                                       f"{self.startup_timeout:.0f} s; see {self.directory}")
                time.sleep(0.05)

    def kill_worker(self, index: int) -> None:
        """SIGKILL a worker and its nanny (its whole process group), as a crash would."""
        _kill_group(self.workers[index], signal.SIGKILL)

    def kill_scheduler(self) -> None:
        if self.scheduler is not None:
            _kill_group(self.scheduler, signal.SIGKILL)

    def close(self) -> None:
        """Stop every process (SIGTERM, then SIGKILL after a grace period)."""
        procs = [*self.workers, *([self.scheduler] if self.scheduler else [])]
        for proc in procs:
            _kill_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + 5.0
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _kill_group(proc, signal.SIGKILL)
                proc.wait()
            _kill_group(proc, signal.SIGKILL)  # leftovers of the group (resource tracker)
        if self._own_dir:
            import shutil

            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> LocalDaskProcesses:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # -- helpers

    def _spawn(self, label: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = (self.directory / f"{label}.log").open("wb")
        try:
            return subprocess.Popen(
                [sys.executable, "-m", "dask", *args], stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, cwd=self.directory, start_new_session=True,
                env={**os.environ, **self._config_env(), PARENT_ENV: str(os.getpid())},
            )
        finally:
            log.close()

    def _config_env(self) -> dict[str, str]:
        """``distributed`` settings as dask's environment variables (DASK_DISTRIBUTED__...)."""
        def var(key: str) -> str:
            return "DASK_DISTRIBUTED__" + "__".join(
                part.upper().replace("-", "_") for part in key.split("."))

        return {var(key): value for key, value in self.config.items()}

    def _check_alive(self, proc: subprocess.Popen[bytes], label: str) -> None:
        if proc.poll() is not None:
            tail = (self.directory / f"{label}.log").read_text(errors="replace")[-800:]
            raise ClusterError(f"dask {label} exited with status {proc.returncode}: {tail}")


def _kill_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)
