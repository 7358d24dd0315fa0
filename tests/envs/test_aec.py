"""The PettingZoo environments pass PettingZoo's own API and seed tests, for every game and
variant, and give each agent the tensor of its own observation and the mask of its legal
actions."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from games.interop.tensors import encoder
from harness.envs.aec import env
from tests.interop import IDS, VARIANTS


@pytest.mark.parametrize(("game", "variant"), VARIANTS, ids=IDS)
def test_pettingzoo_api_and_seed_tests_pass(game: str, variant: dict[str, str]) -> None:
    api_test(env(game, variant), num_cycles=400)
    seed_test(functools.partial(env, game, variant), num_cycles=400)


@pytest.mark.parametrize(("game", "variant"), [VARIANTS[1], VARIANTS[-1]], ids=["bl3", "wc4"])
def test_the_mask_is_the_legal_actions_and_the_tensor_the_observation(
        game: str, variant: dict[str, str]) -> None:
    environment = env(game, variant)
    environment.reset(seed=11)
    enc = encoder(environment.game_name, environment.variant)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in environment.agent_iter(max_iter=300):
        obs, _, term, trunc, _ = environment.last()
        if term or trunc:
            environment.step(None)
            continue
        state = environment.game_state
        assert state is not None and agent == f"player_{state.current_player}"
        legal = [environment.space.action(int(i)) for i in np.flatnonzero(obs["action_mask"])]
        assert sorted(legal) == state.legal_actions()
        assert np.array_equal(obs["observation"],
                              enc.encode(environment.json_observation(agent)))
        others = [a for a in environment.agents if a != agent]
        assert all(environment.observe(a)["action_mask"].sum() == 0 for a in others)
        environment.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps > 50


def test_a_whole_game_ends_with_the_engines_returns_and_renders_as_text() -> None:
    environment = env("battleline", {"rules": "no-tactics"}, render_mode="ansi")
    environment.reset(seed=2)
    rewards: dict[str, float] = {}
    rng = np.random.default_rng(2)
    for agent in environment.agent_iter():
        obs, reward, term, trunc, _ = environment.last()
        if term or trunc:
            rewards[agent] = float(reward)
            environment.step(None)
        else:
            environment.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = environment.game_state
    assert state is not None and state.is_terminal()
    assert [rewards[f"player_{s}"] for s in range(2)] == state.returns()
    text = environment.render()
    assert isinstance(text, str) and text == str(state) and "1" in text
    assert environment.agents == []


def test_a_wrong_game_or_variant_is_refused_by_name() -> None:
    with pytest.raises(Exception, match="chess"):
        env("chess")
    with pytest.raises(Exception, match="rules"):
        env("battleline", {"rules": "no-such"})
