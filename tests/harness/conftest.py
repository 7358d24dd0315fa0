"""Fixtures for the harness tests: the toy game registered for the duration of a test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from games import registry
from tests.harness import toygame


@pytest.fixture
def toy() -> Iterator[str]:
    """Register the toy duel game (alias "toy", preset alias "toy3" = 3 players)."""
    registry.register_game(toygame.GAME, aliases={"toy": {}, "toy3": {"players": "3"}})
    yield toygame.INFO.name
    registry.unregister(toygame.INFO.name)


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory anyone may read, as a careless entrant's files would be (pytest's tmp_path
    is private to root, the user tests and CI run as)."""
    path = Path(tempfile.mkdtemp(prefix="tourney-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)
