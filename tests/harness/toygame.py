"""A tiny hidden-information card game that implements games.protocol fully.

"Toy duel": the cards 1..9 are shuffled by the seed; each player is dealt ``hand`` cards,
hidden from the others, and the rest is a hidden deck. In turn a player either plays a card
face up onto their pile (``play N``; then they draw if the deck has cards) or passes
(``pass``). When every hand is empty, the highest pile total wins (equal best totals: a
stalemate). A game still running after ``max_decisions`` decisions is a draw (move cap).

It exists so the harness tests are game-agnostic: the referee, sandbox and CLI must work for it
exactly as for Battle Line and War Chest.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from games.protocol import GameEnd, GameInfo, IllegalAction, InvalidAction, Variant

JSON = dict[str, Any]
_ACTION = re.compile(r"pass|play [1-9]")
MAX_DECISIONS = 40

INFO = GameInfo(
    name="toyduel",
    title="Toy duel",
    rules_version="1",
    players=(2, 3),
    max_decisions=MAX_DECISIONS,
    variants=(
        Variant("players", "2", ("2", "3"), "number of players"),
        Variant("hand", "2", ("1", "2", "3"), "cards in each hand"),
    ),
)


@dataclass
class ToyState:
    seed: int
    variant: dict[str, str]
    hands: list[list[int]]
    deck: list[int]
    piles: list[list[int]]
    to_move: int = 0
    history: list[str] = field(default_factory=list)

    @property
    def num_players(self) -> int:
        return len(self.hands)

    @property
    def current_player(self) -> int:
        return -1 if self.is_terminal() else self.to_move

    def legal_actions(self) -> list[str]:
        if self.is_terminal():
            return []
        return sorted({"pass", *(f"play {c}" for c in self.hands[self.to_move])})

    def apply(self, action: str) -> None:
        if not isinstance(action, str) or not _ACTION.fullmatch(action):
            raise InvalidAction(f"{action!r} is not an action: write 'play N' (N 1..9) or 'pass'")
        if self.is_terminal():
            raise IllegalAction(f"{action!r}: the game is over")
        hand = self.hands[self.to_move]
        if action != "pass":
            card = int(action[5:])
            if card not in hand:
                raise IllegalAction(f"{action!r}: card {card} is not in the hand of the mover")
            hand.remove(card)
            self.piles[self.to_move].append(card)
            if self.deck:
                hand.append(self.deck.pop())
        self.history.append(action)
        self.to_move = (self.to_move + 1) % self.num_players

    def _totals(self) -> list[int]:
        return [sum(p) for p in self.piles]

    def end(self) -> tuple[GameEnd, str] | None:
        if all(not h for h in self.hands):
            totals = self._totals()
            best = max(totals)
            if totals.count(best) > 1:
                return GameEnd.STALEMATE, f"equal best totals {totals}"
            return GameEnd.NORMAL, f"seat {totals.index(best)} has the best total ({totals})"
        if len(self.history) >= MAX_DECISIONS:
            return GameEnd.MOVE_CAP, f"{MAX_DECISIONS} decisions: draw by adjudication"
        return None

    def is_terminal(self) -> bool:
        return self.end() is not None

    def returns(self) -> list[float]:
        ended = self.end()
        if ended is None or ended[0] is not GameEnd.NORMAL:
            return [0.0] * self.num_players
        totals = self._totals()
        best = max(totals)
        return [1.0 if t == best else -1.0 for t in totals]

    def scores(self) -> list[float]:
        return [float(t) for t in self._totals()]

    def clone(self) -> ToyState:
        return ToyState.from_json(self.to_json())

    def observation(self, seat: int) -> JSON:
        return {
            "game": INFO.name,
            "seat": seat,
            "current_player": self.current_player,
            "hand": sorted(self.hands[seat]),
            "hand_sizes": [len(h) for h in self.hands],
            "deck_size": len(self.deck),
            "piles": [list(p) for p in self.piles],
            "history": list(self.history),
        }

    def to_json(self) -> JSON:
        return {
            "seed": self.seed,
            "variant": dict(self.variant),
            "hands": [list(h) for h in self.hands],
            "deck": list(self.deck),
            "piles": [list(p) for p in self.piles],
            "to_move": self.to_move,
            "history": list(self.history),
        }

    @staticmethod
    def from_json(data: JSON) -> ToyState:
        return ToyState(
            seed=int(data["seed"]),
            variant=dict(data["variant"]),
            hands=[list(h) for h in data["hands"]],
            deck=list(data["deck"]),
            piles=[list(p) for p in data["piles"]],
            to_move=int(data["to_move"]),
            history=list(data["history"]),
        )

    def __str__(self) -> str:
        rows = [f"toyduel seed {self.seed} decisions {len(self.history)}"]
        for seat in range(self.num_players):
            mark = ">" if seat == self.current_player else " "
            hand, pile = sorted(self.hands[seat]), self.piles[seat]
            rows.append(f"{mark} seat {seat}: hand {hand} pile {pile}")
        rows.append(f"  deck {len(self.deck)} cards")
        return "\n".join(rows)


class ToyGame:
    info = INFO

    def new_game(self, seed: int, **variant: str) -> ToyState:
        var = INFO.resolve_variant(variant)
        players, hand = int(var["players"]), int(var["hand"])
        cards = list(range(1, 10))
        random.Random(seed).shuffle(cards)
        hands = [sorted(cards[i * hand : (i + 1) * hand]) for i in range(players)]
        deck = cards[players * hand :][:players]  # one refill per player
        return ToyState(seed, var, hands, deck, [[] for _ in range(players)])

    def state_from_json(self, data: JSON) -> ToyState:
        return ToyState.from_json(data)

    def sample_state(self, observation: JSON, rng: random.Random) -> ToyState:
        seat = int(observation["seat"])
        seen = set(observation["hand"]) | {c for p in observation["piles"] for c in p}
        game = self.new_game(0, players=str(len(observation["piles"])))
        unseen = [c for c in range(1, 10) if c not in seen]
        rng.shuffle(unseen)
        hands: list[list[int]] = []
        for other, size in enumerate(observation["hand_sizes"]):
            if other == seat:
                hands.append(list(observation["hand"]))
            else:
                hands.append(sorted(unseen[:size]))
                unseen = unseen[size:]
        history = list(observation["history"])
        return ToyState(
            seed=game.seed,
            variant=dict(game.variant),
            hands=hands,
            deck=unseen[: observation["deck_size"]],
            piles=[list(p) for p in observation["piles"]],
            to_move=len(history) % len(hands),
            history=history,
        )


GAME = ToyGame()
