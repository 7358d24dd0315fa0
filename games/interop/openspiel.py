"""Both games as OpenSpiel Python games, registered with ``pyspiel`` on import.

``pyspiel.load_game("python_tourney_battleline(rules=no-tactics,players=3)")`` or
``python_tourney_warchest(players=4)``: the parameters are the game's variant options
(``players`` a number, the others strings). What the types declare, and why it is honest:

* **chance**: explicit. The first node of every game is a chance node whose outcome is the deal
  (a uniform choice among :data:`DEALS` seeds); every later draw of either game follows from
  the deal, as in the engines, so there is no other chance node.
* **information**: imperfect. Observations (string and tensor) are a seat's JSON observation
  and :mod:`games.interop.tensors`; no information-state string or tensor is offered, since
  the observation does not keep a seat's whole history (an algorithm that needs one, e.g.
  information-set MCTS, runs on the observation string: ``use_observation_string=True``).
  ``resample_from_infostate`` deals a full state from the seat's observation through the
  engine's ``sample_state``.
* **utility**: zero-sum (every game's returns sum to 0: 1 win, -1 loss, 0 draw; three-player
  Battle Line ranks the seats 1, 0, -1; War Chest's teams share their team's result).
* **actions**: the indices of :mod:`games.interop.actions`.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyspiel

from games import registry
from games.interop.actions import ActionSpace, action_space
from games.interop.tensors import Encoder, encoder
from games.protocol import Game, State

#: Chance outcomes of the deal: deal ``k`` is the engine's game of seed ``k``.
DEALS: Final = 1 << 16
SHORT_NAMES: Final = {"battleline": "python_tourney_battleline",
                      "warchest": "python_tourney_warchest"}


def _game_type(name: str, game: Game) -> pyspiel.GameType:
    info = game.info
    return pyspiel.GameType(
        short_name=SHORT_NAMES[name],
        long_name=f"tourney {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(info.players),
        min_num_players=min(info.players),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        # numbers as numbers (players=3), the other options as strings
        parameter_specification={v.key: int(v.default) if v.default.isdigit() else v.default
                                 for v in info.variants},
    )


@dataclass(frozen=True, eq=False)
class Rules:
    """What a state needs of its game (kept on the state: OpenSpiel may hand a state a bare
    copy of the Python game object)."""

    engine: Game
    variant: dict[str, str]
    space: ActionSpace
    encoder: Encoder
    players: int

    def __deepcopy__(self, memo: dict[int, Any]) -> Rules:
        return self  # immutable: shared by every state of the game


class TourneyGame(pyspiel.Game):  # type: ignore[misc]
    """One of tourney's games with its variant as an OpenSpiel game."""

    def __init__(self, name: str, params: dict[str, Any] | None = None) -> None:
        engine = registry.get(name)
        variant = engine.info.resolve_variant({k: str(v) for k, v in (params or {}).items()})
        space = action_space(name, variant)
        game_info = pyspiel.GameInfo(
            num_distinct_actions=space.size, max_chance_outcomes=DEALS,
            num_players=int(variant.get("players", "2")), min_utility=-1.0, max_utility=1.0,
            utility_sum=0.0, max_game_length=engine.info.max_decisions + 1)
        super().__init__(_game_type(name, engine), game_info, dict(variant))
        self.rules = Rules(engine, variant, space, encoder(name, variant),
                           game_info.num_players)

    def new_initial_state(self) -> TourneyState:
        return TourneyState(self, self.rules)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Any = None) -> TourneyObserver:
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("tourney's OpenSpiel games offer observations, not information "
                             "states (perfect recall)")
        return TourneyObserver(self.rules)


class TourneyState(pyspiel.State):  # type: ignore[misc]
    """A tourney engine state behind OpenSpiel's state interface (before the deal: none)."""

    def __init__(self, game: pyspiel.Game, rules: Rules,
                 engine_state: State | None = None) -> None:
        super().__init__(game)
        self._rules = rules
        self.engine_state = engine_state

    def current_player(self) -> int:
        s = self.engine_state
        if s is None:
            return int(pyspiel.PlayerId.CHANCE)
        if s.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return s.current_player

    def _legal_actions(self, player: int) -> list[int]:
        s = self.engine_state
        assert s is not None and player == s.current_player
        return sorted(self._rules.space.indices(s.legal_actions()))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.engine_state is None
        p = 1.0 / DEALS
        return [(k, p) for k in range(DEALS)]

    def _apply_action(self, action: int) -> None:
        if self.engine_state is None:
            rules = self._rules
            self.engine_state = rules.engine.new_game(int(action), **rules.variant)
        else:
            self.engine_state.apply(self._rules.space.action(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return self._rules.space.action(action)

    def is_terminal(self) -> bool:
        return self.engine_state is not None and self.engine_state.is_terminal()

    def returns(self) -> list[float]:
        s = self.engine_state
        if s is None or not s.is_terminal():
            return [0.0] * self._rules.players
        return [float(r) for r in s.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TourneyState:
        """A full state dealt at random from ``player_id``'s observation (the engine's
        forward model), seeded from OpenSpiel's sampler."""
        s = self.engine_state
        if s is None:
            return TourneyState(self.get_game(), self._rules)
        seed = int(probability_sampler() * 2**31) if callable(probability_sampler) else 0
        sampled = self._rules.engine.sample_state(s.observation(player_id),
                                                    random.Random(seed))
        return TourneyState(self.get_game(), self._rules, sampled)

    def __deepcopy__(self, memo: dict[int, Any]) -> TourneyState:
        s = self.engine_state
        return TourneyState(self.get_game(), self._rules, None if s is None else s.clone())

    def __str__(self) -> str:
        return "(not dealt)" if self.engine_state is None else str(self.engine_state)


class TourneyObserver:
    """OpenSpiel's observer: a seat's JSON observation as tensor and string."""

    def __init__(self, rules: Rules) -> None:
        self._encoder = rules.encoder
        self.tensor = np.zeros(rules.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TourneyState, player: int) -> None:
        s = state.engine_state
        if s is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self._encoder.encode(s.observation(player))

    def string_from(self, state: TourneyState, player: int) -> str:
        s = state.engine_state
        if s is None:
            return "(not dealt)"
        return json.dumps(s.observation(player), sort_keys=True, separators=(",", ":"))


def load(game: str, variant: dict[str, str]) -> TourneyGame:
    """The OpenSpiel game of a tourney game (registry name or alias) and variant."""
    chosen, _ = registry.choose(game, variant)
    resolved = chosen.info.resolve_variant(variant)
    params = ",".join(f"{k}={v}" for k, v in sorted(resolved.items()))
    loaded = pyspiel.load_game(f"{SHORT_NAMES[chosen.info.name]}({params})")
    assert isinstance(loaded, TourneyGame)
    return loaded


def state_from_observation(game: TourneyGame, observation: dict[str, Any],
                           rng: random.Random) -> TourneyState:
    """An OpenSpiel state dealt at random from a seat's observation: what a bot in a league
    hands to an OpenSpiel algorithm (the algorithm may only use that seat's view of it)."""
    state = game.new_initial_state()
    state.engine_state = game.rules.engine.sample_state(observation, rng)
    return state


class BattleLineSpiel(TourneyGame):
    """``python_tourney_battleline``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("battleline", params)


class WarChestSpiel(TourneyGame):
    """``python_tourney_warchest``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("warchest", params)


def _register() -> None:
    # classes, not closures: OpenSpiel keeps the factory until after Python has shut down
    for name, factory in (("battleline", BattleLineSpiel), ("warchest", WarChestSpiel)):
        if SHORT_NAMES[name] not in pyspiel.registered_names():
            pyspiel.register_game(_game_type(name, registry.get(name)), factory)


_register()

__all__ = [
    "DEALS",
    "SHORT_NAMES",
    "BattleLineSpiel",
    "TourneyGame",
    "TourneyObserver",
    "TourneyState",
    "WarChestSpiel",
    "load",
    "state_from_observation",
]
