"""One seat of a tourney game as a Gymnasium environment, the other seats played by bots.

The opponents are tourney bot specs (``random``, ``greedy``, ``mcts:iters=50``, a bot file or
directory, ``cmd:...``), opened exactly as a league opens them (sandboxed unless built-in) and
told the game with the ``start`` a league sends. The learner's observation and action space
are those of :mod:`harness.envs.aec`. An action outside the mask ends the game as a loss for
the learner (reward -1, ``info["illegal"]``), as the referee would forfeit a bot; an opponent
that fails (crash, timeout, an illegal answer) ends it as a win (``info["opponent_error"]``).
Every opponent still in the game is told how it ended with the ``end`` a league sends (a bot
that learns across games hears of each), then closed.

>>> env = SingleSeatEnv("battleline", {"rules": "no-tactics"}, opponents=["random"])
>>> obs, info = env.reset(seed=1)
>>> sorted(obs), info["legal_actions"][:1]
(['action_mask', 'observation'], ['play b9 1'])
>>> env.close()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium

from games.protocol import IllegalAction, InvalidAction, State
from harness.bots import open_agent
from harness.bots.protocol import Agent, AgentError
from harness.bots.spec import parse_spec
from harness.envs.aec import TourneyEnv
from harness.match.referee import end_message, forfeit_kind, forfeit_returns, start_info
from harness.records import BotRef, GameSpec, Limits, Termination

Obs = dict[str, Any]


class SingleSeatEnv(gymnasium.Env[Obs, int]):
    """``game`` from ``seat``, every other seat played by the bots ``opponents`` (in seat
    order; one spec serves every other seat)."""

    # gymnasium declares it an instance attribute with a class default, as here
    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(self, game: str, variant: Mapping[str, str] | None = None, *,
                 opponents: Sequence[str] = ("random",), seat: int = 0,
                 limits: Limits | None = None, render_mode: str | None = None) -> None:
        self._aec = TourneyEnv(game, variant, render_mode=render_mode)
        self.render_mode = render_mode
        players = self._aec.players
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat of a {players}-player game")
        others = [s for s in range(players) if s != seat]
        specs = list(opponents) * len(others) if len(opponents) == 1 else list(opponents)
        if len(specs) != len(others):
            raise ValueError(f"give one opponent spec, or one per other seat ({len(others)})")
        self.seat = seat
        self._specs = {s: parse_spec(text) for s, text in zip(others, specs, strict=True)}
        self._limits = limits or Limits()
        self._agents: dict[int, Agent] = {}
        self.observation_space = self._aec.observation_space(self._aec.possible_agents[0])
        self.action_space = self._aec.action_space(self._aec.possible_agents[0])
        self._state: State | None = None
        self._failed: tuple[int, Termination, str] | None = None  # an opponent that forfeited

    @property
    def action_names(self) -> tuple[str, ...]:
        """The action strings, indexed as the action space."""
        return self._aec.space.actions

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        deal = int(self.np_random.integers(2**31)) if seed is None else seed
        self._close_agents()
        self._aec.reset(seed=deal)
        self._state = self._aec.game_state
        assert self._state is not None
        seats = tuple(BotRef(name=f"seat{s}", spec=str(self._specs.get(s, "learner")))
                      for s in range(self._aec.players))
        spec = GameSpec(game_id=f"gym-{deal}", game=self._aec.game_name,
                        variant=dict(self._aec.variant), seed=deal, seats=seats,
                        limits=self._limits)
        rules = self._aec.game.info.rules_version
        for s, bot in self._specs.items():
            agent = open_agent(bot, self._limits)
            self._agents[s] = agent
            agent.start(start_info(spec, dict(self._aec.variant), s, self._aec.players, rules),
                        self._limits.startup_time)
        info: dict[str, Any] = {}
        self._failed = None
        self._play_others(info)
        if self._failed or self._state.is_terminal():  # decided before the learner's turn
            self._finish(self._failed)
        return self._observe(), {**info, "legal_actions": self._legal()}

    def step(self, action: int) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        state = self._state
        assert state is not None, "call reset() first"
        info: dict[str, Any] = {}
        name = self._aec.space.action(int(action))
        try:
            state.apply(name)
        except (IllegalAction, InvalidAction) as exc:
            info["illegal"] = str(exc)
            self._finish((self.seat, Termination.ILLEGAL, f"the learner {exc}"))
            return self._observe(), -1.0, True, False, info
        self._play_others(info)
        done = state.is_terminal() or "opponent_error" in info
        reward = 0.0
        if "opponent_error" in info:
            reward = 1.0
        elif state.is_terminal():
            reward = float(state.returns()[self.seat])
        if done:
            self._finish(self._failed)
        return self._observe(), reward, done, False, {**info, "legal_actions": self._legal()}

    def _play_others(self, info: dict[str, Any]) -> None:
        """Let the bots decide until it is the learner's turn or the game is over."""
        state = self._state
        assert state is not None
        while not state.is_terminal() and state.current_player != self.seat:
            seat = state.current_player
            legal = state.legal_actions()
            try:
                answer = self._agents[seat].act(state.observation(seat), legal,
                                                 self._limits.move_time + self._limits.overage)
                if not isinstance(answer, str) or answer not in legal:
                    raise AgentError(f"answered {answer!r}, not a legal action")
            except AgentError as exc:
                info["opponent_error"] = f"seat {seat}: {exc.reason}"
                self._failed = (seat, forfeit_kind(exc), f"seat {seat} {exc.reason}")
                return
            state.apply(answer)

    def _finish(self, forfeit: tuple[int, Termination, str] | None) -> None:
        """Tell every opponent still in the game how it ended (best effort, as the referee
        does), then close them all. ``forfeit``: the seat that forfeited, how and why; None:
        the game ended by its rules."""
        state = self._state
        assert state is not None
        offender: int | None = None
        if forfeit is None:
            ended = state.end()
            assert ended is not None, "the game has not ended"
            termination, reason = Termination(ended[0].value), ended[1]
            returns = [float(r) for r in state.returns()]
        else:
            offender, termination, reason = forfeit
            returns = forfeit_returns(self._aec.game.info.teams_of(state.num_players), offender)
        scores = [float(x) for x in state.scores()]
        grace = min(1.0, self._limits.move_time)
        for seat, agent in self._agents.items():
            if seat == offender:
                continue
            message = end_message(seat, returns, scores, termination, reason, offender,
                                  len(state.history))
            try:
                agent.end(message, grace)
            except AgentError:
                continue
        self._close_agents()

    def _legal(self) -> list[str]:
        state = self._state
        if state is None or state.is_terminal() or state.current_player != self.seat:
            return []
        return state.legal_actions()

    def _observe(self) -> Obs:
        return self._aec.observe(self._aec.possible_agents[self.seat])

    def render(self) -> str | None:
        return self._aec.render()

    def _close_agents(self) -> None:
        for agent in self._agents.values():
            agent.close()
        self._agents = {}

    def close(self) -> None:
        self._close_agents()
        self._aec.close()
        self._state = None


__all__ = ["SingleSeatEnv"]
