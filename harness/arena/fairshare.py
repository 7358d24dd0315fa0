"""Each entrant's fair share of the workers' time in a living league.

The matchmaker chooses pairs for what they teach about the ratings; it knows nothing of what
they cost. A bot that thinks just under the move limit makes every game it plays last a hundred
times longer than its neighbours', and the matchmaker, which wants its rating as sure as the
others', would give it its full share of games: the league's rate falls to that bot's pace
(67 games a minute to 2, in one competition). So the arena keeps a **ledger of worker time per
entrant** (:class:`FairShare`) and lets it veto pairings:

* **Charges.** Every stored game charges each seat the time its bot thought, and an equal part
  of the rest of the game (start-up, the referee). The same seconds are credited in equal parts
  to every entrant that could play then: an entrant's balance is its fair share of the time
  spent so far minus what its bots used. The balances always add up to zero.
* **The gate.** While a wave is chosen (:meth:`Matchmaker.choose_many`), an entrant may get one
  more pair only while its balance, less what the pairs already chosen for it will cost (its
  mean cost per game so far), is above ``-slack``: ``slack_games`` times the typical entrant's
  cost of a game (8 by default) or ``slack_seconds`` (5), whichever is more, so that bots
  whose games cost about the same are not held back by noise. An entrant whose cost is not
  known yet gets one pair a wave until its first game is charged. When fewer than two
  entrants may play at the start of a wave, the gate stands aside for that wave (nobody else
  could use the workers); when that happens later in a wave, the wave ends there.
* **Longest first.** A wave's pairs are played in the order of their expected cost, longest
  first, so a slow pair starts at once instead of holding the wave's end while the other
  workers idle.

A slow entrant still plays, at the pace its share of the time allows; everyone else keeps the
rate they would have without it, less that share. The ledger lives in the running arena (a
restart starts it again from zero) and is per entrant, so a new version does not clear a debt.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.records import GameRecord, PackedRecord

SLACK_GAMES = 8.0  # how far ahead of its share an entrant may run, in typical games ...
SLACK_SECONDS = 5.0  # ... or in seconds of worker time, whichever is more
SMOOTHING = 0.2  # weight of the newest game in an entrant's mean cost per game
FLOOR = 0.001  # seconds: the least cost a game is taken to have


def entrant_of(bot: str) -> str:
    """The entrant a rated bot name belongs to (``alice.v2`` -> ``alice``)."""
    name, dot, version = bot.rpartition(".v")
    return name if dot and version.isdigit() else bot


class FairShare:
    """The ledger: per entrant, its balance of worker seconds and its mean cost per game."""

    def __init__(self, slack_games: float = SLACK_GAMES,
                 slack_seconds: float = SLACK_SECONDS) -> None:
        self.slack_games = slack_games
        self.slack_seconds = slack_seconds
        self.balance: dict[str, float] = {}
        self.cost: dict[str, float] = {}  # mean seconds a game costs the entrant's seat
        self.charged: dict[str, float] = {}  # seconds charged in all (for reports)

    def charge(self, record: GameRecord | PackedRecord, playing: Iterable[str]) -> None:
        """Charge a finished game to its seats and credit it to the entrants of ``playing``
        (the bots that could play when it finished)."""
        from harness.league.forfeits import record_field

        seats = list(record.seats)
        think = [float(t) for t in record_field(record, "think_time")]
        duration = float(record_field(record, "duration"))
        if not seats or len(think) != len(seats):
            return
        rest = max(0.0, duration - sum(think)) / len(seats)
        costs: dict[str, float] = {}
        for bot, seconds in zip(seats, think, strict=True):
            who = entrant_of(bot)
            costs[who] = costs.get(who, 0.0) + seconds + rest
        entrants = {entrant_of(b) for b in playing} | set(costs)
        total = sum(costs.values())
        for who in entrants:
            self.balance[who] = self.balance.get(who, 0.0) + total / len(entrants)
        for who, seconds in costs.items():
            self.balance[who] -= seconds
            self.charged[who] = self.charged.get(who, 0.0) + seconds
            seats_here = sum(entrant_of(b) == who for b in seats)
            per_game = max(FLOOR, seconds / max(1, seats_here))
            known = self.cost.get(who)
            self.cost[who] = per_game if known is None else \
                (1 - SMOOTHING) * known + SMOOTHING * per_game

    def typical(self, entrants: Iterable[str]) -> float:
        """The median cost of a game to an entrant's seat, among ``entrants`` whose cost is
        known (the floor when none is)."""
        known = [self.cost[e] for e in entrants if e in self.cost]
        return max(FLOOR, statistics.median(known)) if known else FLOOR

    def expected(self, bot: str, others: Iterable[str]) -> float:
        """What a game is expected to cost ``bot``'s seat (the typical cost if unknown)."""
        who = entrant_of(bot)
        return self.cost[who] if who in self.cost else self.typical(others)

    def gate(self, bots: Sequence[str], games_per_pair: int = 2) -> Gate:
        """The veto for one wave over the active ``bots``."""
        return Gate(self, bots, games_per_pair)

    def order(self, pairs: list[tuple[str, str]], bots: Sequence[str]) -> list[int]:
        """The indices of ``pairs``, the most costly first (ties keep their order)."""
        cost = [self.expected(a, bots) + self.expected(b, bots) for a, b in pairs]
        return sorted(range(len(pairs)), key=lambda i: -cost[i])


class Gate:
    """One wave's view of the ledger: the pairs chosen so far are counted at their expected
    cost (the matchmaker asks :meth:`allowed` before each choice and tells :meth:`chosen`)."""

    def __init__(self, ledger: FairShare, bots: Sequence[str], games_per_pair: int) -> None:
        self.ledger = ledger
        self.bots = list(bots)
        self.games = games_per_pair
        entrants = {entrant_of(b) for b in self.bots}
        self.entrants = entrants
        self.balance = {e: ledger.balance.get(e, 0.0) for e in entrants}
        self.slack = max(ledger.slack_seconds, ledger.slack_games * ledger.typical(entrants))
        self.unknown_chosen: set[str] = set()
        self.pairs = 0
        self.open = False  # the gate stands aside for this wave

    def allowed(self) -> set[str]:
        """The bots that may get one more pair now (empty or one: the wave ends)."""
        if self.open:
            return set(self.bots)
        ok = {b for b in self.bots if self._may(entrant_of(b))}
        if len(ok) < 2 and self.pairs == 0:
            self.open = True  # nobody else could use the workers
            return set(self.bots)
        return ok

    def _may(self, who: str) -> bool:
        if who not in self.ledger.cost:
            return who not in self.unknown_chosen
        return self.balance[who] > -self.slack

    def chosen(self, a: str, b: str) -> None:
        self.pairs += 1
        costs: dict[str, float] = {}
        for bot in (a, b):
            who = entrant_of(bot)
            if who not in self.ledger.cost:
                self.unknown_chosen.add(who)
            costs[who] = costs.get(who, 0.0) + self.games * self.ledger.expected(bot, self.bots)
        total = sum(costs.values())
        for who in self.balance:
            self.balance[who] += total / len(self.balance)
        for who, seconds in costs.items():
            if who in self.balance:
                self.balance[who] -= seconds
