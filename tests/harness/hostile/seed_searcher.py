"""Searches the deal seed of a `play` or `validate` game from its own rng_seed: the referee
derives rng_seed from the deal seed and the seat by a public one-way hash, so a small deal seed
(validate used to deal seeds 1, 2, 1001 and 1002; a chosen --seed is often small) can be
found by trying them all, and the deal rebuilt from it. Where it finds the seed it says so by
crashing (so `validate` reports it); otherwise it plays the first legal action."""

import hashlib

LIMIT = 200_000


class Searcher:
    def start(self, info):
        self.found = None
        wanted, seat = info["rng_seed"], info["seat"]
        for seed in range(LIMIT):
            digest = hashlib.sha256(f"tourney-bot:{seed}:{seat}".encode()).digest()
            if int.from_bytes(digest[:8], "big") >> 1 == wanted:
                self.found = seed
                break

    def act(self, observation, legal_actions):
        if self.found is not None:
            raise RuntimeError(f"FOUND deal seed {self.found}")
        return legal_actions[0]
