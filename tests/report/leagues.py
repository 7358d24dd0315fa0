"""Data for the report tests: a results folder of three-player Battle Line games, and Elo
columns in the ratings.

Leagues seat pairings only, so the three-player games are played here by the referee (built-in
bots, real engine) and stored through the results store, exactly as a league stores its games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from games import registry
from harness.league import ratings
from harness.league.config import LeagueConfig
from harness.league.store import ResultsStore
from harness.match.referee import play_game
from harness.records import BotRef, GameSpec

BOTS = (BotRef("random", "random"), BotRef("greedy", "greedy"), BotRef("lazy", "random"))
VARIANT = {"players": "3", "rules": "standard"}


def battleline3(folder: Path, games: int = 2) -> Path:
    """``folder`` holding ``games`` three-player Battle Line games (seats rotated)."""
    config = LeagueConfig(name=folder.name, game="battleline", variant=VARIANT,
                          rules_version=registry.get("battleline").info.rules_version, seed=3,
                          games_per_pair=games, bots=list(BOTS), players=3)
    with ResultsStore.open(folder, config) as store:
        for i in range(games):
            seats = BOTS[i % 3:] + BOTS[:i % 3]
            spec = GameSpec(f"g3p{i:02d}", "battleline", VARIANT, 100 + i, seats,
                            pair_id=f"p{i}", league=folder.name)
            store.add(play_game(spec))
        store.flush()
    return folder


def with_elo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `tourney ratings --format json` print Elo columns, some of them unbounded or
    missing, as a fitted Elo interval may be (the report must show whatever columns it gets)."""
    plain = ratings.leaderboard_rows

    def rows(board: Any) -> list[dict[str, Any]]:
        out = plain(board)
        for i, row in enumerate(out):
            row["elo"] = 100.0 - 50 * i
            row["elo_low"] = float("-inf") if i == len(out) - 1 else 40.0 - 50 * i
            row["elo_high"] = None if i == 0 else 160.0 - 50 * i
        return out

    monkeypatch.setattr(ratings, "leaderboard_rows", rows)

