"""Hostile bot files: each tries one way of bending a game, as a real entrant could.

They are ordinary bot files (run sandboxed by the tests in ``tests/harness/test_hostile.py``)
and print what they achieved to their log, which the tests read.
"""
