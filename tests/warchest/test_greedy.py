"""The built-in War Chest heuristic: takes a win when offered, beats random play, and its quick
scoring (the ``mcts`` rollouts') agrees with the full one wherever no coin is drawn."""

from __future__ import annotations

import random

from agents.greedy_warchest import _kind, _scores, choose, quick_scores
from games.warchest import GAME
from games.warchest.state import WarChestState
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


def _sample_positions(games: int) -> list[WarChestState]:
    """Decision points of games in both sizes, random and greedy moves mixed (seeded)."""
    rng = random.Random(11)
    out = []
    for g in range(games):
        s = GAME.new_game(700 + g, players="4" if g % 3 == 2 else "2")
        while not s.is_terminal():
            out.append(s.clone())
            legal = s.legal_actions()
            seat = s.current_player
            s.apply(choose(s.observation(seat), legal, rng) if rng.random() < 0.5
                    else rng.choice(legal))
    return out


def _drew(before: WarChestState, after: WarChestState) -> bool:
    """Whether a coin was drawn on the way (a new round, or a Warrior Priest's draw)."""
    return after.round != before.round or any(
        sum(after.hand[s]) > sum(before.hand[s]) for s in range(before.n))


def test_quick_scores_are_the_scores_of_every_action_that_draws_no_coin() -> None:
    compared = shared = 0
    actions = 0
    for s in _sample_positions(24):
        legal = list(s.legal_actions())
        team = s.current_player % 2
        exact, quick = _scores(s, legal, team), quick_scores(s, legal, team)
        assert quick.keys() == exact.keys()
        kinds = [k for k in map(_kind, legal) if k is not None]
        shared += len(kinds) - len(set(kinds))  # face-down actions that may share a trial
        for action in legal:
            actions += 1
            trial = s.clone()
            trial.apply(action)
            if not _drew(s, trial):
                compared += 1
                assert quick[action] == exact[action], action
    assert compared >= 0.85 * actions  # the condition spares few actions
    assert shared > 1000  # and many face-down actions could use another's trial


def test_an_action_that_ends_the_round_does_not_score_its_kind() -> None:
    # seat 0 plays its last coin of the round; its bag is empty, so a new round refills it from
    # the discards and the Royal Coin, counted while discarded, goes back into the bag. Recruiting
    # a Mercenary with a Mercenary on the board grants a free maneuver first, so the round goes
    # on: that recruit keeps the Royal Coin counted, and must not take the others' score
    s = position("mercenary@f4:0 knight@f6:1", hands={0: "archer"}, facedown={0: "royal"},
                 supply={0: "archer mercenary", 1: "knight"})
    legal = list(s.legal_actions())
    recruits = [a for a in legal if " recruit " in a]
    assert recruits == ["archer recruit archer", "archer recruit mercenary"]
    exact = _scores(s, legal, 0)
    assert exact["archer recruit mercenary"] == exact["archer recruit archer"] + 2
    assert quick_scores(s, legal, 0) == exact
