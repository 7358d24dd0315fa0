"""OpenSpiel's information-set MCTS as a tourney bot (both games, every variant).

An adapter, not a search of ours: each decision it deals a full state from the observation
(the engine's ``sample_state``), wraps it as an OpenSpiel state of
:mod:`games.interop.openspiel` and asks ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` for
an action index, which :mod:`games.interop.actions` turns back into the action string. The
search keys its nodes by the observation string (the games offer no information-state
string) and evaluates leaves with OpenSpiel's random rollouts. Needs the ``rl`` extra.

Run it like any bot file, sandboxed: ``tourney league battleline agents/openspiel_ismcts.py
random``. ``SIMULATIONS`` sets the search's budget per decision.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from games.interop import openspiel

SIMULATIONS = 40


class OpenSpielISMCTS:
    """One game's ISMCTS bot; ``start`` names the game and gives the seed."""

    def __init__(self) -> None:
        self._game: openspiel.TourneyGame | None = None
        self._rng = random.Random(0)
        self._np = np.random.RandomState(0)

    def start(self, info: dict[str, Any]) -> None:
        self._game = openspiel.load(info["game"], dict(info["variant"]))
        self._rng = random.Random(info["rng_seed"])
        self._np = np.random.RandomState(info["rng_seed"] % 2**32)

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        game = self._game
        if game is None:  # no start: the observation names the game and its variant
            game = self._game = openspiel.load(observation["game"],
                                               dict(observation["variant"]))
        state = openspiel.state_from_observation(game, observation, self._rng)
        bot = ismcts.ISMCTSBot(
            game, mcts.RandomRolloutEvaluator(1, self._np), uct_c=2.0,
            max_simulations=SIMULATIONS, random_state=self._np, use_observation_string=True)
        choice = game.rules.space.action(int(bot.step(state)))
        return choice if choice in legal_actions else self._rng.choice(legal_actions)
