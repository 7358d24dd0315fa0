"""Fixtures for the harness tests: the toy game registered for the duration of a test, and
after every test, the check that no process of a game it played is left."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games import registry
from harness.bots import jail, starter
from tests.harness import toygame
from tests.harness.leftovers import Jails
from tests.patience import patience


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


@pytest.fixture(autouse=True)
def jails(monkeypatch: pytest.MonkeyPatch) -> Iterator[Jails]:
    """Every jail this process starts during the test (:class:`Jails`); after the test, none of
    their processes may be left (a test may also ask earlier, through this fixture)."""
    watched = Jails()
    reported = jail.Jail.namespaces
    forked = starter.ForkedBot.namespaces

    def namespaces(self: jail.Jail, timeout: float) -> dict[str, Any]:
        found = reported(self, timeout)
        if not self.forking:  # the start-up server outlives games: it is the process's
            watched.add(self.info)
        return found

    def forked_namespaces(self: starter.ForkedBot) -> dict[str, bool]:
        watched.add(self.info)
        return forked(self)

    monkeypatch.setattr(jail.Jail, "namespaces", namespaces)
    monkeypatch.setattr(starter.ForkedBot, "namespaces", forked_namespaces)
    try:
        yield watched
        left = watched.left(patience(10))
        assert not left, f"processes of a game outlived it: {left}"
    finally:
        watched.close()
