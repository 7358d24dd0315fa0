"""In-process bots get a lazy observation: same content, computed on demand, never stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games import registry
from harness.match.observation import LazyObservation, ObservationExpired
from harness.match.referee import play_game
from harness.records import BotRef, GameSpec, Termination


def test_lazy_observation_equals_the_full_one_at_every_decision() -> None:
    game = registry.get("battleline")
    state = game.new_game(5)
    while not state.is_terminal():
        seat = state.current_player
        view = LazyObservation(state, seat, len(state.history))
        full = state.observation(seat)
        assert dict(view) == full
        assert view["hand"] == full["hand"] and view.get("nope", 3) == 3 and "flags" in view
        assert len(view) == len(full)
        json.dumps(dict(view))
        state.apply(state.legal_actions()[0])


def test_a_view_first_read_after_its_decision_raises_a_clear_error() -> None:
    game = registry.get("battleline")
    state = game.new_game(1)
    read = LazyObservation(state, state.current_player, 0)
    assert read["decisions"] == 0
    unread = LazyObservation(state, state.current_player, 0)
    state.apply(state.legal_actions()[0])
    assert read["decisions"] == 0  # read in time: it keeps what it showed
    with pytest.raises(ObservationExpired, match="decision 0 was first read after"):
        unread["hand"]


def test_a_bot_reading_a_stale_observation_crashes_with_the_reason(tmp_path: Path) -> None:
    bot = tmp_path / "hoarder.py"
    bot.write_text(
        "class Hoarder:\n"
        "    def __init__(self):\n        self.kept = []\n"
        "    def act(self, observation, legal_actions):\n"
        "        if self.kept:\n            self.kept[-1]['hand']\n"
        "        self.kept.append(observation)\n        return legal_actions[0]\n")
    seats = (BotRef("h", f"inproc:{bot}"), BotRef("r", "random"))
    record = play_game(GameSpec("g", "battleline", {}, 3, seats))
    assert record.termination is Termination.CRASH
    assert record.offender == 0
    assert "ObservationExpired" in record.reason and "inside act()" in record.reason


def test_in_process_and_full_observation_games_are_identical() -> None:
    """A greedy bot that reads every observation plays the same game either way."""
    seats = (BotRef("g", "greedy"), BotRef("r", "random"))
    lazy = play_game(GameSpec("g", "battleline", {}, 11, seats))
    sandboxed = play_game(GameSpec("g", "battleline", {}, 11,
                                   (BotRef("g", "sandbox:greedy"), BotRef("r", "sandbox:random"))))
    assert [m.action for m in lazy.moves] == [m.action for m in sandboxed.moves]
    assert lazy.returns == sandboxed.returns
