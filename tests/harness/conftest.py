"""Fixtures for the harness tests: the toy game registered for the duration of a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games import registry
from tests.harness import toygame


@pytest.fixture
def toy() -> Iterator[str]:
    """Register the toy duel game (alias "toy", preset alias "toy3" = 3 players)."""
    registry.register_game(toygame.GAME, aliases={"toy": {}, "toy3": {"players": "3"}})
    yield toygame.INFO.name
    registry.unregister(toygame.INFO.name)
