"""Fit War Chest's learned judgement from self-play games (``make learn``).

``python -m agents.learn_warchest`` plays ``--games`` games (default 600) from the seeds
``--seed`` on (default 910,000, which no test, tuning run or measured league uses), in worker
processes: in one of every three ``mcts:iters=24`` against itself, in the others ``greedy``
against itself (every other one ``greedy:p=0.1``). Every game is a mirror match, so a feature
that marks one bot's style cannot stand in for that bot's strength. At every decision of more
than one action it records :data:`agents.warchest_value.FEATURES` for the mover's team and
whether that team won (a game that ends undecided counts one half), fits a logistic model with
numpy (Newton's method, a small ridge penalty, every weight free to change with the stage, no
constant: the features are each team's less the other's, so the judgement is zero-sum), and
writes the weights, the features of a few fixed probe positions and the figures of the fit to
``agents/warchest_value.json`` (``--out``). The same command writes the same file again,
byte for byte, whatever ``--workers``: the games are seeded and fixed-budget, and the weights
are rounded to four places.

It prints the held-out log loss (every fifth game left out of a first fit) of the learned
judgement beside that of the default ``mcts``'s judgement alone (the heuristic), by stage.
"""

from __future__ import annotations

import math
import sys
from multiprocessing import Pool
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.greedy import GreedyBot
from agents.learn_battleline import fit, learning_main, log_loss
from agents.mcts import MctsBot
from agents.value_weights import probe_values
from agents.warchest_value import FEATURES, WEIGHTS_FILE, features, probe
from games import registry
from games.warchest.state import WarChestState

DEFAULT_GAMES = 600
DEFAULT_SEED = 910_000
SEARCH_ITERS = 24  # the self-play search's budget (a tenth of the default's: games stay cheap)
STAGES = ((0.0, 0.3, "opening"), (0.3, 0.7, "middle"), (0.7, 1.01, "late"))
#: the columns of the default judgement alone, for the comparison the command prints
HEURISTIC_ONLY = ("heuristic",)
K = len(FEATURES)


def kind_of(index: int) -> int:
    """The mirror match of the ``index``-th game: 0 ``mcts:iters=24``, 1 ``greedy``, 2
    ``greedy:p=0.1``."""
    return 0 if index % 3 == 0 else (1 + index // 3 % 2)


def _bot(kind: int, seat: int, seed: int) -> MctsBot | GreedyBot:
    bot: MctsBot | GreedyBot = (MctsBot(iters=SEARCH_ITERS, learned=0) if kind == 0
                               else GreedyBot(p=0.1 if kind == 2 else 0.0))
    bot.start({"game": "warchest", "seat": seat, "rng_seed": seed * 2 + seat,
               "limits": {"move_time": 3600.0}})
    return bot


def play(job: tuple[int, int]) -> list[list[float]]:
    """One self-play game: per decision of more than one action, the mover's team's features,
    the stage, the result for that team (1, ½ or 0) and the game's seed."""
    index, seed = job
    kind = kind_of(index)
    state = registry.get("warchest").new_game(seed)
    assert isinstance(state, WarChestState)
    bots = [_bot(kind, seat, seed) for seat in range(2)]
    rows: list[tuple[list[float], float, int]] = []
    while not state.is_terminal():
        seat = state.current_player
        legal = state.legal_actions()
        if len(legal) > 1:
            values, stage = features(state, seat % 2)
            rows.append((values, stage, seat % 2))
        state.apply(legal[0] if len(legal) == 1
                    else bots[seat].act(state.observation(seat), legal))
    result = [0.5, 0.5] if state.winner < 0 else [float(state.winner == t) for t in (0, 1)]
    return [[*values, stage, result[team], float(seed)] for values, stage, team in rows]


def design(rows: np.ndarray, columns: list[int]) -> np.ndarray:
    """The regression's inputs: the chosen features and the same times the stage (no
    constant: the judgement is zero-sum)."""
    stage = rows[:, K]
    return np.hstack([rows[:, columns], rows[:, columns] * stage[:, None]])


def held_out(rows: np.ndarray, names: tuple[str, ...]) -> dict[str, float | None]:
    """The log loss of a model over ``names`` fit without every fifth game, on those games:
    overall and by stage."""
    columns = [FEATURES.index(name) for name in names]
    y = rows[:, K + 1]
    test = rows[:, K + 2] % 5 == 0
    x = design(rows, columns)
    losses = log_loss(x[test], y[test], fit(x[~test], y[~test]))
    stage = rows[test, K]
    out: dict[str, float | None] = {"all": round(float(losses.mean()), 4)}
    for low, high, name in STAGES:
        inside = (stage >= low) & (stage < high)
        out[name] = round(float(losses[inside].mean()), 4) if inside.any() else None
    return out


def learn(games: int, seed: int, workers: int, quiet: bool = False) -> dict[str, Any]:
    """Play the games and fit the weights: the contents of the weights file."""
    jobs = [(index, seed + index) for index in range(games)]
    with Pool(workers) as pool:
        results = list(tqdm(pool.imap(play, jobs, chunksize=2), total=games, unit="game",
                            desc="self-play", disable=quiet, file=sys.stderr))
    rows = np.array([row for game in results for row in game])
    if len(rows) < 10 * 2 * K:
        raise SystemExit(f"learn_warchest: {len(rows)} positions from {games} games are too "
                         f"few to fit {2 * K} weights; give more --games")
    w = fit(design(rows, list(range(K))), rows[:, K + 1])
    return {
        "features": list(FEATURES),
        "base": [round(float(v), 4) for v in w[:K]],
        "late": [round(float(v), 4) for v in w[K:2 * K]],
        "constant": 0.0,
        "probe": probe_values(probe()),
        "trained_on": {"games": games, "seed": seed, "positions": len(rows),
                       "command": f"python -m agents.learn_warchest --games {games} "
                                  f"--seed {seed}"},
        "held_out_log_loss": {"learned": held_out(rows, FEATURES),
                              "heuristic_only": held_out(rows, HEURISTIC_ONLY),
                              "coin_toss": round(math.log(2), 4)},
    }


def main(argv: list[str] | None = None) -> int:
    return learning_main(argv, name="learn_warchest", doc=__doc__ or "", learn=learn,
                         weights_file=WEIGHTS_FILE, baseline="heuristic_only",
                         default_games=DEFAULT_GAMES, default_seed=DEFAULT_SEED)


if __name__ == "__main__":
    raise SystemExit(main())
