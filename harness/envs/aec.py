"""Both games as PettingZoo AEC environments.

Agents are ``player_0`` … ``player_<n-1>`` (seat order). The agent to act is the seat that
must decide now, which in War Chest may be out of turn (a Royal Guard's owner). Each agent's
observation is a dict: ``observation``, the tensor of :mod:`games.interop.tensors` built from
that seat's JSON observation alone, and ``action_mask``, 1 at the indices of
:mod:`games.interop.actions` legal now (all 0 when it is not that agent's decision). The JSON
observation itself is :meth:`TourneyEnv.json_observation`, and the engine's state
``game_state`` (PettingZoo's ``state()``, a global view, is not offered: the games hide
things from every seat). Rewards come at the end: the
engine's returns (1 win, -1 loss, 0 draw; team games: the team's).

>>> env = TourneyEnv("battleline", {"rules": "no-tactics"})
>>> env.reset(seed=3)
>>> obs, reward, term, trunc, info = env.last()
>>> int(obs["action_mask"].sum()) > 0, env.agent_selection
(True, 'player_0')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from games import registry
from games.interop.actions import ActionSpace, action_space
from games.interop.tensors import Encoder, encoder
from games.protocol import JSON, State

#: Upper bound of every tensor entry (counts are scaled; none reaches it).
TENSOR_HIGH = 50.0


def agent_name(seat: int) -> str:
    return f"player_{seat}"


# pettingzoo ships no type information: its AECEnv is Any to mypy
class TourneyEnv(AECEnv[str, dict[str, Any], int | None]):  # type: ignore[misc]
    """One game and variant of tourney as a PettingZoo AEC environment."""

    def __init__(self, game: str, variant: Mapping[str, str] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        chosen, _ = registry.choose(game, dict(variant or {}))
        self.game = chosen
        self.game_name = chosen.info.name
        self.variant = chosen.info.resolve_variant(dict(variant or {}))
        self.players = int(self.variant.get("players", "2"))
        self.space: ActionSpace = action_space(self.game_name, self.variant)
        self.encoder: Encoder = encoder(self.game_name, self.variant)
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(self.players)]
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, TENSOR_HIGH, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.space.size,), np.int8),
        })
        self._act_space = spaces.Discrete(self.space.size)
        self.metadata = {"render_modes": ["ansi", "human"],
                         "name": f"tourney_{self.game_name}_v0", "is_parallelizable": False}
        self.game_state: State | None = None
        self._seed = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game dealt from ``seed`` (a fresh random deal when None)."""
        if seed is None:
            seed = int(np.random.default_rng().integers(2**31))
        self._seed = seed
        self.game_state = self.game.new_game(seed, **self.variant)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._act_space.seed(seed)
        self.agent_selection = agent_name(self.game_state.current_player)

    def json_observation(self, agent: str) -> JSON:
        """The agent's JSON observation, exactly what a tourney bot in that seat gets."""
        assert self.game_state is not None, "call reset() first"
        return self.game_state.observation(int(agent.rsplit("_", 1)[1]))

    def observe(self, agent: str) -> dict[str, Any]:
        assert self.game_state is not None, "call reset() first"
        seat = int(agent.rsplit("_", 1)[1])
        obs = self.game_state.observation(seat)
        if self.game_state.current_player == seat:
            mask = self.space.mask(self.game_state.legal_actions())
        else:
            mask = np.zeros(self.space.size, dtype=np.int8)
        return {"observation": self.encoder.encode(obs), "action_mask": mask}

    def legal_indices(self) -> list[int]:
        """The action indices legal for the agent to act now."""
        assert self.game_state is not None, "call reset() first"
        return self.space.indices(self.game_state.legal_actions())

    def step(self, action: int | None) -> None:
        """Play the selected agent's action (an index of the action space)."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        assert self.game_state is not None
        if action is None:
            raise ValueError(f"{self.agent_selection} must act: None is only for a finished "
                             "agent")
        self.game_state.apply(self.space.action(int(action)))
        self._cumulative_rewards[self.agent_selection] = 0.0
        if self.game_state.is_terminal():
            returns = self.game_state.returns()
            for seat, agent in enumerate(self.possible_agents):
                self.rewards[agent] = float(returns[seat])
                self.terminations[agent] = True
            self._accumulate_rewards()
        else:
            self.agent_selection = agent_name(self.game_state.current_player)
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """The board as text (the seat-blind drawing of ``tourney play --show``)."""
        if self.render_mode is None:
            return None
        assert self.game_state is not None, "call reset() first"
        return str(self.game_state)

    def close(self) -> None:
        self.game_state = None


def env(game: str = "battleline", variant: Mapping[str, str] | None = None,
        render_mode: str | None = None) -> TourneyEnv:
    """A PettingZoo environment of ``game`` (a registry name or alias) with ``variant``."""
    return TourneyEnv(game, variant, render_mode)


__all__ = ["TENSOR_HIGH", "TourneyEnv", "agent_name", "env"]
