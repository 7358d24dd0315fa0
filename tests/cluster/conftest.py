"""Fixtures: a real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1.

Ports are picked by the OS, nothing listens beyond loopback, startup is bounded and the
processes are always torn down (SIGTERM, then SIGKILL), even when a test fails.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.run.dask.cluster import LocalDaskProcesses


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDaskProcesses]:
    """A scheduler and two single-threaded workers shared by the tests that leave them be."""
    with LocalDaskProcesses(2, directory=tmp_path_factory.mktemp("dask")) as procs:
        yield procs


@pytest.fixture
def own_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalDaskProcesses]:
    """A scheduler and two workers for one test that may kill some of them."""
    with LocalDaskProcesses(2, directory=tmp_path_factory.mktemp("dask")) as procs:
        yield procs
