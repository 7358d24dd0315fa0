"""Thinks just under the move limit on every decision (the league in tests/arena/
test_fairshare.py gives 0.05 s a decision): a legal bot whose every game lasts a hundred times
longer than a quick bot's."""

import time


def act(observation, legal_actions):
    time.sleep(0.04)
    return legal_actions[0]
