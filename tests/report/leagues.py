"""A results folder of three-player Battle Line games for the viewer tests.

Leagues seat pairings only, so the games are played here by the referee (built-in bots, real
engine) and stored through the results store, exactly as a league stores its games.
"""

from __future__ import annotations

from pathlib import Path

from games import registry
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
