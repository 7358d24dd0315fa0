"""Both games as OpenSpiel games: registered with pyspiel, their types declared as they are,
passing OpenSpiel's random-simulation checks; its ISMCTS plays a tourney league through the
adapter bot."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from games import registry
from games.interop import openspiel
from games.interop.tensors import encoder

ROOT = Path(__file__).resolve().parents[2]
TOURNEY = str(Path(sys.executable).parent / "tourney")

LOADS = ["python_tourney_battleline", "python_tourney_battleline(players=3)",
         "python_tourney_battleline(rules=no-tactics)",
         "python_tourney_battleline(rules=advanced,players=3)",
         "python_tourney_battleline(rules=schotten-totten)", "python_tourney_warchest",
         "python_tourney_warchest(setup=draft,royal-guard=original)",
         "python_tourney_warchest(players=4)"]


@pytest.mark.parametrize("name", LOADS)
def test_openspiel_random_simulation_checks_pass(name: str) -> None:
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_the_types_declare_chance_and_imperfect_information() -> None:
    for short in openspiel.SHORT_NAMES.values():
        game_type = pyspiel.load_game(short).get_type()
        assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
        assert not game_type.provides_information_state_string
        assert game_type.provides_observation_tensor


def test_the_deal_is_the_one_chance_node_and_the_observation_the_seats() -> None:
    game = pyspiel.load_game("python_tourney_battleline(rules=no-tactics)")
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == openspiel.DEALS
    state.apply_action(7)
    engine = registry.get("battleline").new_game(7, rules="no-tactics")
    assert str(state) == str(engine)
    rng = random.Random(1)
    enc = encoder("battleline", {"players": "2"})
    while not state.is_terminal():
        assert not state.is_chance_node()
        seat = state.current_player()
        assert json.loads(state.observation_string(seat)) == engine.observation(seat)
        assert np.array_equal(np.asarray(state.observation_tensor(seat)),
                              enc.encode(engine.observation(seat)))
        action = rng.choice(state.legal_actions())
        engine.apply(state.action_to_string(seat, action))
        state.apply_action(action)
    assert state.returns() == engine.returns()
    assert sum(state.returns()) == 0


def test_resampling_keeps_the_seats_observation() -> None:
    game = pyspiel.load_game("python_tourney_warchest")
    state = game.new_initial_state()
    state.apply_action(3)
    for _ in range(12):
        state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    sampled = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert sampled.observation_string(seat) == state.observation_string(seat)


def test_openspiel_ismcts_plays_a_tourney_league(tmp_path: Path) -> None:
    """The adapter bot runs sandboxed like any bot file and its games are rated."""
    out = tmp_path / "league"
    subprocess.run([TOURNEY, "league", "bl", str(ROOT / "agents" / "openspiel_ismcts.py"),
                    "random", "--games", "2", "--out", str(out), "--seed", "4",
                    "--variant", "rules=no-tactics", "--quiet", "--workers", "1",
                    "--move-time", "5"], check=True, capture_output=True, text=True)
    ratings = subprocess.run([TOURNEY, "ratings", str(out), "--format", "json"], check=True,
                             capture_output=True, text=True)
    board = {row["bot"]: row for row in json.loads(ratings.stdout)["leaderboard"]}
    assert board["openspiel_ismcts"]["games"] == 2
    assert board["openspiel_ismcts"]["forfeits"] == 0
