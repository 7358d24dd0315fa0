"""How a game counts: the one place that reads a stored game as sides, points, comparisons,
draws, void games and forfeits.

A game is played by seats; the statistics compare **sides**: a seat on its own, or the seats of
a team (``teams`` in a stored row gives each seat's team; War Chest's four players sit as two
teams). Each side has a **score** (only the order matters: higher is better, equal is level).
Between two sides the first takes 1 point, ½ or 0 (:func:`points`). A **void** game (the
harness failed, not a bot) counts for nobody; a **forfeit** is a result like any other: the
offender's side lost.

Every consumer reads games through :class:`Result` (:meth:`Result.from_row` for a row of the
games table, :meth:`Result.from_seats` for per-seat data): the batch Elo fit, duplicate pairs,
the SPRT gate, the ladder, the TrueSkill leaderboard, the progress bar, the arena's standings
and the benchmarks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from harness.records import Termination

Placing = Literal["win", "draw", "loss"]
FORFEITS = tuple(t.value for t in Termination if t.is_forfeit)  # a bot's fault, by kind
#: The columns of the games table the statistics read (:meth:`Result.from_row` and the
#: TrueSkill leaderboard's forfeit counts).
COLUMNS = ["game_id", "bots", "result", "termination", "offender", "rated", "teams", "pair_id"]


def points(mine: float, theirs: float) -> float:
    """The points of a side with score ``mine`` against one with ``theirs``: 1, ½ or 0.

    >>> points(1, -1), points(0, 0), points(2, 3)
    (1.0, 0.5, 0.0)
    """
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def sides_of(teams: Sequence[int]) -> list[list[int]]:
    """The seats of each side, in order of first seat, from the team of each seat.

    >>> sides_of([0, 1, 0, 1])
    [[0, 2], [1, 3]]
    """
    sides: dict[int, list[int]] = {}
    for seat, team in enumerate(teams):
        sides.setdefault(int(team), []).append(seat)
    return list(sides.values())


@dataclass(frozen=True, slots=True)
class Result:
    """One game as the statistics see it: plain data, one row of the games table.

    ``sides`` holds the bots of each side (a side is one seat, or a team's seats), ``scores`` the
    result of each side (only the order matters: higher is better, equal is a draw).
    """

    sides: tuple[tuple[str, ...], ...]
    scores: tuple[float, ...]
    pair_id: str = ""
    void: bool = False
    game_id: str = ""  # its id (the TrueSkill table rates in id order)
    forfeit: tuple[str, str] | None = None  # (the offending bot, the kind), when a bot forfeited

    def __post_init__(self) -> None:
        if len(self.sides) < 2 or len(self.sides) != len(self.scores):
            raise ValueError(f"a result needs two or more sides, each with a score; got "
                             f"{len(self.sides)} sides and {len(self.scores)} scores")
        if any(len(side) == 0 for side in self.sides):
            raise ValueError("a result has a side with no bot")

    @classmethod
    def from_seats(cls, bots: Sequence[str], scores: Sequence[float], *,
                   teams: Sequence[Sequence[int]] | None = None, pair_id: str = "",
                   void: bool = False, game_id: str = "",
                   forfeit: tuple[str, str] | None = None) -> Result:
        """A result from per-seat bots and scores; ``teams`` lists the seats of each side
        (default: every seat is its own side). A team's score is its first seat's.

        >>> Result.from_seats(["a", "b", "a", "b"], [1, -1, 1, -1], teams=[[0, 2], [1, 3]]).sides
        (('a', 'a'), ('b', 'b'))
        """
        groups = [[s] for s in range(len(bots))] if teams is None else teams
        return cls(tuple(tuple(bots[s] for s in g) for g in groups),
                   tuple(float(scores[g[0]]) for g in groups), pair_id, void, game_id, forfeit)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Result:
        """A row of the games table (``bots``, ``result``, and ``teams``, ``pair_id``,
        ``rated``, ``game_id``, ``termination`` and ``offender`` when present): one side per
        team, void when the game is not rated, the forfeit when a bot committed one.

        >>> Result.from_row({"bots": ["a", "b"], "result": [1.0, -1.0], "rated": True}).scores
        (1.0, -1.0)
        """
        bots = [str(b) for b in row["bots"]]
        teams = row.get("teams")
        offender, kind = row.get("offender"), row.get("termination")
        forfeit = (bots[offender], str(kind)) if offender is not None and kind in FORFEITS \
            else None
        return cls.from_seats(bots, [float(x) for x in row["result"]],
                              teams=sides_of(teams) if teams else None,
                              pair_id=str(row.get("pair_id") or ""),
                              void=not row.get("rated", True),
                              game_id=str(row.get("game_id") or ""), forfeit=forfeit)

    def side_of(self, bot: str) -> int | None:
        """The side ``bot`` sits on (None: not at this table)."""
        return next((k for k, side in enumerate(self.sides) if bot in side), None)

    def points(self, a: str, b: str) -> float | None:
        """``a``'s points against ``b`` (None when either is absent, they share a side, or the
        game is void)."""
        x, y = self.side_of(a), self.side_of(b)
        if self.void or x is None or y is None or x == y:
            return None
        return points(self.scores[x], self.scores[y])

    def comparisons(self) -> Iterator[tuple[int, int, float]]:
        """Every two sides ``(x, y, x's points)``, x before y (nothing for a void game)."""
        if self.void:
            return
        for x in range(len(self.sides)):
            for y in range(x + 1, len(self.sides)):
                yield x, y, points(self.scores[x], self.scores[y])

    def placing(self, side: int) -> Placing:
        """How ``side`` finished: ``win`` alone at the top, ``draw`` sharing the top (every side
        level, or free-for-all seats level at the top), ``loss`` below it."""
        best = max(self.scores)
        if self.scores[side] != best:
            return "loss"
        return "draw" if self.scores.count(best) > 1 else "win"

    def two_sided(self) -> tuple[str, str, float] | None:
        """A game of two sides of one bot each (a team's teammates being one bot) as
        ``(x, y, x's points)``; None for any other game, or a void one."""
        names = [set(side) for side in self.sides]
        if self.void or len(names) != 2 or any(len(n) != 1 for n in names):
            return None
        (x,), (y,) = names
        if x == y:
            return None
        return x, y, points(*self.scores)
