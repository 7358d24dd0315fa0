"""Fit the learned Battle Line judgement from self-play games (``make learn``).

``python -m agents.learn_battleline`` plays ``--games`` games (default 1,000) from the seeds
``--seed`` on (default 900,000, which no test, tuning run or measured league uses), in worker
processes: in two of every three, ``mcts:iters=32`` against itself, in the others ``greedy``
against itself (every other one ``greedy:p=0.1``). Every game is a mirror match, so a feature
that marks one bot's style (when it draws tactics, how early it fills its flags) cannot stand in
for that bot's strength. At each play decision it records the mover's
:data:`agents.battleline_value.FEATURES` and whether the mover won (a draw counts one half),
fits a logistic model with numpy (Newton's method, a small ridge penalty, every weight free to
change with the stage of the game), and writes the weights with the figures of the fit to
``agents/battleline_value.json`` (``--out``). The same command writes the same file again:
the games are seeded and fixed-budget, and the weights are rounded to four places.

It prints the held-out log loss (every fifth game left out of a first fit) of the learned
judgement beside that of the flags' chances alone, by stage of the game.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.battleline_value import FEATURES, WEIGHTS_FILE, features
from agents.greedy import GreedyBot
from agents.mcts import MctsBot
from games import registry
from games.battleline.state import P_PLAY, BattleLineState

DEFAULT_GAMES = 1000
DEFAULT_SEED = 900_000
RIDGE = 1e-3  # the ridge penalty on every weight (features are of order one)
STAGES = ((0.0, 16 / 60, "opening"), (16 / 60, 32 / 60, "middle"), (32 / 60, 1.01, "late"))
#: the columns of the flags' chances alone, for the comparison the command prints
CHANCES_ONLY = ("won", "edge", "tactics")


def _bot(kind: int, seat: int, seed: int) -> MctsBot | GreedyBot:
    bot: MctsBot | GreedyBot = (MctsBot(iters=32) if kind == 0
                               else GreedyBot(p=0.1 if kind == 2 else 0.0))
    bot.start({"game": "battleline", "seat": seat, "rng_seed": seed * 2 + seat,
               "limits": {"move_time": 3600.0}})
    return bot


def kind_of(index: int) -> int:
    """The mirror match of the ``index``-th game: 0 ``mcts:iters=32``, 1 ``greedy``, 2
    ``greedy:p=0.1``."""
    return 0 if index % 3 else (1 + index // 3 % 2)


def play(job: tuple[int, int]) -> list[list[float]]:
    """One self-play game: per play decision of more than one action, the mover's features,
    the stage, the result for the mover (1, ½ or 0) and the game's seed."""
    index, seed = job
    kind = kind_of(index)
    state = registry.get("battleline").new_game(seed)
    assert isinstance(state, BattleLineState)
    bots = [_bot(kind, seat, seed) for seat in range(2)]
    rows: list[tuple[list[float], float, int]] = []
    while not state.is_terminal():
        seat = state.current_player
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        if state.phase == P_PLAY:
            values, stage = features(state, seat)
            rows.append((values, stage, seat))
        state.apply(bots[seat].act(state.observation(seat), legal))
    returns = state.returns()
    result = [0.5 if returns[0] == returns[1] else float(r > 0) for r in returns]
    return [[*values, stage, result[seat], float(seed)] for values, stage, seat in rows]


def design(rows: np.ndarray, columns: list[int]) -> np.ndarray:
    """The regression's inputs: the chosen features, the same times the stage, a constant."""
    stage = rows[:, len(FEATURES)]
    return np.hstack([rows[:, columns], rows[:, columns] * stage[:, None],
                      np.ones((len(rows), 1))])


def fit(x: np.ndarray, y: np.ndarray, steps: int = 30) -> np.ndarray:
    """Ridge-penalised logistic regression by Newton's method."""
    w = np.zeros(x.shape[1])
    ridge = RIDGE * np.eye(len(w))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + RIDGE * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / len(y) + ridge
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    p = np.clip(1.0 / (1.0 + np.exp(-(x @ w))), 1e-12, 1 - 1e-12)
    losses: np.ndarray = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    return losses


def held_out(rows: np.ndarray, names: tuple[str, ...]) -> dict[str, float]:
    """The log loss of a model over ``names`` fit without every fifth game, on those games:
    overall and by stage."""
    columns = [FEATURES.index(name) for name in names]
    y = rows[:, len(FEATURES) + 1]
    test = rows[:, len(FEATURES) + 2] % 5 == 0
    x = design(rows, columns)
    losses = log_loss(x[test], y[test], fit(x[~test], y[~test]))
    stage = rows[test, len(FEATURES)]
    out = {"all": round(float(losses.mean()), 4)}
    for low, high, name in STAGES:
        inside = (stage >= low) & (stage < high)
        out[name] = round(float(losses[inside].mean()), 4)
    return out


def learn(games: int, seed: int, workers: int, quiet: bool = False) -> dict[str, Any]:
    """Play the games and fit the weights: the contents of the weights file."""
    jobs = [(index, seed + index) for index in range(games)]
    with Pool(workers) as pool:
        results = list(tqdm(pool.imap(play, jobs, chunksize=4), total=games, unit="game",
                            desc="self-play", disable=quiet, file=sys.stderr))
    rows = np.array([row for game in results for row in game])
    if len(rows) < 10 * (2 * len(FEATURES) + 1):
        raise SystemExit(f"learn_battleline: {len(rows)} positions from {games} games are too "
                         f"few to fit {2 * len(FEATURES) + 1} weights; give more --games")
    y = rows[:, len(FEATURES) + 1]
    w = fit(design(rows, list(range(len(FEATURES)))), y)
    k = len(FEATURES)
    return {
        "features": list(FEATURES),
        "base": [round(float(v), 4) for v in w[:k]],
        "late": [round(float(v), 4) for v in w[k:2 * k]],
        "constant": round(float(w[-1]), 4),
        "trained_on": {"games": games, "seed": seed, "positions": len(rows),
                       "command": f"python -m agents.learn_battleline --games {games} "
                                  f"--seed {seed}"},
        "held_out_log_loss": {"learned": held_out(rows, FEATURES),
                              "chances_only": held_out(rows, CHANCES_ONLY),
                              "coin_toss": round(math.log(2), 4)},
    }


def main(argv: list[str] | None = None) -> int:
    return learning_main(argv, name="learn_battleline", doc=__doc__ or "", learn=learn,
                         weights_file=WEIGHTS_FILE, baseline="chances_only",
                         default_games=DEFAULT_GAMES, default_seed=DEFAULT_SEED)


def learning_main(argv: list[str] | None, *, name: str, doc: str,
                  learn: Callable[[int, int, int, bool], dict[str, Any]], weights_file: Path,
                  baseline: str, default_games: int, default_seed: int) -> int:
    """``python -m agents.NAME``: fit a game's learned judgement by self-play and write it,
    with its held-out log loss beside the ``baseline`` judgement's (each game's learner)."""
    parser = argparse.ArgumentParser(prog=f"python -m agents.{name}",
                                     description=doc.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=default_games,
                        help=f"self-play games (default {default_games})")
    parser.add_argument("--seed", type=int, default=default_seed,
                        help=f"the first game's seed (default {default_seed})")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--out", type=Path, default=weights_file,
                        help="where to write the weights (default: the shipped file)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers take a positive number")
    data = learn(args.games, args.seed, args.workers, args.quiet)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    loss = data["held_out_log_loss"]
    print(f"{name}: {data['trained_on']['positions']} positions from {args.games} "
          f"games -> {args.out}")
    for kind in ("learned", baseline):
        print(f"  held-out log loss, {kind.replace('_', ' ')}: " + ", ".join(
            f"{stage} {value:.4f}" for stage, value in loss[kind].items() if value is not None))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
