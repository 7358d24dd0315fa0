"""Observation tensors: made from a seat's observation alone, the same for every state that
gives the seat that observation, of the documented layout."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from games import registry
from games.interop.tensors import encoder
from tests.interop import IDS, VARIANTS, random_states

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("game", "variant"), VARIANTS, ids=IDS)
def test_states_with_the_same_observation_give_the_same_tensor(
        game: str, variant: dict[str, str]) -> None:
    """Deal the hidden part again (the forward model) and the seat's tensor does not move; so
    nothing hidden reaches it."""
    engine, _ = registry.choose(game, variant)
    enc = encoder(game, engine.info.resolve_variant(variant))
    rng = random.Random(5)
    players = int(variant["players"])
    checked = 0
    for n, state in enumerate(random_states(game, variant, range(4))):
        if n % 7:
            continue
        for seat in range(players):
            obs = state.observation(seat)
            tensor = enc.encode(obs)
            assert tensor.shape == (enc.size,) and tensor.dtype == np.float32
            assert np.all(np.isfinite(tensor)) and tensor.min() >= 0.0
            again = json.loads(json.dumps(obs))  # the JSON a sandboxed bot gets
            assert np.array_equal(enc.encode(again), tensor)
            other = engine.sample_state(obs, rng)
            assert other.observation(seat) == obs
            assert np.array_equal(enc.encode(other.observation(seat)), tensor)
            checked += 1
    assert checked > 20


def test_different_observations_give_different_tensors() -> None:
    """The tensor keeps what a seat knows: successive decisions of a game differ."""
    for game, variant in (VARIANTS[0], VARIANTS[-1]):
        enc = encoder(game, variant)
        seen = {enc.encode(s.observation(s.current_player)).tobytes()
                for s in random_states(game, variant, range(1))}
        assert len(seen) > 30


def test_the_tensor_is_seat_relative() -> None:
    """Block entry 0 is the observer: each seat finds its own hand in ``hand`` and its own
    cards on the board in its own slot."""
    from games.battleline.cards import CARD_IDS

    state = registry.get("battleline").new_game(4)
    enc = encoder("battleline", {"players": "2"})
    action = state.legal_actions()[0]  # seat 0 plays a card on a flag
    _, card, flag = action.split()
    state.apply(action)
    flags = enc.offset["flags"]
    mine = enc.encode(state.observation(0))[flags:flags + 9 * 2 * 70].reshape(9, 2, 70)
    theirs = enc.encode(state.observation(1))[flags:flags + 9 * 2 * 70].reshape(9, 2, 70)
    assert mine[int(flag) - 1, 0, CARD_IDS[card]] == 1.0
    assert np.array_equal(mine[:, 0], theirs[:, 1]) and np.array_equal(mine[:, 1], theirs[:, 0])


@pytest.mark.parametrize("key", ["battleline/2p", "battleline/3p", "warchest/2p",
                                 "warchest/4p"])
def test_the_documented_layout_is_the_code(key: str) -> None:
    """docs/research.md lists every block of each tensor with its offset and length."""
    game, players = key.split("/")
    enc = encoder(game, {"players": players[0]})
    page = (ROOT / "docs" / "research.md").read_text(encoding="utf-8")
    section = page.split(f"#### {key}\n", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \| (.+) \|$", section, re.M)
    assert [(k, int(o), int(n), t) for k, o, n, t in rows] == enc.layout()
    assert f"{enc.size} numbers" in page.split(f"#### {key}\n", 1)[1].split("####")[0]
