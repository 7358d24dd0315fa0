"""The action notation: every action string round-trips, and errors say what is wrong."""

from __future__ import annotations

import random

import pytest

from games.battleline import GAME
from games.battleline.notation import ACTION_STRINGS, PARSE, format_action, parse
from games.protocol import InvalidAction


def test_every_action_string_round_trips() -> None:
    assert len(PARSE) == len(ACTION_STRINGS)
    for text, action in PARSE.items():
        assert parse(text) == action
        assert format_action(action) == text


@pytest.mark.parametrize(
    "text",
    ["play r7 3", "play alexander 5", "fog 4", "mud 9", "traitor b9 7", "redeploy r7 5",
     "redeploy r7 discard", "deserter g4", "deserter mud", "scout", "scout-draw troops",
     "scout-draw tactics", "scout-return r7", "scout-return fog", "claim 4", "draw troops",
     "draw tactics", "pass", "done", "play b10 1", "play companion 2", "play shield 8"],
)
def test_documented_examples_parse(text: str) -> None:
    assert format_action(parse(text)) == text


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("", "empty action"),
        ("attack 3", "unknown verb 'attack'"),
        ("play r11 3", "'r11' is neither a card"),
        ("play r7 10", "'10' is neither a card"),
        ("play r7", "wrong arguments for 'play'"),
        ("claim", "wrong arguments for 'claim'"),
        ("scout 3", "wrong arguments for 'scout'"),
    ],
)
def test_malformed_actions_say_why(text: str, hint: str) -> None:
    with pytest.raises(InvalidAction) as info:
        parse(text)
    assert hint in str(info.value) and "expected one of" in str(info.value)


def test_legal_actions_always_parse_to_themselves() -> None:
    rng = random.Random(2)
    for seed in range(10):
        state = GAME.new_game(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            for a in legal:
                assert format_action(parse(a)) == a
            state.apply(rng.choice(legal))
