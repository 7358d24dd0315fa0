"""Answers with one line of JSON nested 100,000 levels deep, written straight to the protocol
pipe (found through the runner's own objects), then waits: the referee's decoder used to raise
RecursionError, which voided the game (no offender) instead of making this bot lose."""

import gc
import os
import time


def act(observation, legal_actions):
    wire = next(o for o in gc.get_objects() if type(o).__name__ == "_Wire")
    os.write(wire.out, b"[" * 100_000 + b"]" * 100_000 + b"\n")
    time.sleep(30)
