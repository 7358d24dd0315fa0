"""Hidden information: what each seat sees, and sampling states back from a seat's view."""

from __future__ import annotations

import json
import random

from games.battleline import GAME
from games.battleline.cards import CARD_IDS, CARD_NAMES, iter_bits
from games.battleline.state import BattleLineState
from tests.battleline.helpers import position


def _swap_hidden(state: BattleLineState, seat: int) -> BattleLineState:
    """Exchange a troop of ``seat``'s hand with a troop deep in the troop deck."""
    twin = state.clone()
    hand_card = next(c for c in iter_bits(twin.hands[seat]) if c < 60)
    deck = twin.decks[0]
    deck_card = deck[0]
    twin.hands[seat] ^= (1 << hand_card) | (1 << deck_card)
    deck[0] = hand_card
    twin._legal = None
    return twin


def test_a_seat_cannot_see_the_other_hand_or_the_deck_order() -> None:
    state = GAME.new_game(4)
    for _ in range(9):
        state.apply(random.Random(1).choice(state.legal_actions()))
    twin = _swap_hidden(state, 0)
    assert twin.observation(1) == state.observation(1)
    assert twin.observation(0) != state.observation(0)
    text = json.dumps(state.observation(1))
    for c in iter_bits(state.hands[0]):
        assert f'"{CARD_NAMES[c]}"' not in text or CARD_NAMES[c] in json.dumps(
            state.observation(1)["flags"]
        )


def test_observation_counts_are_public() -> None:
    s = position(hands=("r1 r2 alexander", "b1"))
    obs = s.observation(1)
    assert obs["hand_sizes"] == [3, 1] and obs["hand_counts"] == [[2, 1], [1, 0]]
    assert obs["hand"] == ["b1"] and obs["decks"] == {"troops": 57, "tactics": 9}
    assert obs["game"] == "battleline" and obs["seat"] == 1 and obs["current_player"] == 0


def _scouted() -> BattleLineState:
    s = position(hands=("scout r1 r2 g5 g6 g7 g8", "b1 b2 b3"), troop_deck="y1 y2 y3 y4 y5",
                 tactics_deck="fog mud", fill=True)
    for a in ("scout", "scout-draw troops", "scout-draw tactics", "scout-draw troops",
              "scout-return g5", "scout-return mud"):
        s.apply(a)
    return s


def test_sampling_keeps_the_scout_players_knowledge() -> None:
    s = _scouted()
    obs = s.observation(0)
    assert obs["deck_tops"] == {"troops": ["g5"], "tactics": ["mud"]}
    for k in range(20):
        sample = GAME.sample_state(obs, random.Random(k))
        assert sample.decks[0][-1] == CARD_IDS["g5"] and sample.decks[1][-1] == CARD_IDS["mud"]
        assert sample.observation(0) == obs


def test_sampling_from_the_opponent_view_varies_the_returned_cards() -> None:
    s = _scouted()
    obs = s.observation(1)
    assert obs["deck_tops"] == {"troops": ["?"], "tactics": ["?"]}
    tops = set()
    for k in range(30):
        sample = GAME.sample_state(obs, random.Random(k))
        assert sample.observation(1) == obs
        assert sample.hands[1] == s.hands[1]
        tops.add(sample.decks[0][-1])
        # the opponent's hand keeps its public troop/tactic split
        assert sample.observation(0)["hand_counts"] == s.observation(0)["hand_counts"]
    assert len(tops) > 3


def test_known_card_in_the_other_hand_survives_sampling() -> None:
    s = _scouted()
    s.apply("play b1 1")
    s.apply("draw troops")  # seat 1 draws g5, which seat 0 returned
    obs = s.observation(0)
    assert obs["opponent_known"] == ["g5"]
    for k in range(10):
        sample = GAME.sample_state(obs, random.Random(k))
        assert sample.hands[1] >> CARD_IDS["g5"] & 1
        assert sample.observation(0) == obs


def test_sampled_states_play_on() -> None:
    rng = random.Random(3)
    for seed in range(5):
        state = GAME.new_game(seed)
        for _ in range(25):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        seat = state.current_player
        if seat < 0:
            continue
        sample = GAME.sample_state(state.observation(seat), rng)
        assert sample.legal_actions() == state.legal_actions()
        while not sample.is_terminal():
            sample.apply(rng.choice(sample.legal_actions()))
