"""War Chest's learned judgement of a position, for the search bot ``mcts``.

The default ``mcts`` scores the end of a rollout by the greedy heuristic, squashed
(``tanh((team 0's score - team 1's) / 600)``): a hand-set sum of markers, units, coins and
distances. The learned judgement reads the same board as separate figures, each team's less
the other's, and a logistic model weighs them into a chance of winning; every weight may change
from the first rounds to the late game, so a marker can be worth more when few are left to
place. The figures (:data:`FEATURES`):

* ``heuristic``: the default judgement itself (so the fit can only add to it);
* ``markers``: control markers placed;
* ``last``: 1 for a team one marker short of winning (the game's end is near for it);
* ``threats``: units standing on a location their team does not control (one control action
  from a marker);
* ``reach``: the shortest distance from a team's units to a location it does not control
  (the other team's less this team's, so nearer is more);
* ``units`` and ``coins``: units and coins on the board;
* ``owned``: coins owned outside the supply (bag, hand, discards), the Royal Coin not counted;
* ``initiative``: 1 for the team that holds the initiative.

The weights (``warchest_value.json`` beside this file) are fit from self-play games by
``python -m agents.learn_warchest`` (``make learn``). Reading the figures costs about what the
heuristic costs, and the tree reads one position per iteration, so the learned judgement
searches as many iterations as the default in about the same time. The weights were fit on
two-player games with the random setup; other variants keep the heuristic
(:func:`learns`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from pathlib import Path

from agents.greedy_warchest import _owned
from agents.greedy_warchest import evaluate as heuristic
from agents.value_weights import Weights, read_weights
from games import registry
from games.protocol import State
from games.warchest.state import WarChestState

Evaluate = Callable[[State], list[float]]

FEATURES = ("heuristic", "markers", "last", "threats", "reach", "units", "coins", "owned",
            "initiative")
WEIGHTS_FILE = Path(__file__).with_name("warchest_value.json")
#: the stage runs from 0 at the first round to 1 at this round and after (games of greedy or
#: the search end in about eight to twelve rounds)
STAGE_ROUNDS = 12
_FAR = 8  # the reach of a team with no unit on the board, or no location left to take


def default_score(state: WarChestState) -> float:
    """The default ``mcts``'s judgement for team 0: the heuristic's difference, squashed."""
    return math.tanh((heuristic(state, 0) - heuristic(state, 1)) / 600.0)


def features(state: WarChestState, team: int) -> tuple[list[float], float]:
    """The :data:`FEATURES` of a position not yet won, for ``team`` against the other, and its
    stage (0 .. 1, by the round)."""
    board = state.board
    ctrl, owner, height = state.ctrl, state.cell_owner, state.cell_h
    is_location, dist = board.is_location, board.dist
    placed = [0, 0]
    targets: list[list[int]] = [[], []]
    for h in board.locations:
        k = ctrl[h]
        if k >= 0:
            placed[k] += 1
        for t in (0, 1):
            if k != t:
                targets[t].append(h)
    units = [0, 0]
    coins = [0, 0]
    threats = [0, 0]
    reach = [_FAR, _FAR]
    for h, size in enumerate(height):
        if not size:
            continue
        t = owner[h] % 2
        units[t] += 1
        coins[t] += size
        if is_location[h] and ctrl[h] != t:
            threats[t] += 1
        row = dist[h]
        for x in targets[t]:
            if row[x] < reach[t]:
                reach[t] = row[x]
    owned = [0, 0]
    for seat in range(state.n):
        owned[seat % 2] += _owned(state, seat)
    left = state.markers_total
    last = [1.0 if left - placed[t] == 1 else 0.0 for t in (0, 1)]
    other = 1 - team
    zero = default_score(state)
    initiative = 1.0 if state.initiative % 2 == team else -1.0
    values = [zero if team == 0 else -zero, float(placed[team] - placed[other]),
              last[team] - last[other], float(threats[team] - threats[other]),
              float(reach[other] - reach[team]), float(units[team] - units[other]),
              (coins[team] - coins[other]) / 4.0, (owned[team] - owned[other]) / 4.0,
              initiative]
    return values, min(1.0, state.round / STAGE_ROUNDS)


PROBE_SEEDS = (11, 12, 13)  # the probe positions: these deals, 40 decisions in
PROBE_DEPTH = 40


def probe() -> list[list[float]]:
    """The features (and stage) of a few fixed positions, for each team: a weights file keeps
    them as they were read when it was fit, and is refused if the code now reads them
    otherwise (:func:`agents.value_weights.read_weights`)."""
    game = registry.get("warchest")
    rows = []
    for seed in PROBE_SEEDS:
        state = game.new_game(seed)
        assert isinstance(state, WarChestState)
        for step in range(PROBE_DEPTH):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[(7 * step + seed) % len(legal)])
        for team in (0, 1):
            values, stage = features(state, team)
            rows.append([*values, stage])
    return rows


def read(path: Path | None = None) -> Weights:
    """The weights in ``path`` (default :data:`WEIGHTS_FILE`, written by ``python -m
    agents.learn_warchest``), refused with one line if they were fit on other features."""
    return read_weights(path or WEIGHTS_FILE, FEATURES, "make learn GAME=warchest", probe())


@cache
def shipped_weights() -> Weights:
    """The weights shipped beside this file, read once per process."""
    return read()


def learns(world: State) -> bool:
    """Whether the learned judgement applies: two players (the games it was fit on)."""
    assert isinstance(world, WarChestState)
    return world.n == 2


def judge(state: WarChestState, model: Weights) -> list[float]:
    """Each seat's chance of winning, 2p - 1 (-1 .. 1), for a position not yet won."""
    values, stage = features(state, 0)
    zero = math.tanh(model.logit(values, stage) / 2)
    return [zero if seat % 2 == 0 else -zero for seat in range(state.n)]


def evaluate(state: State) -> list[float]:
    """The default judgement (the heuristic's, squashed) for each seat's team, -1 .. 1."""
    assert isinstance(state, WarChestState)
    zero = default_score(state)
    return [zero if seat % 2 == 0 else -zero for seat in range(state.n)]


def learned_evaluator(world: State, weights: Weights | None = None) -> Evaluate:
    """The learned judgement for one decision; another variant than the one it was fit on
    keeps the default judgement (:func:`evaluate`)."""
    if not learns(world):
        return evaluate
    model = shipped_weights() if weights is None else weights

    def learned(state: State) -> list[float]:
        assert isinstance(state, WarChestState)
        return judge(state, model)

    return learned
