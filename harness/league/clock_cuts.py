"""Decisions that reached the clock's safety net during a league, per bot, summed up once at
its end.

The built-in ``mcts`` searches a fixed budget, so a game is the one its seed gives whatever the
machine's load; its clock is only a safety net, at 90 % of the move time and at least 20 ms
short of it (:func:`agents.mcts.safety_net`, read from there). On a machine slowed several
times over (more workers than cores) the net stops decisions short of their budget, and from
the first such decision the game is no longer the one its seed gives. The bot logs it in its
own log; the league counts it from outside, for every bot alike, from each move's think time
against its seat's move time, and prints one line per bot that got there (nothing when none
did), with the remedy.

A decision counts when its think time came within ``1 - NEAR`` of the net: a search stops when
its *next* iteration would pass the net, so a decision the net cut ends a little short of it
(on Battle Line, at 94 to 100 % of it). For any other bot the count is of decisions that
took nearly all of their move time.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness.records import GameRecord, GameSpec, PackedRecord

NEAR = 0.9  # of the net's time: a decision that took this much of it counts (see above)


@dataclass
class ClockCuts:
    """Per bot: the decisions that reached the safety net, the games they were in, and the move
    time they had."""

    decisions: Counter[str] = field(default_factory=Counter)
    games: Counter[str] = field(default_factory=Counter)
    move_time: dict[str, float] = field(default_factory=dict)
    _near: dict[float, float] = field(default_factory=dict, repr=False)  # move time -> seconds

    def near(self, move_time: float) -> float:
        """The think time from which a decision of ``move_time`` counts."""
        seconds = self._near.get(move_time)
        if seconds is None:
            seconds = self._near[move_time] = NEAR * _net(move_time)
        return seconds

    def add(self, seats: list[str], move_times: list[float], seat_of: list[int],
            think: list[float]) -> int:
        """Count one game: its bots and move times per seat, and per move the seat that made it
        and its think time. Returns the decisions counted."""
        if not think:
            return 0
        near = [self.near(t) for t in move_times]
        if max(think) < min(near):
            return 0
        per_seat: Counter[int] = Counter(s for s, t in zip(seat_of, think, strict=True)
                                         if t >= near[s])
        for bot in {seats[s] for s in per_seat}:
            self.games[bot] += 1
        for seat, n in per_seat.items():
            self.decisions[seats[seat]] += n
            self.move_time[seats[seat]] = move_times[seat]
        return sum(per_seat.values())

    def add_record(self, record: GameRecord | PackedRecord, spec: GameSpec) -> int:
        """Count a finished game, as the executor gave it, under the limits of its ``spec``."""
        if isinstance(record, GameRecord):
            seat_of = [m.seat for m in record.moves]
            think = [m.think_time for m in record.moves]
        else:
            seat_of = list(record.moves[1])  # the seats column of the packed moves
            think = record.think_times()
        seats = list(record.seats)
        return self.add(seats, [spec.limits_of(s).move_time for s in range(len(seats))],
                        seat_of, think)

    def summary_lines(self) -> list[str]:
        """One line per bot whose decisions reached the net (none when no decision did)."""
        lines = []
        for bot, n in sorted(self.decisions.items()):
            move_time = self.move_time[bot]
            lines.append(
                f"clock: {bot} reached the clock's safety net ({_seconds(_net(move_time))} of its "
                f"{_seconds(move_time)} move time) in {_count(n, 'decision')} of "
                f"{_count(self.games[bot], 'game')}: a fixed-budget search such as mcts stops "
                f"short of its budget, so the games it was in are not the ones their seeds "
                f"give; use fewer workers (-j) or a longer --move-time")
        return lines

    def to_json(self) -> dict[str, Any]:
        return {bot: {"decisions": n, "games": self.games[bot],
                      "move_time": self.move_time[bot]}
                for bot, n in sorted(self.decisions.items())}


def _net(move_time: float) -> float:
    from agents.mcts import safety_net  # its one home (the engines it imports load once)

    return safety_net(move_time)


def _seconds(value: float) -> str:
    return f"{value:.3g} s"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"
