"""TrueSkill leaderboards and head-to-head tables from stored games.

Games are rated one at a time in **game-id order** (ids are hashes, so the order is a fixed,
well-mixed shuffle), which makes the table a pure function of the stored results: the same games
give the same ratings whatever order workers finished them in.

* Draws are rated as draws. The draw probability fits the game: it is estimated from the rated
  games themselves (draws + 1) / (games + 2), kept within [0.001, 0.5], unless given.
* Team games are rated as teams, as each stored game's ``teams`` column says (War Chest with 4
  players: seats 0 and 2 against 1 and 3); a row without teams is every seat for itself.
* A free-for-all game (three sides: Battle Line with 3 players) is rated by its ranking, read
  from the ``result`` column (a higher result ranks higher, equal results share a rank and are
  ties for TrueSkill). A bot alone in first place wins; sharing first place is a draw; any
  other place is a loss. In the head-to-head matrix each game gives every two bots in it one
  comparison: the row bot scores 1 if it finished above the column bot, ½ level, 0 below.
  The draw probability is then the share of level comparisons.
* Forfeits (timeouts, crashes, illegal actions, protocol errors) are rated as losses of the
  offending bot and counted per bot. A *void* game, where the harness failed with no bot to
  blame, is stored but not rated.

>>> board = leaderboard([GameRow("g1", ["a", "b"], [1.0, -1.0], "normal", None, True)])
>>> [(s.name, s.wins, s.losses) for s in board.bots]
[('a', 1, 0), ('b', 0, 1)]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import trueskill

from harness.records import Termination
from harness.stats.outcome import points, sides_of

FORFEIT_KINDS = tuple(t.value for t in Termination if t.is_forfeit)
FORMATS = ("table", "json", "csv", "markdown")


@dataclass(frozen=True)
class GameRow:
    """The parts of a stored game the ratings need (a row of the games table)."""

    game_id: str
    bots: list[str]
    result: list[float]
    termination: str
    offender: int | None
    rated: bool = True
    teams: Sequence[int] | None = None  # team per seat; None: every seat for itself

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> GameRow:
        """The row of the games table as a mapping (``to_pylist``) -> the ratings' view of it."""
        return cls(row["game_id"], list(row["bots"]), list(row["result"]), row["termination"],
                   row["offender"], row["rated"], row["teams"])


GAME_ROW_COLUMNS = ["game_id", "bots", "result", "termination", "offender", "rated", "teams"]


def game_rows(table: Any) -> list[GameRow]:
    """The rows of a stored games table (pyarrow) as the ratings read them."""
    return [GameRow.of(r) for r in table.select(GAME_ROW_COLUMNS).to_pylist()]


@dataclass
class BotStats:
    name: str
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FORFEIT_KINDS, 0))

    @property
    def rating(self) -> float:
        """The conservative rating: mu − 3·sigma."""
        return self.mu - 3.0 * self.sigma

    @property
    def win_rate(self) -> float:
        """Share of points taken: a win counts 1, a draw 1/2."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    @property
    def forfeit_total(self) -> int:
        return sum(self.forfeits.values())


@dataclass
class Leaderboard:
    bots: list[BotStats]  # best first
    h2h: dict[tuple[str, str], tuple[float, int]]  # (a, b) -> (a's score rate v b, games)
    draw_probability: float
    rated_games: int
    void_games: int


def estimate_draw_probability(rows: Sequence[GameRow]) -> float:
    """The share of draws among rated games, smoothed, kept within [0.001, 0.5]; a game of
    more than two sides counts each two of its sides as one game (drawn when level)."""
    draws = comparisons = 0
    for row in rows:
        if row.rated:
            results = _sides(row)[1]
            for x, y in itertools.combinations(results, 2):
                comparisons += 1
                draws += x == y
    p = (draws + 1) / (comparisons + 2)
    return min(0.5, max(0.001, p))


class _Rater:
    """TrueSkill with a closed-form fast path for one-against-one games."""

    def __init__(self, draw_probability: float) -> None:
        self.env = trueskill.TrueSkill(draw_probability=draw_probability)
        self.margin = trueskill.calc_draw_margin(draw_probability, 2, self.env)
        self.ratings: dict[str, trueskill.Rating] = {}

    def get(self, name: str) -> trueskill.Rating:
        if name not in self.ratings:
            self.ratings[name] = self.env.create_rating()
        return self.ratings[name]

    def one_v_one(self, a: str, b: str, outcome: float) -> None:
        """Rate ``a`` v ``b``; ``outcome`` 1 if a won, 0 draw, -1 if b won."""
        if outcome < 0:
            a, b = b, a
        ra, rb = self.get(a), self.get(b)
        tau2 = self.env.tau ** 2
        va, vb = ra.sigma ** 2 + tau2, rb.sigma ** 2 + tau2
        c = math.sqrt(2 * self.env.beta ** 2 + va + vb)
        t, eps = (ra.mu - rb.mu) / c, self.margin / c
        if outcome == 0:
            v, w = self.env.v_draw(t, eps), self.env.w_draw(t, eps)
        else:
            v, w = self.env.v_win(t, eps), self.env.w_win(t, eps)
        self.ratings[a] = trueskill.Rating(ra.mu + va / c * v, math.sqrt(va * (1 - va / c**2 * w)))
        self.ratings[b] = trueskill.Rating(rb.mu - vb / c * v, math.sqrt(vb * (1 - vb / c**2 * w)))

    def teams(self, groups: list[list[str]], ranks: list[int]) -> None:
        rated = self.env.rate([tuple(self.get(n) for n in g) for g in groups], ranks=ranks)
        for names, new in zip(groups, rated, strict=True):
            for name, rating in zip(names, new, strict=True):
                self.ratings[name] = rating


def _sides(row: GameRow) -> tuple[list[list[str]], list[float]]:
    """Distinct bots of each side and each side's result."""
    groups: list[list[str]] = []
    results: list[float] = []
    teams = row.teams if row.teams else range(len(row.bots))
    for seats in sides_of(teams):
        names: list[str] = []
        for seat in seats:
            if row.bots[seat] not in names:
                names.append(row.bots[seat])
        groups.append(names)
        results.append(row.result[seats[0]])
    return groups, results


def leaderboard(rows: Iterable[GameRow], draw_probability: float | None = None) -> Leaderboard:
    """Rate ``rows`` in game-id order and count wins, draws, losses and forfeits per bot."""
    ordered = sorted(rows, key=lambda r: r.game_id)
    p = draw_probability if draw_probability is not None else estimate_draw_probability(ordered)
    rater = _Rater(p)
    stats: dict[str, BotStats] = {}
    pair_points: dict[tuple[str, str], list[float]] = {}
    rated = void = 0

    def stat(name: str) -> BotStats:
        if name not in stats:
            r = rater.get(name)
            stats[name] = BotStats(name, r.mu, r.sigma)
        return stats[name]

    for row in ordered:
        for name in row.bots:
            stat(name)
        if row.offender is not None and row.termination in FORFEIT_KINDS:
            stat(row.bots[row.offender]).forfeits[row.termination] += 1
        if not row.rated:
            void += 1
            continue
        groups, results = _sides(row)
        if len({n for g in groups for n in g}) != sum(len(g) for g in groups):
            void += 1  # one bot on two sides: nothing to learn
            continue
        rated += 1
        _count(stats, groups, results, pair_points)
        if len(groups) == 2 and len(groups[0]) == len(groups[1]) == 1:
            diff = results[0] - results[1]
            rater.one_v_one(groups[0][0], groups[1][0], (diff > 0) - (diff < 0))
        else:
            rater.teams(groups, [-round(x * 1000) for x in results])
    for name, s in stats.items():
        r = rater.get(name)
        s.mu, s.sigma = r.mu, r.sigma
    board = sorted(stats.values(), key=lambda s: (-s.rating, -s.mu, s.name))
    h2h = {k: ((v[0] / v[1]) if v[1] else 0.0, int(v[1])) for k, v in pair_points.items()}
    return Leaderboard(board, h2h, p, rated, void)


def _count(stats: dict[str, BotStats], groups: list[list[str]], results: list[float],
           pair_points: dict[tuple[str, str], list[float]]) -> None:
    best = max(results)
    shared_first = results.count(best) > 1  # a draw, or free-for-all seats level at the top
    for side, names in enumerate(groups):
        mine = results[side]
        for name in names:
            s = stats[name]
            s.games += 1
            if mine == best and shared_first:
                s.draws += 1
            elif mine == best:
                s.wins += 1
            else:
                s.losses += 1
        for other, other_names in enumerate(groups):
            if other == side:
                continue
            theirs = results[other]
            got = points(mine, theirs)
            for name in names:
                for opp in other_names:
                    acc = pair_points.setdefault((name, opp), [0.0, 0.0])
                    acc[0] += got
                    acc[1] += 1


# ----------------------------------------------------------------------------- output


def leaderboard_rows(board: Leaderboard) -> list[dict[str, Any]]:
    """One plain dict per bot, best first (the json/csv form)."""
    out: list[dict[str, Any]] = []
    for rank, s in enumerate(board.bots, start=1):
        out.append({
            "rank": rank, "bot": s.name, "mu": round(s.mu, 3), "sigma": round(s.sigma, 3),
            "rating": round(s.rating, 3), "games": s.games, "wins": s.wins, "draws": s.draws,
            "losses": s.losses, "win_rate": round(s.win_rate, 4),
            "forfeits": s.forfeit_total, **{f"forfeits_{k}": v for k, v in s.forfeits.items()},
        })
    return out


def h2h_rows(board: Leaderboard) -> list[dict[str, Any]]:
    names = [s.name for s in board.bots]
    return [
        {"bot": a, "opponent": b, "win_rate": round(board.h2h[(a, b)][0], 4),
         "games": board.h2h[(a, b)][1]}
        for a in names for b in names if (a, b) in board.h2h
    ]


def h2h_cells(board: Leaderboard) -> tuple[list[str], list[list[str]]]:
    names = [s.name for s in board.bots]
    head = ["", *names]
    rows = []
    for a in names:
        row = [a]
        for b in names:
            if a == b:
                row.append("-")
            elif (a, b) in board.h2h:
                rate, n = board.h2h[(a, b)]
                row.append(f"{100 * rate:.0f}% ({n})")
            else:
                row.append("")
        rows.append(row)
    return head, rows


def aligned(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if j != 1 else c.ljust(w)
                         for j, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(head), rule, *(line(r) for r in rows)])


def markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
