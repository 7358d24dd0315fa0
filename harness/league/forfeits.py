"""Forfeits during a league, per bot and kind, and bots that keep failing before their first
move.

A bot that forfeits before making a move (at start-up or on its first decision) in ``STREAK``
games in a row (a dependency that vanished, a file edited into a syntax error) is named in the
progress line and the summary; with ``--strict`` the first forfeit stops the league.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness.records import GameRecord, PackedRecord

STREAK = 3  # games in a row a bot forfeits before its first move, then it is reported


def record_field(record: GameRecord | PackedRecord, name: str) -> Any:
    """A field of a record, packed or not (the termination as its string value)."""
    if isinstance(record, PackedRecord):
        return record.field(name)
    value = getattr(record, name)
    return value.value if name == "termination" else value


@dataclass
class Forfeits:
    """The forfeits seen so far: counts per (bot, termination), and per bot the games in a
    row it forfeited before its first move."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    streak: dict[str, int] = field(default_factory=dict)
    failing: set[str] = field(default_factory=set)  # bots whose streak reached STREAK
    first: str = ""  # the first forfeit of the run: "game g... : reason"

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def add(self, seats: list[str], termination: str, offender: int | None, reason: str,
            game_id: str, offender_moves: int) -> bool:
        """Count one finished game; True when it was a forfeit."""
        for name in seats:
            if offender is None or name != seats[offender]:
                self.streak[name] = 0
        if offender is None:
            return False
        bot = seats[offender]
        self.counts[(bot, termination)] += 1
        if not self.first:
            self.first = f"game {game_id}: {reason}"
        if offender_moves == 0:
            self.streak[bot] = self.streak.get(bot, 0) + 1
            if self.streak[bot] >= STREAK:
                self.failing.add(bot)
        else:
            self.streak[bot] = 0
        return True

    def add_record(self, record: GameRecord | PackedRecord) -> bool:
        """Count a finished game, as the executor gave it."""
        offender = record.offender
        if isinstance(record, GameRecord):
            moves = [m.seat for m in record.moves]
        else:
            moves = list(record.moves[1])  # the seats column of the packed moves
        made = sum(1 for s in moves if s == offender) if offender is not None else 0
        return self.add(list(record.seats), str(record_field(record, "termination")), offender,
                        str(record_field(record, "reason")), record.game_id, made)

    def progress_text(self) -> str:
        text = f"forfeits {self.total}"
        if self.failing:
            text += f" (failing before a first move: {', '.join(sorted(self.failing))})"
        return text

    def summary_lines(self) -> list[str]:
        if not self.counts:
            return ["forfeits: none"]
        per_bot: dict[str, list[str]] = {}
        for (bot, kind), n in sorted(self.counts.items()):
            per_bot.setdefault(bot, []).append(f"{n} {kind}")
        lines = [f"forfeits: {self.total} ("
                 + "; ".join(f"{bot}: {', '.join(kinds)}" for bot, kinds in per_bot.items())
                 + ")"]
        for bot in sorted(self.failing):
            lines.append(f"WARNING: {bot} forfeited before its first move in {STREAK} or more "
                         f"games in a row: check it with `tourney validate` (its logs are in the "
                         f"folder's logs/)")
        return lines

    def to_json(self) -> dict[str, Any]:
        per_bot: dict[str, dict[str, int]] = {}
        for (bot, kind), n in sorted(self.counts.items()):
            per_bot.setdefault(bot, {})[kind] = n
        return {"total": self.total, "per_bot": per_bot,
                "failing_before_first_move": sorted(self.failing)}
