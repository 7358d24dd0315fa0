"""A uniformly random legal action: an opponent whose games end in wins and losses."""

import random


def act(observation, legal_actions):
    return random.choice(legal_actions)
