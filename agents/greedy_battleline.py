"""A one-step Battle Line heuristic: claim whatever can be claimed, then build formations.

For every troop (or morale card) it could play, it asks the engine's formation module what the
side could still become (:func:`games.battleline.formations.best_rank`, with every troop not
face up counted as available) and prefers the play that leaves its side strongest relative to
the opponent's side at that flag. Deserter and Traitor are used when they knock the opponent's
best prospect down; the other tactics only when nothing better is on offer. With three players
(``players=3``) the opponent at a flag is the other seat the observation names there, and
Deserter and Traitor look at both opponents' sides.
"""

from __future__ import annotations

import random
from typing import Any

from games.battleline import formations as fm
from games.battleline.cards import ALL_TROOPS, CARD_IDS, NUM_TROOPS, troop_mask

Observation = dict[str, Any]

_MORALE_PENALTY = 24.0  # keep leaders and wild cards for a flag where they matter
_TACTIC_COST = 12.0


def choose(observation: Observation, legal_actions: list[str], rng: random.Random) -> str:
    """Pick one of ``legal_actions`` for ``observation`` (the seat to move)."""
    if len(legal_actions) == 1:
        return legal_actions[0]
    claims = [a for a in legal_actions if a.startswith("claim ")]
    if claims:
        return claims[0]
    phase = observation["phase"]
    if phase in ("draw", "scout-draw"):
        return _pick_deck(observation, legal_actions)
    if phase == "scout-return":
        return _pick_return(legal_actions)
    return _pick_play(observation, legal_actions, rng)


def ranked(observation: Observation, legal_actions: list[str], rng: random.Random) -> list[str]:
    """``legal_actions`` best first by the heuristic: its choice first, then plays by score (for
    the ``mcts`` bot, which searches only the heuristic's best few actions)."""
    pick = choose(observation, legal_actions, rng)
    rest = [a for a in legal_actions if a != pick]
    if observation["phase"] not in ("draw", "scout-draw", "scout-return"):
        board = Board(observation)
        rest.sort(key=lambda a: -_score(board, a) if not a.startswith("claim") else -1e9)
    return [pick, *rest]


def deck_to_draw(tactics_in_hand: int, troops_left: int) -> str:
    """The deck greedy draws from: ``"tactics"`` when the hand holds none and fewer than 20
    troops are left, else ``"troops"`` (``mcts``'s learned trials draw by the same rule)."""
    return "tactics" if tactics_in_hand == 0 and troops_left < 20 else "troops"


def _pick_deck(observation: Observation, legal: list[str]) -> str:
    tactics_in_hand = sum(1 for n in observation["hand"] if n in CARD_IDS and
                          CARD_IDS[n] >= NUM_TROOPS)
    want = deck_to_draw(tactics_in_hand, observation["decks"]["troops"])
    for action in legal:
        if action.endswith(want):
            return action
    return legal[0]


def _pick_return(legal: list[str]) -> str:
    def usefulness(action: str) -> int:
        card = CARD_IDS[action.split()[1]]
        return card % 10 if card < NUM_TROOPS else 5

    return min(legal, key=usefulness)


class Board:
    """The observation's board as masks, for quick formation questions."""

    def __init__(self, observation: Observation) -> None:
        self.seat = int(observation["seat"])
        rules = observation["variant"].get("rules", "standard")
        max_value = 9 if rules == "schotten-totten" else 10
        face_up = 0
        players = len(observation["hand_sizes"])
        self.opponents = [s for s in range(players) if s != self.seat]
        self.sides: list[list[int]] = [[0] * 9 for _ in range(players)]
        self.counts: list[list[int]] = [[0] * 9 for _ in range(players)]
        self.fog = [False] * 9
        self.n = [3] * 9
        self.open = [True] * 9
        self.opponent_at = [1 - self.seat] * 9  # the other seat at each flag
        for f, flag in enumerate(observation["flags"]):
            self.fog[f] = flag["fog"] >= 0
            self.n[f] = 4 if flag["mud"] >= 0 else 3
            self.open[f] = flag["claimed"] < 0
            if "seats" in flag:
                a, b = flag["seats"]
                self.opponent_at[f] = b if a == self.seat else a
            for s in range(players):
                for name, _ in flag["sides"][s]:
                    card = CARD_IDS[name]
                    self.sides[s][f] |= 1 << card
                    self.counts[s][f] += 1
                    face_up |= 1 << card
        for pile in observation["discards"]:
            for name in pile:
                face_up |= 1 << CARD_IDS[name]
        self.avail = troop_mask(max_value) & ~face_up & ALL_TROOPS

    def prospect(self, flag: int, side: int, count: int, avail: int) -> float:
        n = self.n[flag]
        if count > n:
            return -1.0
        return float(fm.best_rank(side, n - count, avail, n, self.fog[flag]))

    def value_of_play(self, card: int, flag: int) -> float:
        me, opp = self.seat, self.opponent_at[flag]
        avail = self.avail & ~(1 << card)
        mine = self.prospect(flag, self.sides[me][flag] | 1 << card,
                             self.counts[me][flag] + 1, avail)
        theirs = self.prospect(flag, self.sides[opp][flag], self.counts[opp][flag], avail)
        score = mine - 0.5 * theirs
        if mine > theirs:
            score += 20.0
        return score

    def drop_for_opponent(self, card: int) -> tuple[float, int]:
        """How much removing ``card`` from an opponent's side lowers their prospect."""
        for opp in self.opponents:
            for f in range(9):
                side = self.sides[opp][f]
                if self.open[f] and side >> card & 1:
                    count = self.counts[opp][f]
                    before = self.prospect(f, side, count, self.avail)
                    after = self.prospect(f, side & ~(1 << card), count - 1, self.avail)
                    return before - after, f
        return 0.0, -1


def _pick_play(observation: Observation, legal: list[str], rng: random.Random) -> str:
    board = Board(observation)
    best_score = float("-inf")
    best: list[str] = []
    for action in legal:
        score = _score(board, action)
        if score > best_score + 1e-9:
            best_score, best = score, [action]
        elif abs(score - best_score) <= 1e-9:
            best.append(action)
    return rng.choice(best) if best else rng.choice(legal)


def _score(board: Board, action: str) -> float:
    words = action.split()
    verb = words[0]
    if verb == "play":
        card = CARD_IDS[words[1]]
        score = board.value_of_play(card, int(words[2]) - 1)
        return score - _MORALE_PENALTY if card >= NUM_TROOPS else score
    if verb in ("deserter", "traitor"):
        card = CARD_IDS[words[1]]
        if card >= NUM_TROOPS and verb == "deserter" and words[1] in ("fog", "mud"):
            return -_TACTIC_COST
        drop, _ = board.drop_for_opponent(card)
        bonus = 0.0
        if verb == "traitor":
            bonus = 0.5 * board.value_of_play(card, int(words[2]) - 1)
        return drop + bonus - _TACTIC_COST
    if verb == "pass":
        return -1000.0
    return -100.0 - _TACTIC_COST  # fog, mud, scout, redeploy: only when nothing else
