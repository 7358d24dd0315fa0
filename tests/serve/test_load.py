"""The load test of `tourney serve` (harness/bench/serve.py) in small: a real server on loopback,
a league playing, pollers and uploaders at once for a few seconds. It checks behaviour, never
speed: every answer is a leaderboard or an upload's 202 or 429, and nothing fails."""

from __future__ import annotations

from pathlib import Path

from harness.bench import serve
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
    tail = result.log_tail
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
