"""The load test of `tourney serve` (bench/serve.py) in small: a real server on loopback,
a league playing, pollers and uploaders at once for a few seconds. It checks behaviour, never
speed: every answer is a leaderboard or an upload's 202 or 429, and nothing fails."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from bench import serve
from tests.patience import patience


def test_the_server_answers_everyone_under_a_small_load(tmp_path: Path) -> None:
    # uploads every 0.5 s: more than the 6 a minute an entrant may send, so 429s may come
    result = serve.measure(5.0, pollers=10, uploaders=2, upload_every=0.5, root=tmp_path,
                           start_timeout=patience(60), request_timeout=patience(60),
                           first_game_timeout=patience(120))
    tail = result.log_tail
    assert not result.overran, tail
    assert result.first_game >= result.checked > 0
    # the leaderboard: every request answered, each a valid leaderboard with the seeds on it
    assert result.board.answered > 0
    assert set(result.board.status) == {200}, (result.board.status, tail)
    assert not result.board.failed, result.board.failed
    assert result.invalid == 0, result.invalid_examples
    # uploads: accepted or rate-limited, never more than 6 in a minute for one entrant
    assert result.uploads.answered > 0 and not result.uploads.failed, result.uploads.failed
    assert set(result.uploads.status) <= {202, 429}, (result.uploads.status, tail)
    assert result.uploads.status[202] >= 2  # each uploader's first upload at least
    assert all(0 < n <= 6 for n in result.accepted.values()), result.accepted
    assert len(result.accepted) == 2
    assert sum(result.versions.values()) == result.uploads.status[202]
    # the league played through it, and the server stopped as Ctrl-C stops it
    assert result.stored_games[0] > 0
    assert result.stored_games[1] >= result.stored_games[0]
    assert result.exit_code == 0 and not result.killed, tail
    assert not any(tmp_path.iterdir())  # the competition's folder is gone


def test_the_server_with_stored_games_answers_reads_and_a_flood(tmp_path: Path) -> None:
    result = serve.measure_games(4_000, seconds=2.0, pollers=4, root=tmp_path)
    tail = "\n".join(result.errors) or result.log_tail
    assert result.stored[0] == 4_000 and result.files >= 2
    for phase in (result.base, result.mix, result.flood):
        assert phase.board.answered > 0 and set(phase.board.status) == {200}, tail
        assert not phase.board.failed, phase.board.failed
    # each kind of read answered (a 429 only when a slow machine leaves more than 4 of an
    # account's requests under way at once)
    for kind in serve.KINDS:
        want = 404 if kind == "made-up id" else 200
        for calls in (result.kinds[kind], result.mixed[kind]):
            assert calls.status[want] > 0 and set(calls.status) <= {want, 429}, \
                (kind, calls.status, tail)
            assert not calls.failed, calls.failed
    # the flood: answered, and refused once over its account's limit
    assert set(result.flooded.status) <= {404, 429} and result.flooded.status[429] > 0
    assert result.exit_code == 0 and not result.killed, tail
    assert not any(tmp_path.iterdir())  # the copy is gone


def test_the_bench_prints_the_servers_errors_when_an_answer_was_5xx(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.serve import errors

    log = tmp_path / "serve.log"
    handler = logging.FileHandler(log)
    handler.setFormatter(logging.Formatter("error: %(message)s"))
    errors.log.addHandler(handler)

    async def failing(scope: Any, receive: Any, send: Any) -> None:
        raise FileNotFoundError(2, "No such file or directory", "games/batch-1.parquet")

    async def sent(message: Any) -> None:
        pass

    async def nothing() -> Any:
        return {"type": "http.request", "body": b""}

    app = errors.QuietErrors(failing)
    try:
        for _ in range(2):
            asyncio.run(app({"type": "http", "method": "GET", "path": "/api/leaderboard"},
                            nothing, sent))
    finally:
        errors.log.removeHandler(handler)
        handler.close()
    with log.open("a") as fh:
        fh.write("the league played a batch\n")  # not an error: left out
    lines = serve.server_errors(log)
    assert len([line for line in lines if line.startswith("error: ")]) == 2, lines
    assert lines[0].startswith("error: GET /api/leaderboard failed: FileNotFoundError")
    assert lines[1] == "Traceback (most recent call last):"
    assert any(line.startswith("FileNotFoundError:") for line in lines), lines
    assert "the league played a batch" not in lines
    result = serve.ScaleResult(1, log_tail="the end", errors=lines)
    result.flood.board.status[500] += 1
    serve.report_games(result, 1)
    out = capsys.readouterr().out
    assert "server errors: 1 answers 5xx" in out
    assert "    error: GET /api/leaderboard failed: FileNotFoundError" in out
    clean = serve.ScaleResult(1, log_tail="the end")
    serve.report_games(clean, 1)
    assert "server errors" not in capsys.readouterr().out
