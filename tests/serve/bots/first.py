"""Always the first legal action: a bot that plays, weakly and deterministically."""


def act(observation, legal_actions):
    return legal_actions[0]
