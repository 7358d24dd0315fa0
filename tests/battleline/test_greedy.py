"""The built-in Battle Line heuristic: legal answers, always claims, beats uniform random."""

from __future__ import annotations

import random

from agents.greedy_battleline import choose
from games.battleline import GAME
from tests.battleline.helpers import position


def _match(seed: int, greedy_seat: int, rules: str, players: str = "2") -> float:
    state = GAME.new_game(seed, rules=rules, players=players)
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


def test_greedy_beats_two_random_players_in_the_three_player_game() -> None:
    # a fair share would be a third of the wins; over 300 games it wins about 95%
    results = [_match(seed, seed % 3, "standard", players="3") for seed in range(30)]
    assert results.count(1.0) >= 24, results


def test_greedy_in_three_players_plays_against_the_opponent_at_that_flag() -> None:
    # seat 2 faces seat 0 at flag 8: b9 completes a wedge there against seat 0's weak host
    s = position([(0, 8, "y1 o2 g4"), (2, 8, "b7 b8"), (1, 5, "r8 r9 r10")],
                 hands=("", "", "b9 p1"), turn=2, players=3)
    assert choose(s.observation(2), s.legal_actions(), random.Random(0)) == "play b9 8"
