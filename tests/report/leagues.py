"""Test data for the report: Elo columns in the ratings with unbounded and missing figures."""

from __future__ import annotations

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

