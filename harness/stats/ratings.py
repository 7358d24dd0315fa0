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

Games come as the shared :class:`~harness.stats.outcome.Result` (its ``game_id`` orders them,
its ``forfeit`` names the offender); the tables people read are made in
:mod:`harness.figures.verdicts`.

>>> board = leaderboard([Result((("a",), ("b",)), (1.0, -1.0), game_id="g1")])
>>> [(s.name, s.wins, s.losses) for s in board.bots]
[('a', 1, 0), ('b', 0, 1)]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import trueskill

from harness.stats.outcome import FORFEITS, Result, points

FORFEIT_KINDS = FORFEITS


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
    def score(self) -> float:
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


def estimate_draw_probability(rows: Sequence[Result]) -> float:
    """The share of draws among rated games, smoothed, kept within [0.001, 0.5]; a game of
    more than two sides counts each two of its sides as one game (drawn when level)."""
    draws = comparisons = 0
    for row in rows:
        if not row.void:
            for x, y in itertools.combinations(row.scores, 2):
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


def _sides(row: Result) -> list[list[str]]:
    """The distinct bots of each side."""
    return [list(dict.fromkeys(side)) for side in row.sides]


def leaderboard(rows: Iterable[Result], draw_probability: float | None = None) -> Leaderboard:
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
        for side in row.sides:
            for name in side:
                stat(name)
        if row.forfeit is not None:
            offender, kind = row.forfeit
            stat(offender).forfeits[kind] += 1
        if row.void:
            void += 1
            continue
        groups, results = _sides(row), list(row.scores)
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
