"""Always the last legal action: a second weak, deterministic bot for the server's tests."""


def act(observation, legal_actions):
    return legal_actions[-1]
