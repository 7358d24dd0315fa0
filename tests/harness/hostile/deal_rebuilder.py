"""Rebuilds the deal: guesses the league seed, checks the guess, prints the opponent's hand.

The attack of issue 10: the deal seed used to be sha256("seed", league seed, bot names, pair
index), the league seed defaulted to 0, and the game id (given to bots) was a hash of the same
inputs, so a guess could be confirmed. This bot tries every small league seed with likely bot
names and indices, with the schedule's own functions when it can import them and a copy of
that derivation otherwise, and confirms a guess by the game id when it gets one, else by
dealing the game and comparing the hand with its own.
"""

import hashlib

from games import registry

NAMES = ["rebuilder", "random", "greedy", "other", "bot", "b0", "b1"]


def _legacy_seed(league_seed, lo, hi, index):
    text = "\x1f".join(str(p) for p in ("seed", league_seed, lo, hi, index))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 2


def _legacy_game_id(league_seed, lo, hi, index):
    text = "\x1f".join(str(p) for p in ("game", league_seed, lo, hi, index))
    return "g" + hashlib.sha256(text.encode()).hexdigest()[:15]


try:  # the schedule itself, where the sandbox lets a bot import it
    from harness.league.schedule import deal_seed as _deal_seed
    from harness.league.schedule import game_id as _game_id
except ImportError:
    _deal_seed, _game_id = _legacy_seed, _legacy_game_id


class Rebuilder:
    def start(self, info):
        self.info = info
        self.tried = False

    def act(self, observation, legal_actions):
        if not self.tried:
            self.tried = True
            print(self.rebuild(observation), flush=True)
        return legal_actions[0]

    def rebuild(self, observation):
        game = registry.get(self.info["game"])
        seat = self.info["seat"]
        wanted_id = self.info.get("game_id")
        for league_seed in range(50):
            for a in NAMES:
                for b in NAMES:
                    if a >= b:
                        continue
                    for index in range(8):
                        if wanted_id and _game_id(league_seed, a, b, index) != wanted_id:
                            continue
                        deal = _deal_seed(league_seed, a, b, index // 2)
                        state = game.new_game(deal, **self.info["variant"])
                        if state.observation(seat)["hand"] == observation["hand"]:
                            hand = state.observation(1 - seat)["hand"]
                            return f"FOUND league seed {league_seed}: opponent holds {hand}"
        return "NOT FOUND"
