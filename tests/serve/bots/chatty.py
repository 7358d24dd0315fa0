"""Plays the first legal action and writes 8 KB to its log at every move: a chatty bot, whose
log of a game fills the 64 KB the referee keeps."""

import sys


def act(observation, legal_actions):
    sys.stderr.write("chatter " * 1000 + "\n")
    return legal_actions[0]
