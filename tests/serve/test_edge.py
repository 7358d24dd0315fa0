"""The server at the network's edge, as `tourney serve` runs it: idle and slow connections are
closed, a flood of them cannot lock the leaderboard out or fill the process's descriptors, and a
failure that repeats is logged once with a count, not once each time (issue 45, point 3)."""

from __future__ import annotations

import logging
import os
import resource
import socket
from pathlib import Path

import httpx

from harness.serve.edge import Once
from tests.patience import patience
from tests.serve.conftest import start_server

FILES = 512  # the server's descriptor limit in these tests (soft and hard)


def few_files() -> None:
    """In the server's process before it starts: a low limit on open files, which a flood of
    idle connections would fill in a moment."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))


def host_port(url: str) -> tuple[str, int]:
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    return host, int(port)


def open_idle(url: str, count: int) -> list[socket.socket]:
    """``count`` connections that never send a byte."""
    sockets = []
    for _ in range(count):
        s = socket.create_connection(host_port(url), timeout=patience(30))
        sockets.append(s)
    return sockets


def closed_by_server(s: socket.socket, within: float) -> bool:
    """Whether the server closes ``s`` (end of file or a reset) within ``within`` seconds."""
    s.settimeout(within)
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def test_a_flood_of_idle_connections_leaves_the_leaderboard_answering(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    log = tmp_path / "serve.log"
    served = start_server(folder, "--game", "battleline", "--header-timeout", "3", log=log,
                          preexec_fn=few_files)
    idle: list[socket.socket] = []
    try:
        assert "note: at most 288 connections at once" in log.read_text()
        # more connections that never speak than the server may open files
        idle = open_idle(served.url, FILES + 200)
        most = open_files(served.process.pid)
        for _ in range(3):
            r = httpx.get(served.url + "/api/leaderboard", timeout=patience(30))
            assert r.status_code == 200 and r.json()["game"] == "battleline"
            most = max(most, open_files(served.process.pid))
        assert most < FILES, most
        # the newest idle ones are closed at their header deadline (the oldest made way before)
        assert closed_by_server(idle[-1], patience(30))
        # a request sent a byte at a time is closed at the same deadline
        slow = socket.create_connection(host_port(served.url), timeout=10)
        slow.sendall(b"GET /api/leaderboard HTTP/1.1\r\nHost: x\r\n")
        assert closed_by_server(slow, patience(30))
        slow.close()
        assert served.process.poll() is None
        text = log.read_text()
        assert len(text) < 4000, text[-4000:]
        assert "Traceback" not in text and "Too many open files" not in text, text
    finally:
        for s in idle:
            s.close()
        out = served.stop()
    assert "stopped; the same command continues" in out, out[-3000:]


def test_a_stalled_body_is_closed_and_garbage_is_logged_once(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    log = tmp_path / "serve.log"
    served = start_server(folder, "--game", "battleline", "--body-timeout", "2", log=log)
    try:
        stalled = socket.create_connection(host_port(served.url), timeout=10)
        stalled.sendall(b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-"
                        b"form-urlencoded\r\nContent-Length: 1000\r\n\r\ntoken=")
        assert closed_by_server(stalled, patience(30))
        stalled.close()
        for _ in range(200):  # each one a warning of uvicorn's, every time
            with socket.create_connection(host_port(served.url), timeout=10) as s:
                s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
                s.settimeout(patience(10))
                assert s.recv(200).startswith(b"HTTP/1.1 400")
        r = httpx.get(served.url + "/api/leaderboard", timeout=patience(30))
        assert r.status_code == 200
        text = log.read_text()
        assert text.count("Invalid HTTP request received") == 1, text
    finally:
        out = served.stop()
    # what was counted is said when the server stops
    assert "repeated: Invalid HTTP request received. (199 more since it was logged)" in out, out


def test_a_repeated_failure_is_one_line_a_minute() -> None:
    clock = [0.0]
    once = Once(60.0, clock=lambda: clock[0])
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    logger = logging.getLogger("tests.edge.once")
    logger.propagate = False
    logger.addHandler(Keep())
    logger.addFilter(once)
    error = OSError(24, "Too many open files")
    for _ in range(10_000):
        logger.error("socket.accept() out of system resource\nsocket: <fd=3>",
                     exc_info=(OSError, error, None))
    logger.warning("another cause")
    assert len(lines) == 2 and lines[0].startswith("socket.accept() out of system resource")
    clock[0] = 61.0
    logger.error("socket.accept() out of system resource\nsocket: <fd=3>",
                 exc_info=(OSError, error, None))
    assert lines[-1] == ("socket.accept() out of system resource: [Errno 24] Too many open "
                         "files (and 9999 more like it in the last 60 s)")
    assert once.pending() == []
    logger.warning("another cause")
    logger.warning("another cause")
    assert once.pending() == ["another cause (1 more since it was logged)"]


def test_wrong_edge_options_get_one_line(tmp_path: Path) -> None:
    from tests.serve.conftest import tourney

    r = tourney("serve", tmp_path / "c", "--game", "battleline", "--max-connections", "3")
    assert r.returncode == 2 and "--max-connections" in r.stderr
    r = tourney("serve", tmp_path / "c", "--game", "battleline", "--trusted-proxy", "proxy")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "not an IP address or network" in r.stderr
