"""Test data for the report: Elo columns in the ratings with unbounded and missing figures;
and the replays a report holds, read back from its page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.league import verdicts


def with_elo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `tourney ratings --format json` print Elo columns, some of them unbounded or
    missing, as a fitted Elo interval may be (the report must show whatever columns it gets)."""
    plain = verdicts.leaderboard_rows

    def rows(rated: Any) -> list[dict[str, Any]]:
        out = plain(rated)
        for i, row in enumerate(out):
            row["elo"] = 100.0 - 50 * i
            row["elo_low"] = float("-inf") if i == len(out) - 1 else 40.0 - 50 * i
            row["elo_high"] = None if i == 0 else 160.0 - 50 * i
        return out

    monkeypatch.setattr(verdicts, "leaderboard_rows", rows)



def page_replays(path: Path) -> dict[str, Any]:
    """The replays a report holds, by game id: each packed on its own in ``#replay-ID``."""
    from harness.figures.report.render import unpack

    found = re.findall(r'<script type="application/octet-stream" id="replay-([^"]+)">([^<]*)'
                       r'</script>', path.read_text())
    return {game_id: unpack(blob) for game_id, blob in found}
