"""The environments' bench (``make bench ONLY=envs``): its floor loop plays the same games as
the real one, so the two figures differ by the tensor's cost alone."""

from __future__ import annotations

import pytest

from bench import envs


@pytest.mark.parametrize(("game", "variant"), [("battleline", {"rules": "standard"}),
                                               ("warchest", {"players": "2"})])
def test_the_floor_plays_the_same_games_with_a_constant_tensor(
        game: str, variant: dict[str, str]) -> None:
    decisions, _ = envs.env_loop(game, variant, 2)
    floor, _ = envs.env_loop(game, variant, 2, free_tensor=True)
    assert floor == decisions > 20
    assert envs.choice_cost(game, variant, 2) > 0
