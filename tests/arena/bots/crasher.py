"""Raises on its first move: it fails the entry check and never plays a rated game."""


def act(observation, legal_actions):
    raise RuntimeError("crasher: boom")
