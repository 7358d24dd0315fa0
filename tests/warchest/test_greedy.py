"""The built-in War Chest heuristic: takes a win when offered and beats random play."""

from __future__ import annotations

import random

from agents.greedy_warchest import choose
from games.warchest import GAME
from tests.warchest.builder import position


def test_greedy_takes_the_winning_control() -> None:
    control = {"e2": 0, "h1": 0, "g3": 0, "i2": 0, "h4": 0, "d7": 1, "g6": 1}
    s = position("swordsman@d4:0 scout@e4:1", hands={0: "swordsman royal", 1: "royal"},
                 control=control)
    action = choose(s.observation(0), s.legal_actions(), random.Random(0))
    assert action == "swordsman d4 control"


def test_greedy_beats_random_play() -> None:
    wins = 0
    games = 10
    for g in range(games):
        s = GAME.new_game(500 + g)
        seat = g % 2
        rng = random.Random(g)
        while not s.is_terminal():
            p = s.current_player
            legal = s.legal_actions()
            s.apply(choose(s.observation(p), legal, rng) if p == seat else rng.choice(legal))
        wins += s.returns()[seat] > 0
    assert wins >= 9
