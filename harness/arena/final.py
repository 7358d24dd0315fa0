"""The final stage of a living league: a **Swiss** or **knockout** stage over the arena's top bots,
as pure logic. Nothing here plays or stores a game: the caller asks for the pairings to play,
plays each as one or more *duplicate pairs* (two games on one secret deal, seats swapped), stores
the result as a :class:`Meeting`, and asks again. Every answer is a function of the meetings
given (their order does not matter), so a process restarted after a crash asks again and gets
the same pairings; the pairings of a round depend only on the meetings of earlier rounds, so a
round half stored before the crash is finished with the pairings it was started with.

Bots are named by strings; ``seeds`` lists them best first (the arena's order), seed 1 first.

Meetings and results
--------------------
A :class:`Meeting` is the games of one round between two bots, with ``a``'s points (win 1,
draw ½) over ``games`` games. ``a`` and ``b`` may be stored in either order. A meeting is *won*
by ``a`` when ``points_a > games / 2``, *drawn* when equal, *lost* otherwise.

Swiss rules
-----------
* **Scores.** A meeting won is 1 *match point*, drawn ½, lost 0. *Game points* are the points
  over the games themselves.
* **Ranking for pairing.** Match points (most first), then seed. Game points are not used: the
  order is simple and stable.
* **Bye.** When the field is odd, one bot sits out each round: the lowest ranked bot that has not
  had a bye yet (each bot sits out at most once), unless the others could then be paired only
  with more rematches than with another choice, or could not complete the stage without
  rematches (see *completion*); then the next lowest. A bye is **1 match point, no game points
  and no games** (it counts as a meeting won, as in FIDE's pairing-allocated bye), and adds
  nothing to the bot's Buchholz (it has no opponent). It counts in the standings once its round
  is complete.
* **Score groups.** The other bots are paired from the top in *brackets*: a score group (the bots
  on equal match points) together with the bots floated down to it from above. Within a bracket
  the top half meets the bottom half in order (Dutch system: of eight, 1st v 5th, 2nd v 6th, 3rd v
  7th, 4th v 8th). When that pair is not allowed, the top bot's next opponent is tried: the rest
  of the bottom half in order, then the top half from its lowest up. A bracket pairs as many of
  its bots as it can; the odd one out (the lowest who can) *floats* down and meets the top of
  the next bracket.
* **No rematches**, when avoidable; otherwise the fewest possible (a maximum matching of the
  pairs not yet met decides that number exactly). With the completion check below, a stage's
  own rounds need a rematch only after a pairing the check's budget could not settle.
* **Completion.** A round is paired so that the rounds left can still all be paired without
  rematches (and, in an odd field, with byes to distinct bots), as FIDE's absolute criterion on
  the completion of the tournament asks. This matters when the stage is long for its field (more
  rounds than half the field; always true of a full round robin): an early pairing can otherwise
  leave, say, a triangle and a pentagon of unplayed pairs among eight bots, which no round can
  pair. The check is an exact search, bounded by a fixed number of steps (so it is
  deterministic); a pairing it cannot refute within the bound is accepted. The pairing search
  is bounded likewise: beyond it, the round is paired from the top, each bot taking its first
  allowed opponent in the order above that keeps the fewest rematches possible. Simulated stages
  (8 bots over 7 rounds to 64 over 20, and full round robins of up to 32) come nowhere near
  either bound.
* **Length.** At most a round robin: N − 1 rounds for an even field, N for an odd one (each bot
  then sits out once). More would force rematches and are refused.
* **Seats** do not matter: each duplicate pair plays both seat orders. A :class:`Pairing` names
  the better seed first; a round's pairings are listed top board first.
* **Standings.** Match points, then Buchholz (the sum of the match points of the opponents met,
  once per meeting), then game points, then seed. Ranks are 1, 2, 3, … without ties (the seed
  decides the last ones). Meetings of a round in progress count; its bye does not yet.

Knockout rules
--------------
* **Bracket.** Single elimination over the next power of two, in the standard seeded order: 1 v
  8, 4 v 5, 2 v 7, 3 v 6 for eight (recursively: 1 v 4, 2 v 3 becomes 1 v 8, 4 v 5, 2 v 7, 3 v 6),
  so seeds 1 and 2 can meet only in the final, seeds 1–4 only in the semi-finals. When N is not a
  power of two, the missing seeds are byes, which fall to the top seeds (of six: seeds 1 and 2
  go straight to round 2).
* **Matches.** A match is one meeting. If it ends level on points, it gets a **tie-break**: one
  more meeting of the same round and pair (meant as one duplicate pair), up to
  ``max_tiebreak_pairs`` of them; the first one not level decides it. If all are level, **the
  better seed goes through** (its seed was earned in the arena over many more games). Since every
  meeting before the deciding one is level, the winner is the bot ahead on the total over all the
  match's meetings. A decided match stored with a second meeting not level is refused.
* **Rounds** are played one at a time: ``next_pairings`` returns every undecided match of the
  current round (first meetings and tie-breaks alike; :attr:`Pairing.tiebreak` tells which).
* **Standings.** The champion, the runner-up, then the others by the round they fell in (later
  first), better seed first within a round. ``match_points`` counts matches won (a bye is not a
  match), ``tiebreak`` is the last round reached (the final's number for both finalists).

Everything inconsistent (an unknown bot, a meeting of a pair not paired in that round, meetings
of a round stored before the round before it is complete, impossible points) raises
``ValueError`` with the reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Knockout", "Meeting", "Pairing", "Standing", "Swiss", "bracket_order", "pair_round"]

SEARCH_STEPS = 20_000  # pairing-search nodes per round, beyond which a simpler rule pairs it
COMPLETION_STEPS = 50_000  # completion-search nodes per round, beyond which a pairing is accepted


@dataclass(frozen=True)
class Meeting:
    """The games of one round between ``a`` and ``b``: ``a``'s points over ``games`` games."""

    round: int  # 1-based
    a: str
    b: str
    points_a: float  # win 1, draw 1/2, over the games
    games: int  # 2 per duplicate pair

    def __post_init__(self) -> None:
        if self.round < 1:
            raise ValueError(f"{self!r}: the round must be 1 or more")
        if self.a == self.b:
            raise ValueError(f"{self!r}: a bot cannot meet itself")
        if self.games < 1:
            raise ValueError(f"{self!r}: a meeting has at least one game")
        if not 0 <= self.points_a <= self.games:
            raise ValueError(f"{self!r}: points_a must be between 0 and games ({self.games})")

    def points(self, name: str) -> float:
        """The points of ``name`` (``a`` or ``b``) in this meeting."""
        if name == self.a:
            return self.points_a
        if name == self.b:
            return self.games - self.points_a
        raise ValueError(f"{name!r} did not play {self!r}")


@dataclass(frozen=True)
class Pairing:
    """A meeting to play: round, the better seed ``a`` and ``b``.

    ``tiebreak`` is 0 for a match's first meeting, k for its k-th tie-break meeting (knockout
    only): a caller deriving the deal of a meeting from its pairing keeps them apart with it.
    """

    round: int
    a: str
    b: str
    tiebreak: int = 0


@dataclass(frozen=True)
class Standing:
    """One line of a table; see the module docstring for each stage's meaning of the figures."""

    rank: int
    name: str
    match_points: float  # Swiss: win 1, draw 1/2 a meeting (bye 1); knockout: matches won
    game_points: float
    games: int
    tiebreak: float  # Swiss: Buchholz; knockout: the last round reached
    seed: int  # 1-based


def _check_seeds(seeds: Sequence[str]) -> tuple[str, ...]:
    if isinstance(seeds, str):
        raise ValueError("seeds must be a sequence of bot names, not one string")
    names = tuple(seeds)
    if len(names) < 2:
        raise ValueError(f"a final needs at least 2 bots, got {len(names)}")
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"bot names must be non-empty strings, got {name!r}")
    twice = sorted(name for name, count in Counter(names).items() if count > 1)
    if twice:
        raise ValueError(f"duplicate bot names in the seeds: {', '.join(twice)}")
    return names


def _result2(points: float, games: int) -> int:
    """Match points ×2 of the side with ``points`` over ``games``: 2 win, 1 draw, 0 loss."""
    return 2 if 2 * points > games else 1 if 2 * points == games else 0


def _bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# ---------------------------------------------------------------------------------------------
# Maximum matchings (Edmonds' blossoms) on the pairs not yet met, among the bots still unpaired.
# ---------------------------------------------------------------------------------------------

def _augment(adj: Sequence[Sequence[int]], mate: list[int], alive: int, root: int) -> bool:
    """Grow ``mate`` by one pair along an augmenting path from the unmatched ``root``, if any."""
    n = len(mate)
    parent = [-1] * n
    base = list(range(n))
    used = [False] * n
    used[root] = True
    queue = [root]
    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for to in adj[v]:
            if not alive >> to & 1 or base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                top = _blossom_base(v, to, base, mate, parent)
                blossom = [False] * n
                _mark_path(v, top, to, base, mate, parent, blossom)
                _mark_path(to, top, v, base, mate, parent, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = top
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    while to != -1:
                        back = parent[to]
                        nxt = mate[back]
                        mate[to], mate[back] = back, to
                        to = nxt
                    return True
                used[mate[to]] = True
                queue.append(mate[to])
    return False


def _blossom_base(a: int, b: int, base: list[int], mate: list[int], parent: list[int]) -> int:
    seen = [False] * len(mate)
    while True:
        a = base[a]
        seen[a] = True
        if mate[a] == -1:
            break
        a = parent[mate[a]]
    while True:
        b = base[b]
        if seen[b]:
            return b
        b = parent[mate[b]]


def _mark_path(v: int, top: int, child: int, base: list[int], mate: list[int],
               parent: list[int], blossom: list[bool]) -> None:
    while base[v] != top:
        blossom[base[v]] = blossom[base[mate[v]]] = True
        parent[v] = child
        child = mate[v]
        v = parent[mate[v]]


def _maximise(adj: Sequence[Sequence[int]], mate: list[int], alive: int) -> int:
    """Make ``mate`` a maximum matching of the ``alive`` bots; return how many stay unmatched.

    One search from each unmatched bot suffices (a bot with no augmenting path never gets one
    from another augmentation).
    """
    for v in _bits(alive):
        if mate[v] == -1:
            _augment(adj, mate, alive, v)
    return sum(1 for v in _bits(alive) if mate[v] == -1)


def _greedy(adj: Sequence[Sequence[int]], alive: int, n: int) -> list[int]:
    mate = [-1] * n
    for v in _bits(alive):
        if mate[v] == -1:
            for u in adj[v]:
                if alive >> u & 1 and mate[u] == -1:
                    mate[v], mate[u] = u, v
                    break
    return mate


# ---------------------------------------------------------------------------------------------
# One Swiss round.
# ---------------------------------------------------------------------------------------------

class _OutOfSteps(Exception):
    pass


class _RoundSearch:
    """The pairing of one Swiss round; bots are indices, match points are kept doubled."""

    def __init__(self, ranked: Sequence[int], mp2: Sequence[int], met: Sequence[int],
                 byes: int, rounds_left: int) -> None:
        self.n = n = len(mp2)
        self.ranked = list(ranked)
        self.position = {v: i for i, v in enumerate(self.ranked)}
        self.mp2 = mp2
        self.met = met
        self.byes = byes
        self.rounds_left = rounds_left
        self.adj = [[u for u in range(n) if u != v and not met[v] >> u & 1] for v in range(n)]
        self.steps = 0
        self.completion_steps = 0
        self.failed: set[tuple[tuple[int, ...], int, int]] = set()

    # --- the round ---------------------------------------------------------------------------

    def solve(self) -> tuple[list[tuple[int, int]], int | None]:
        """The round's pairs (in board order) and bye, by the rules of the module docstring."""
        field = (1 << self.n) - 1
        sitters: list[int | None] = [None]
        if self.n % 2:
            sitters = [v for v in reversed(self.ranked) if not self.byes >> v & 1]
        options: list[tuple[int | None, int, list[int], int]] = []  # sitter, alive, mate, exposed
        first: tuple[list[tuple[int, int]], int | None] | None = None
        try:
            for sitter in sitters:  # a rematch-free round, lowest sitter first
                alive = field if sitter is None else field & ~(1 << sitter)
                mate = _greedy(self.adj, alive, self.n)
                options.append((sitter, alive, mate, _maximise(self.adj, mate, alive)))
                if options[-1][3] == 0:
                    for pairs in self._pairings(*options[-1]):
                        first = first or (pairs, sitter)
                        if self._completes(pairs, sitter):
                            return pairs, sitter
            fewest = min(option[3] for option in options)
            for option in options if fewest else []:  # rematches cannot be avoided
                if option[3] == fewest:
                    for pairs in self._pairings(*option):
                        first = first or (pairs, option[0])
                        if self._completes(pairs, option[0]):
                            return pairs, option[0]
        except _OutOfSteps:
            pass
        if first is not None:
            return first
        fewest = min(option[3] for option in options)
        sitter, alive, mate, exposed = next(o for o in options if o[3] == fewest)
        pool = [v for v in self.ranked if v != sitter]
        return self._plain(pool, mate, alive, exposed // 2), sitter

    def _pairings(self, sitter: int | None, alive: int, mate: list[int],
                  exposed: int) -> Iterator[list[tuple[int, int]]]:
        """The pairings of the bots but ``sitter`` with the fewest rematches (``exposed`` / 2,
        ``mate`` being a maximum matching), best first."""
        pool = [v for v in self.ranked if v != sitter]
        yield from self._brackets(self._groups(pool), 0, [], [], mate, alive, exposed,
                                  exposed // 2)

    def _groups(self, pool: list[int]) -> list[list[int]]:
        groups: list[list[int]] = []
        for v in pool:
            if groups and self.mp2[groups[-1][0]] == self.mp2[v]:
                groups[-1].append(v)
            else:
                groups.append([v])
        return groups

    def _candidates(self, p: int, rest: list[int]) -> list[int]:
        """``p``'s opponents in order of preference among ``rest`` (ranked, below ``p``)."""
        group = [p] + [v for v in rest if self.mp2[v] == self.mp2[p]]
        half = len(group) // 2
        order = group[max(half, 1):] + group[half - 1:0:-1]
        return order + [v for v in rest if self.mp2[v] != self.mp2[p]]

    def _pair_off(self, mate: list[int], alive: int, p: int, q: int) -> tuple[list[int], int, int]:
        """The maximum matching of the unpaired once ``p`` and ``q`` are paired, and its
        number of unmatched bots."""
        mate = mate.copy()
        alive &= ~((1 << p) | (1 << q))
        for x in (p, q):
            y = mate[x]
            if y not in (-1, p, q):
                mate[y] = -1
            mate[x] = -1
        return mate, alive, _maximise(self.adj, mate, alive)

    def _step(self) -> None:
        self.steps += 1
        if self.steps > SEARCH_STEPS:
            raise _OutOfSteps

    def _brackets(self, groups: list[list[int]], j: int, carried: list[int],
                  pairs: list[tuple[int, int]], mate: list[int], alive: int, exposed: int,
                  rematches: int) -> Iterator[list[tuple[int, int]]]:
        """``pairs`` (of the brackets above) completed by brackets ``j``, ``j + 1``, …, in order
        of preference: the most pairs in bracket ``j`` first."""
        members = carried + groups[j]
        last = j == len(groups) - 1
        most = len(members) // 2
        for k in [most] if last else range(most, -1, -1):
            if not last and not self._can_pair(members, k, rematches):
                continue
            yield from self._bracket(groups, j, k, members, [], pairs, mate, alive, exposed,
                                     rematches)

    def _bracket(self, groups: list[list[int]], j: int, need: int, open_: list[int],
                 floats: list[int], pairs: list[tuple[int, int]], mate: list[int], alive: int,
                 exposed: int, rematches: int) -> Iterator[list[tuple[int, int]]]:
        """Pairings with ``need`` more pairs in bracket ``j``: ``open_`` are its bots neither
        paired nor floated yet, ``pairs`` all the pairs so far (this bracket's and above)."""
        self._step()
        last = j == len(groups) - 1
        if need == 0:
            down = sorted(floats + open_, key=self.position.__getitem__)
            if last:
                if not down:
                    yield pairs
                return
            yield from self._brackets(groups, j + 1, down, pairs, mate, alive, exposed,
                                      rematches)
            return
        if len(open_) < 2 * need:
            return
        p, rest = open_[0], open_[1:]
        for q in self._candidates(p, rest):
            again = self.met[p] >> q & 1
            if again > rematches:
                continue
            mate2, alive2, exposed2 = self._pair_off(mate, alive, p, q)
            if exposed2 > 2 * (rematches - again):
                continue
            left = [v for v in rest if v != q]
            if need > 1 and not last and not self._can_pair(left, need - 1, rematches - again):
                continue
            yield from self._bracket(groups, j, need - 1, left, floats, [*pairs, (p, q)],
                                     mate2, alive2, exposed2, rematches - again)
        if len(rest) >= 2 * need:
            yield from self._bracket(groups, j, need, rest, [*floats, p], pairs, mate, alive,
                                     exposed, rematches)

    def _can_pair(self, members: list[int], k: int, rematches: int) -> bool:
        """Whether ``k`` pairs can be made among ``members`` with at most ``rematches``
        rematches (a necessary condition: it ignores the bots below)."""
        if 2 * k > len(members):
            return False
        alive = sum(1 << v for v in members)
        exposed = _maximise(self.adj, _greedy(self.adj, alive, self.n), alive)
        return (len(members) - exposed) // 2 + rematches >= k

    def _plain(self, pool: list[int], mate: list[int], alive: int,
               rematches: int) -> list[tuple[int, int]]:
        """A pairing by preference alone, one bot at a time from the top, never backtracking:
        each choice keeps a pairing of the rest with the fewest rematches possible."""
        pairs: list[tuple[int, int]] = []
        while pool:
            p, rest = pool[0], pool[1:]
            for q in self._candidates(p, rest):
                again = self.met[p] >> q & 1
                if again > rematches:
                    continue
                mate2, alive2, exposed = self._pair_off(mate, alive, p, q)
                if exposed <= 2 * (rematches - again):
                    pairs.append((p, q))
                    pool = [v for v in rest if v != q]
                    mate, alive, rematches = mate2, alive2, rematches - again
                    break
            else:  # pragma: no cover - the matching guarantees a choice
                raise AssertionError("no opponent keeps the round pairable")
        return pairs

    # --- completion --------------------------------------------------------------------------

    def _completes(self, pairs: list[tuple[int, int]], sitter: int | None) -> bool:
        """Whether the rounds after this one can all be paired without rematches."""
        if self.rounds_left == 0:
            return True
        field = (1 << self.n) - 1
        unplayed = [field & ~(1 << v) & ~self.met[v] for v in range(self.n)]
        for p, q in pairs:
            unplayed[p] &= ~(1 << q)
            unplayed[q] &= ~(1 << p)
        eligible = 0
        if self.n % 2:
            eligible = field & ~self.byes & ~(1 << sitter if sitter is not None else 0)
        try:
            return self._schedulable(tuple(unplayed), eligible, self.rounds_left)
        except _OutOfSteps:
            return True

    def _schedulable(self, unplayed: tuple[int, ...], eligible: int, left: int) -> bool:
        """Whether ``left`` rounds of pairs from ``unplayed`` exist (each with one sitter from
        ``eligible``, a different one each round, if the field is odd)."""
        if left == 0:
            return True
        self.completion_steps += 1
        if self.completion_steps > COMPLETION_STEPS:
            raise _OutOfSteps
        odd = self.n % 2
        degrees = [d.bit_count() for d in unplayed]
        # Dirac: a graph on m bots whose every bot has m/2 partners has a perfect matching;
        # each round takes one partner from each bot.
        if min(degrees) - (left - 1) - odd >= (self.n - odd) / 2:
            return True
        key = (unplayed, eligible, left)
        if key in self.failed:
            return False
        if odd and eligible.bit_count() < left:
            return False
        if any(d < left - (odd and eligible >> v & 1) for v, d in enumerate(degrees)):
            self.failed.add(key)
            return False
        field = (1 << self.n) - 1
        sitters: list[int | None] = list(_bits(eligible)) if odd else [None]
        for sitter in sitters:
            free = field if sitter is None else field & ~(1 << sitter)
            for matching in self._matchings(unplayed, free):
                rest = list(unplayed)
                for p, q in matching:
                    rest[p] &= ~(1 << q)
                    rest[q] &= ~(1 << p)
                after = eligible & ~(1 << sitter) if sitter is not None else eligible
                if self._schedulable(tuple(rest), after, left - 1):
                    return True
        self.failed.add(key)
        return False

    def _matchings(self, unplayed: Sequence[int], free: int) -> Iterator[list[tuple[int, int]]]:
        """Every perfect matching of the ``free`` bots over ``unplayed`` pairs."""
        if not free:
            yield []
            return
        self.completion_steps += 1
        if self.completion_steps > COMPLETION_STEPS:
            raise _OutOfSteps
        v = min(_bits(free), key=lambda x: (unplayed[x] & free).bit_count())
        for u in _bits(unplayed[v] & free):
            for rest in self._matchings(unplayed, free & ~(1 << v) & ~(1 << u)):
                yield [(v, u), *rest]


def pair_round(ranked: Sequence[str], match_points: Mapping[str, float],
               met: Collection[tuple[str, str]] = (), had_bye: Collection[str] = (),
               rounds_left: int = 0) -> tuple[list[tuple[str, str]], str | None]:
    """The pairs (top board first, higher ranked first) and the bye of one Swiss round.

    ``ranked`` is the field in pairing order (match points, then seed), ``met`` the pairs that
    have met (either order), ``had_bye`` the bots that have sat out, ``rounds_left`` the rounds
    after this one (for the completion check). The rules are the module docstring's.

    >>> pair_round(["a", "b", "c", "d"], {"a": 1, "b": 1, "c": 0, "d": 0}, [("a", "c"), ("b", "d")])
    ([('a', 'b'), ('c', 'd')], None)
    """
    names = _check_seeds(ranked)
    index = {name: i for i, name in enumerate(names)}
    missing = [name for name in names if name not in match_points]
    if missing:
        raise ValueError(f"no match points for {', '.join(missing)}")
    mp2 = [round(2 * match_points[name]) for name in names]
    masks = [0] * len(names)
    for a, b in met:
        if a not in index or b not in index:
            raise ValueError(f"met pair ({a!r}, {b!r}) names a bot outside the field")
        masks[index[a]] |= 1 << index[b]
        masks[index[b]] |= 1 << index[a]
    byes = 0
    for name in had_bye:
        if name not in index:
            raise ValueError(f"bye of {name!r}, a bot outside the field")
        byes |= 1 << index[name]
    ranked_idx = sorted(range(len(names)), key=lambda i: (-mp2[i], i))
    if ranked_idx != list(range(len(names))):
        raise ValueError("ranked must be in order of match points, most first")
    if len(names) % 2 and byes == (1 << len(names)) - 1:
        raise ValueError("every bot has had a bye: no one can sit out this round")
    pairs, sitter = _RoundSearch(ranked_idx, mp2, masks, byes, rounds_left).solve()
    return ([(names[p], names[q]) for p, q in pairs],
            None if sitter is None else names[sitter])


# ---------------------------------------------------------------------------------------------
# Swiss.
# ---------------------------------------------------------------------------------------------

@dataclass
class _Table:
    """Running totals of a field (index = seed - 1); match points doubled."""

    mp2: list[int]
    met: list[int]  # bit masks of the opponents met
    byes: int  # bit mask of the bots that have sat out
    game_points: list[float]
    games: list[int]
    opponents: list[list[int]]  # one entry per meeting

    @classmethod
    def empty(cls, n: int) -> _Table:
        return cls([0] * n, [0] * n, 0, [0.0] * n, [0] * n, [[] for _ in range(n)])

    def record(self, lo: int, hi: int, points_lo: float, games: int) -> None:
        won2 = _result2(points_lo, games)
        self.mp2[lo] += won2
        self.mp2[hi] += 2 - won2
        self.met[lo] |= 1 << hi
        self.met[hi] |= 1 << lo
        self.game_points[lo] += points_lo
        self.game_points[hi] += games - points_lo
        self.games[lo] += games
        self.games[hi] += games
        self.opponents[lo].append(hi)
        self.opponents[hi].append(lo)

    def sit_out(self, bye: int) -> None:
        self.mp2[bye] += 2
        self.byes |= 1 << bye


@dataclass(frozen=True)
class _Plan:
    pairs: tuple[tuple[int, int], ...]  # better seed first, top board first
    bye: int | None


@dataclass
class _SwissProgress:
    plans: list[_Plan]  # rounds 1 .. current (all rounds once done)
    current: int | None  # the first round not complete; None once every round is
    table: _Table  # after the complete rounds
    partial: dict[tuple[int, int], tuple[float, int]]  # the current round's stored meetings


def _pair_key(index: Mapping[str, int], meeting: Meeting) -> tuple[int, int, float]:
    """(better seed, other, points of the better seed) of a meeting, by seed index."""
    for name in (meeting.a, meeting.b):
        if name not in index:
            raise ValueError(f"{meeting!r}: {name!r} is not in this final's field")
    i, j = index[meeting.a], index[meeting.b]
    return (i, j, meeting.points_a) if i < j else (j, i, meeting.games - meeting.points_a)


class Swiss:
    """A Swiss stage of ``rounds`` rounds over ``seeds`` (best first); rules in the module
    docstring.

    >>> swiss = Swiss(["a", "b", "c", "d"], rounds=2)
    >>> swiss.next_pairings([])
    [Pairing(round=1, a='a', b='c', tiebreak=0), Pairing(round=1, a='b', b='d', tiebreak=0)]
    >>> played = [Meeting(1, "a", "c", 2.0, 2), Meeting(1, "b", "d", 0.5, 2)]
    >>> [(p.a, p.b) for p in swiss.next_pairings(played)]
    [('a', 'd'), ('b', 'c')]
    """

    def __init__(self, seeds: Sequence[str], rounds: int) -> None:
        self.seeds = _check_seeds(seeds)
        n = len(self.seeds)
        if isinstance(rounds, bool) or not isinstance(rounds, int):
            raise ValueError(f"rounds must be an integer, got {rounds!r}")
        if rounds < 1:
            raise ValueError(f"a Swiss stage needs at least 1 round, got {rounds}")
        most = n - 1 if n % 2 == 0 else n
        if rounds > most:
            raise ValueError(f"{rounds} rounds is more than a round robin of {n} bots "
                             f"({most} rounds): some bots would have to meet twice")
        self.rounds = rounds
        self._index = {name: i for i, name in enumerate(self.seeds)}

    def __repr__(self) -> str:
        return f"Swiss({list(self.seeds)!r}, rounds={self.rounds})"

    def next_pairings(self, meetings: Sequence[Meeting]) -> list[Pairing]:
        """The pairings of the first round not complete that have no meeting stored yet, top
        board first; empty once every round is complete."""
        progress = self._progress(meetings)
        if progress.current is None:
            return []
        plan = progress.plans[progress.current - 1]
        return [Pairing(progress.current, self.seeds[i], self.seeds[j])
                for i, j in plan.pairs if (i, j) not in progress.partial]

    def pairings(self, round: int, meetings: Sequence[Meeting]) -> list[Pairing]:
        """All the pairings of ``round`` (played or not), top board first; the rounds before
        it must be complete."""
        plan = self._plan_of(round, meetings)
        return [Pairing(round, self.seeds[i], self.seeds[j]) for i, j in plan.pairs]

    def bye(self, round: int, meetings: Sequence[Meeting]) -> str | None:
        """Who sits out ``round`` (None in an even field); the rounds before it must be
        complete. A bye scores 1 match point, no game points and no games."""
        plan = self._plan_of(round, meetings)
        return None if plan.bye is None else self.seeds[plan.bye]

    def current_round(self, meetings: Sequence[Meeting]) -> int | None:
        """The first round not complete, None once every round is."""
        return self._progress(meetings).current

    def standings(self, meetings: Sequence[Meeting]) -> list[Standing]:
        """The table: match points, Buchholz, game points, seed. The current round's stored
        meetings count, its bye only once the round is complete."""
        progress = self._progress(meetings)
        table = progress.table
        for (lo, hi), (points_lo, games) in progress.partial.items():
            table.record(lo, hi, points_lo, games)
        buchholz = [sum(table.mp2[o] for o in table.opponents[i]) / 2
                    for i in range(len(self.seeds))]
        order = sorted(range(len(self.seeds)),
                       key=lambda i: (-table.mp2[i], -buchholz[i], -table.game_points[i], i))
        return [Standing(rank, self.seeds[i], table.mp2[i] / 2, table.game_points[i],
                         table.games[i], buchholz[i], i + 1)
                for rank, i in enumerate(order, start=1)]

    def _plan_of(self, round: int, meetings: Sequence[Meeting]) -> _Plan:
        if not 1 <= round <= self.rounds:
            raise ValueError(f"round {round} is outside this stage's rounds 1..{self.rounds}")
        progress = self._progress(meetings)
        if progress.current is not None and round > progress.current:
            raise ValueError(f"round {round} cannot be paired yet: round {progress.current} "
                             "is not complete")
        return progress.plans[round - 1]

    def _plan(self, round: int, table: _Table) -> _Plan:
        n = len(self.seeds)
        ranked = sorted(range(n), key=lambda i: (-table.mp2[i], i))
        pairs, bye = _RoundSearch(ranked, table.mp2, table.met, table.byes,
                                  self.rounds - round).solve()
        return _Plan(tuple((min(p, q), max(p, q)) for p, q in pairs), bye)

    def _progress(self, meetings: Sequence[Meeting]) -> _SwissProgress:
        by_round: dict[int, dict[tuple[int, int], tuple[float, int]]] = {}
        for meeting in meetings:
            if meeting.round > self.rounds:
                raise ValueError(f"{meeting!r}: this stage has {self.rounds} rounds")
            lo, hi, points_lo = _pair_key(self._index, meeting)
            stored = by_round.setdefault(meeting.round, {})
            if (lo, hi) in stored:
                raise ValueError(f"round {meeting.round}: {self.seeds[lo]} v {self.seeds[hi]} "
                                 "is stored twice; a Swiss pairing is one meeting")
            stored[(lo, hi)] = (points_lo, meeting.games)
        table = _Table.empty(len(self.seeds))
        plans: list[_Plan] = []
        for r in range(1, self.rounds + 1):
            plan = self._plan(r, table)
            plans.append(plan)
            stored = by_round.get(r, {})
            planned = set(plan.pairs)
            for lo, hi in sorted(stored):
                if (lo, hi) not in planned:
                    paired = ", ".join(f"{self.seeds[i]} v {self.seeds[j]}" for i, j in plan.pairs)
                    raise ValueError(f"round {r}: {self.seeds[lo]} v {self.seeds[hi]} is not one "
                                     f"of the round's pairings ({paired})")
            if len(stored) < len(plan.pairs):
                later = sorted(k for k in by_round if k > r)
                if later:
                    raise ValueError(f"meetings of round {later[0]} are stored but round {r} "
                                     "is not complete")
                return _SwissProgress(plans, r, table, stored)
            for (lo, hi), (points_lo, games) in stored.items():
                table.record(lo, hi, points_lo, games)
            if plan.bye is not None:
                table.sit_out(plan.bye)
        return _SwissProgress(plans, None, table, {})


# ---------------------------------------------------------------------------------------------
# Knockout.
# ---------------------------------------------------------------------------------------------

def bracket_order(size: int) -> list[int]:
    """The seeds (1-based) of a single-elimination bracket of ``size`` (a power of two), top to
    bottom; neighbours meet in round 1.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket's size is a power of two, got {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


@dataclass
class _Match:
    round: int
    a: int  # the better seed
    b: int | None  # None: a bye
    results: list[tuple[float, int]]  # a's points and the games, one per meeting
    winner: int | None = None  # None while undecided


@dataclass
class _KnockoutProgress:
    matches: list[list[_Match]]  # per round, rounds 1 .. current
    current: int | None  # the round being played; None once the champion is known
    champion: int | None


class Knockout:
    """A single-elimination stage over ``seeds`` (best first); rules in the module docstring.

    >>> ko = Knockout(["a", "b", "c"])
    >>> ko.next_pairings([])
    [Pairing(round=1, a='b', b='c', tiebreak=0)]
    >>> ko.next_pairings([Meeting(1, "c", "b", 1.0, 2)])
    [Pairing(round=1, a='b', b='c', tiebreak=1)]
    """

    def __init__(self, seeds: Sequence[str], max_tiebreak_pairs: int = 3) -> None:
        self.seeds = _check_seeds(seeds)
        if isinstance(max_tiebreak_pairs, bool) or not isinstance(max_tiebreak_pairs, int):
            raise ValueError(f"max_tiebreak_pairs must be an integer, got {max_tiebreak_pairs!r}")
        if max_tiebreak_pairs < 0:
            raise ValueError(f"max_tiebreak_pairs must be 0 or more, got {max_tiebreak_pairs}")
        self.max_tiebreak_pairs = max_tiebreak_pairs
        self.size = 1 << (len(self.seeds) - 1).bit_length()  # the bracket, with its byes
        self.rounds = self.size.bit_length() - 1
        self._index = {name: i for i, name in enumerate(self.seeds)}

    def __repr__(self) -> str:
        return f"Knockout({list(self.seeds)!r}, max_tiebreak_pairs={self.max_tiebreak_pairs})"

    def next_pairings(self, meetings: Sequence[Meeting]) -> list[Pairing]:
        """The meetings to play now: one for each undecided match of the current round (its
        first meeting or its next tie-break), top of the bracket first; empty once the champion
        is known."""
        progress = self._progress(meetings)
        if progress.current is None:
            return []
        return [Pairing(m.round, self.seeds[m.a], self.seeds[m.b], tiebreak=len(m.results))
                for m in progress.matches[-1] if m.winner is None and m.b is not None]

    def champion(self, meetings: Sequence[Meeting]) -> str | None:
        """The winner of the final, None until it is decided."""
        champion = self._progress(meetings).champion
        return None if champion is None else self.seeds[champion]

    def standings(self, meetings: Sequence[Meeting]) -> list[Standing]:
        """Champion, runner-up, then the others by the round they fell in (later first), bots
        still in before those out of the same round, better seed first."""
        progress = self._progress(meetings)
        n = len(self.seeds)
        reached = [1] * n
        out = [False] * n
        won = [0] * n
        points = [0.0] * n
        games = [0] * n
        for round_matches in progress.matches:
            for match in round_matches:
                for bot in (match.a, match.b):
                    if bot is not None:
                        reached[bot] = match.round
                if match.b is not None:
                    for points_a, count in match.results:
                        points[match.a] += points_a
                        points[match.b] += count - points_a
                        games[match.a] += count
                        games[match.b] += count
                if match.winner is None:
                    continue
                if match.b is not None:
                    won[match.winner] += 1
                    out[match.b if match.winner == match.a else match.a] = True
                reached[match.winner] = min(match.round + 1, self.rounds)
        champion = progress.champion
        order = sorted(range(n), key=lambda i: (i != champion, -reached[i], out[i], i))
        return [Standing(rank, self.seeds[i], float(won[i]), points[i], games[i],
                         float(reached[i]), i + 1)
                for rank, i in enumerate(order, start=1)]

    def _decide(self, match: _Match) -> None:
        assert match.b is not None, "a bye is no match"
        a, b = self.seeds[match.a], self.seeds[match.b]
        allowed = 1 + self.max_tiebreak_pairs
        if len(match.results) > allowed:
            raise ValueError(f"round {match.round}: {a} v {b} has {len(match.results)} meetings;"
                             f" a match has at most {allowed} (1 + max_tiebreak_pairs)")
        balances = [2 * points - count for points, count in match.results]
        decisive = [x for x in balances if x != 0]
        if len(decisive) > 1:
            raise ValueError(f"round {match.round}: {a} v {b} has {len(decisive)} meetings not "
                             "level; the first one not level decides the match")
        if decisive:
            match.winner = match.a if decisive[0] > 0 else match.b
        elif len(match.results) == allowed:
            match.winner = match.a  # level after every tie-break: the better seed

    def _progress(self, meetings: Sequence[Meeting]) -> _KnockoutProgress:
        by_round: dict[int, dict[tuple[int, int], list[tuple[float, int]]]] = {}
        for meeting in meetings:
            if meeting.round > self.rounds:
                raise ValueError(f"{meeting!r}: this knockout of {len(self.seeds)} bots has "
                                 f"{self.rounds} rounds")
            lo, hi, points_lo = _pair_key(self._index, meeting)
            by_round.setdefault(meeting.round, {}).setdefault((lo, hi), []).append(
                (points_lo, meeting.games))
        n = len(self.seeds)
        slots: list[int | None] = [seed - 1 if seed <= n else None
                                   for seed in bracket_order(self.size)]
        history: list[list[_Match]] = []
        for r in range(1, self.rounds + 1):
            stored = by_round.get(r, {})
            matches: list[_Match] = []
            for x, y in zip(slots[::2], slots[1::2], strict=True):
                if x is None or (y is not None and y < x):
                    x, y = y, x
                assert x is not None, "a bracket never pairs two byes"
                match = _Match(r, x, y, stored.pop((x, y), []) if y is not None else [])
                if y is None:
                    match.winner = x
                else:
                    self._decide(match)
                matches.append(match)
            if stored:
                lo, hi = min(stored)
                raise ValueError(f"round {r}: {self.seeds[lo]} v {self.seeds[hi]} is not a "
                                 "match of the round")
            history.append(matches)
            if any(m.winner is None for m in matches):
                later = sorted(k for k in by_round if k > r)
                if later:
                    raise ValueError(f"meetings of round {later[0]} are stored but round {r} "
                                     "is not decided")
                return _KnockoutProgress(history, r, None)
            slots = [m.winner for m in matches]
        return _KnockoutProgress(history, None, slots[0])
