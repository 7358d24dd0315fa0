"""The built-in Battle Line heuristic: legal answers, always claims, beats uniform random."""

from __future__ import annotations

import random

from agents.greedy_battleline import choose
from games.battleline import GAME
from tests.battleline.helpers import position


def _match(seed: int, greedy_seat: int, rules: str) -> float:
    state = GAME.new_game(seed, rules=rules)
    rng = random.Random(seed + 1000)
    while not state.is_terminal():
        seat = state.current_player
        legal = state.legal_actions()
        if seat == greedy_seat:
            action = choose(state.observation(seat), legal, rng)
            assert action in legal
        else:
            action = rng.choice(legal)
        state.apply(action)
    return state.returns()[greedy_seat]


def test_greedy_claims_when_it_can() -> None:
    s = position([(0, 3, "r3 r4"), (1, 3, "y8 r8 g8")], hands=("r5 p1", "o1"))
    s.apply("play r5 3")
    assert choose(s.observation(0), s.legal_actions(), random.Random(0)) == "claim 3"


def test_greedy_completes_a_wedge() -> None:
    s = position([(0, 2, "b8 b9")], hands=("b10 r1 y2", ""))
    action = choose(s.observation(0), s.legal_actions(), random.Random(0))
    assert action == "play b10 2"


def test_greedy_beats_random_clearly() -> None:
    results = [_match(seed, seed % 2, rules) for seed in range(16)
               for rules in ("standard", "schotten-totten")]
    assert results.count(1.0) >= 28, results
