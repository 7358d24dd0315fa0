"""Battle Line's judgement of a position, for the search bot ``mcts``.

Two judgements, both per seat in -1 .. 1:

- **The flags' chances** (:func:`evaluate`; the default ``mcts``'s). Each open flag is read in
  32 fixed futures: the troops not yet face up are dealt out, each to one side of the flag with
  probability 0.3 (to neither with the rest: drawn too late, or spent elsewhere), and the flag
  goes to the side whose best reachable formation is higher, a tie to the side with more cards
  down (:func:`flag_edge`). Flags won count 1, each open flag its chance less one half, a tactic
  spent a quarter against its seat. It reads only the board: the same in every world.
- **The learned judgement** (:func:`learned_evaluator`; what ``mcts:scale=4`` buys). It also
  reads the searcher's own hand, which the searcher knows: each open flag read again with the
  troops in that hand certain to reach the searcher's side (:func:`hand_edge`), next to the
  chances, the flags won and how near each seat is to three adjacent flags or five. A logistic
  model turns these into a chance of winning; its weights (``battleline_value.json`` beside this
  file) are fit from self-play games by ``python -m agents.learn_battleline`` (``make learn``).
  Reading every open flag again for every hand a trial leaves makes a trial cost about four
  of the chances' (a decision at 128 trials: about 260 ms against 65 ms), hence its place at
  four times the default budget. Hand-aware judgements written by hand did not help (see
  docs/mcts.md); fit from games, this one did.

The weights were fit on two-player standard games; any other variant (three players,
Schotten-Totten, no tactics, advanced claims) keeps the flags' chances.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from agents import value_weights
from agents.value_weights import Weights
from games.battleline.cards import ALL_TROOPS, NUM_CARDS
from games.battleline.formations import best_rank, complete_rank
from games.battleline.state import P_PLAY, BattleLineState
from games.protocol import State

Evaluate = Callable[[State], list[float]]

TACTIC_VALUE = 0.25  # of a flag: a tactic kept is worth something
FUTURES = 32  # futures in which each open flag is read
SHARE = 0.3  # of the unseen troops, what each side of a flag receives in a future
_MEMO_CAP = 50_000  # entries a memo keeps before it starts afresh (bounds its memory)
WEIGHTS_FILE = Path(__file__).with_name("battleline_value.json")


def _deal_futures(count: int, share: float) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """``count`` fixed futures for a flag: the troops its first side could still receive, those
    its second side could, each troop to one side with probability ``share`` (to neither with
    the rest: it is drawn too late, or spent elsewhere); and per future a coin for a tie
    between two sides equally far from complete."""
    rng = random.Random(12345)
    first: list[int] = []
    second: list[int] = []
    for _ in range(count):
        a = b = 0
        # every card draws (only troops are ever read): the futures the README's figures used
        for card in range(NUM_CARDS):
            u = rng.random()
            if u < share:
                a |= 1 << card
            elif u < 2 * share:
                b |= 1 << card
        first.append(a)
        second.append(b)
    coins = 0
    for future in range(count):
        if rng.random() < 0.5:
            coins |= 1 << future
    return tuple(first), tuple(second), coins


FIRST, SECOND, COINS = _deal_futures(FUTURES, SHARE)
#: a side's best rank in each future: (side, cards, unseen troops, certain troops, size, Fog,
#: which side)
_RANKS: dict[tuple[int, int, int, int, int, bool, int], tuple[int, ...]] = {}
#: a flag's edge for its first side: (the two sides, unseen troops, size, Fog); a search meets
#: the same flag again and again (every world, every answer elsewhere)
CHANCES: dict[tuple[int, int, int, int, bool], float] = {}
#: the same with the mover's hand certain: (the two sides, unseen troops, hand, size, Fog,
#: whether the hand's side is the first)
_HAND_CHANCES: dict[tuple[int, int, int, int, int, bool, bool], float] = {}


def _ranks(side: int, count: int, avail: int, n: int, foggy: bool, which: int,
           certain: int = 0) -> tuple[int, ...]:
    """The best rank ``side`` reaches in each future with the troops it receives there and the
    ``certain`` ones (-1: none completes it)."""
    key = (side, count, avail, certain, n, foggy, which)
    hit = _RANKS.get(key)
    if hit is not None:
        return hit
    if count > n:
        out: tuple[int, ...] = (-1,) * FUTURES
    elif count == n:
        out = (complete_rank(side, n, foggy),) * FUTURES
    else:
        free = n - count
        out = tuple([best_rank(side, free, (avail & dealt) | certain, n, foggy)
                     for dealt in (SECOND if which else FIRST)])
    if len(_RANKS) >= _MEMO_CAP:
        _RANKS.clear()
    _RANKS[key] = out
    return out


def _wins(mine: Sequence[int], theirs: Sequence[int], first_count: int,
          second_count: int) -> float:
    """The first side's share of the futures less one half: its rank higher, a tie in rank to
    the side with more cards down (it completes first), between equals to the future's coin."""
    wins = 0
    for future in range(FUTURES):
        x, y = mine[future], theirs[future]
        if x > y or (x == y and (first_count > second_count or (
                first_count == second_count and COINS >> future & 1))):
            wins += 1
    return wins / FUTURES - 0.5


def flag_edge(first: int, first_count: int, second: int, second_count: int, avail: int,
              n: int, foggy: bool) -> float:
    """The first side's chance of the flag, less one half (-0.5 .. 0.5): in how many of the
    fixed futures its best formation beats the second side's."""
    return _wins(_ranks(first, first_count, avail, n, foggy, 0),
                 _ranks(second, second_count, avail, n, foggy, 1), first_count, second_count)


def hand_edge(first: int, first_count: int, second: int, second_count: int, avail: int,
              hand: int, n: int, foggy: bool, hand_first: bool) -> float:
    """:func:`flag_edge` with the troops of ``hand`` certain to reach one side (the first if
    ``hand_first``) and out of the other's reach: what the searcher's own hand, which it knows,
    makes of the flag."""
    key = (first, second, avail, hand, n, foggy, hand_first)  # a side's mask gives its count
    hit = _HAND_CHANCES.get(key)
    if hit is not None:
        return hit
    rest = avail & ~hand
    mine = _ranks(first, first_count, rest, n, foggy, 0, hand if hand_first else 0)
    theirs = _ranks(second, second_count, rest, n, foggy, 1, 0 if hand_first else hand)
    out = _wins(mine, theirs, first_count, second_count)
    if len(_HAND_CHANCES) >= _MEMO_CAP:
        _HAND_CHANCES.clear()
    _HAND_CHANCES[key] = out
    return out


def _chance(state: BattleLineState, flag: int, a: int, b: int, avail: int) -> float:
    """The first side's (seat ``a``'s) memoised :func:`flag_edge` at an open flag."""
    first, second = state.smask[a * 9 + flag], state.smask[b * 9 + flag]
    n = 4 if state.mud[flag] >= 0 else 3
    foggy = state.fog[flag] >= 0
    key = (first, second, avail, n, foggy)
    edge = CHANCES.get(key)
    if edge is None:
        edge = flag_edge(first, len(state.sides[a * 9 + flag]), second,
                         len(state.sides[b * 9 + flag]), avail & ~(first | second), n, foggy)
        if len(CHANCES) >= _MEMO_CAP:
            CHANCES.clear()
        CHANCES[key] = edge
    return edge


def evaluate(state: State, unseen: int | None = None) -> list[float]:
    """The flags' chances: flags won, and each open flag's chance (:func:`flag_edge`) from the
    troops not yet face up (what every seat can see: the same judgement in every world;
    ``unseen``: those of the decision instead, see :func:`evaluator`), for any number of
    seats: each seat's tally against the mean of the others'."""
    assert isinstance(state, BattleLineState)
    avail = state.troop_all & ~state.gone if unseen is None else unseen
    smask, sides, claimed, mud, fog = state.smask, state.sides, state.claimed, state.mud, state.fog
    players = state.n
    tally = [0.0] * players
    memo = CHANCES
    for flag, (a, b) in enumerate(state.layout.seats_at):
        owner = claimed[flag]
        if owner >= 0:
            tally[owner] += 1.0
            continue
        first, second = smask[a * 9 + flag], smask[b * 9 + flag]
        if not (first or second):
            continue  # an empty flag is even
        # :func:`_chance` inlined: this loop is most of the default search's time
        n = 4 if mud[flag] >= 0 else 3
        foggy = fog[flag] >= 0
        key = (first, second, avail, n, foggy)
        edge = memo.get(key)
        if edge is None:
            edge = flag_edge(first, len(sides[a * 9 + flag]), second, len(sides[b * 9 + flag]),
                             avail & ~(first | second), n, foggy)
            if len(memo) >= _MEMO_CAP:
                memo.clear()
            memo[key] = edge
        tally[a] += edge
        tally[b] -= edge
    for seat, spent in enumerate(state.tactics_played):
        tally[seat] -= TACTIC_VALUE * spent
    total = sum(tally)
    return [math.tanh((t - (total - t) / (players - 1)) / 3.0) for t in tally]


def evaluator(world: State) -> Evaluate:
    """The flags' chances for one decision: every flag read against the troops unseen at the
    decision (``world`` is any of its sampled worlds: the board is public). A troop played
    elsewhere during a trial still counts as unseen at other flags; in exchange every flag an
    answer leaves alone keeps its memoised chance, which buys about a fifth more trials."""
    assert isinstance(world, BattleLineState)
    unseen = world.troop_all & ~world.gone

    def judge(state: State) -> list[float]:
        return evaluate(state, unseen)

    return judge


# --------------------------------------------------------------------------------------------
# the learned judgement

#: what the learned judgement reads, for the seat it judges for (``me``), each against the
#: opponent: flags won; the open flags' chances; tactics spent; the best three adjacent flags'
#: joint chance, and the chance of five flags (the flags taken as independent); and what the
#: seat's own hand adds to its open flags' chances (:func:`hand_edge` less :func:`flag_edge`)
FEATURES = ("won", "edge", "tactics", "breakthrough", "envelopment", "hand")


def features(state: BattleLineState, me: int, unseen: int | None = None) -> tuple[list[float],
                                                                                  float]:
    """The :data:`FEATURES` of a two-seat position for seat ``me``, and its stage (the share of
    the troops face up, 0 .. 1). ``unseen``: the troops read as unseen (default: those not yet
    face up in ``state``; a search passes those of its decision, as :func:`evaluator` does)."""
    avail = state.troop_all & ~state.gone if unseen is None else unseen
    smask, sides, claimed, mud, fog = state.smask, state.sides, state.claimed, state.mud, state.fog
    hand = state.hands[me] & ALL_TROOPS
    won = edge = more = 0.0
    chances: list[float] = []
    for flag, (a, b) in enumerate(state.layout.seats_at):
        owner = claimed[flag]
        if owner >= 0:
            won += 1.0 if owner == me else -1.0
            chances.append(1.0 if owner == me else 0.0)
            continue
        first, second = smask[a * 9 + flag], smask[b * 9 + flag]
        if not (first or second):
            chances.append(0.5)
            continue
        e = _chance(state, flag, a, b, avail)
        h = hand_edge(first, len(sides[a * 9 + flag]), second, len(sides[b * 9 + flag]),
                      avail & ~(first | second), hand, 4 if mud[flag] >= 0 else 3,
                      fog[flag] >= 0, me == a)
        if me != a:
            e, h = -e, -h
        edge += e
        more += h - e
        chances.append(e + 0.5)
    mine = theirs = 0.0
    for i in range(7):
        x, y, z = chances[i], chances[i + 1], chances[i + 2]
        mine = max(mine, x * y * z)
        theirs = max(theirs, (1 - x) * (1 - y) * (1 - z))
    counts = [1.0] + [0.0] * 9  # the chance of each number of flags won
    for q in chances:
        for k in range(9, 0, -1):
            counts[k] = counts[k] * (1 - q) + counts[k - 1] * q
        counts[0] *= 1 - q
    five = sum(counts[5:])
    spent = state.tactics_played[me] - state.tactics_played[1 - me]
    stage = state.gone.bit_count() / 60.0
    return [won, edge, spent, mine - theirs, 2 * five - 1, more], stage


def read_weights(path: Path | None = None) -> Weights:
    """The weights in ``path`` (written by ``python -m agents.learn_battleline``), refused
    with one line (:class:`agents.value_weights.WeightsMismatch`) if they were fit on other
    features."""
    return value_weights.read_weights(path or WEIGHTS_FILE, FEATURES,
                                      "make learn GAME=battleline")


@cache
def shipped_weights() -> Weights:
    """The weights shipped beside this file, read once per process."""
    return read_weights()


def learns(world: State) -> bool:
    """Whether the learned judgement applies: a two-seat game of the standard rules (the games
    it was fit on)."""
    assert isinstance(world, BattleLineState)
    return (world.n == 2 and world.tactics_on and not world.advanced
            and world.max_value == 10)


def learned_evaluator(world: State, weights: Weights | None = None) -> Evaluate:
    """The learned judgement for one decision, for the seat to move in ``world`` (any of the
    decision's sampled worlds; its hand is the searcher's own). A decision other than a play
    (the draw, scouting) and any variant the weights were not fit on keep the flags' chances: a
    judgement of the hand one play ahead would judge a drawn card by that play alone."""
    assert isinstance(world, BattleLineState)
    if world.phase != P_PLAY or not learns(world):
        return evaluator(world)
    model = shipped_weights() if weights is None else weights
    me = world.current_player
    unseen = world.troop_all & ~world.gone

    def judge(state: State) -> list[float]:
        assert isinstance(state, BattleLineState)
        values, stage = features(state, me, unseen)
        mine = math.tanh(model.logit(values, stage) / 2)  # 2 * chance of winning - 1
        out = [0.0, 0.0]
        out[me] = mine
        out[1 - me] = -mine
        return out

    return judge

