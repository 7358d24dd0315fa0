"""War Chest engine speed: random playouts through the public protocol on one core.

Each decision is ``legal_actions()`` followed by ``apply()`` of a uniformly random choice, the
way the referee and the random bot drive a game. Also measured: ``clone()`` and the
observation + ``sample_state`` round a search bot pays per look-ahead.
"""

from __future__ import annotations

import random
import time

from bench import figure
from games.warchest import GAME


def _playouts(games: int, limit: int | None = None, **variant: str) -> tuple[int, int, float]:
    """Play ``games`` random games (only the first ``limit`` decisions of each if ``limit``);
    return (games, decisions, seconds)."""
    decisions = 0
    t0 = time.perf_counter()
    for seed in range(games):
        state = GAME.new_game(seed, **variant)
        rng = random.Random(seed)
        while not state.is_terminal() and (limit is None or state.decisions < limit):
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
    return games, decisions, time.perf_counter() - t0


def run(quick: bool) -> None:
    """Print decisions/s and games/s for 2 players (random deal), plus 4 players and clones."""
    n, d, dt = _playouts(10 if quick else 60)
    figure("2p random playout decisions/s", d / dt, "dec/s", f"{n} games, {d / n:.0f} dec/game")
    figure("2p random playout games/s", n / dt, "games/s")
    # random play often stalls late (every coin on the board, only Royal Coins left), and
    # stalled decisions are cheap: the opening of each game is the busier, honest figure
    n, d, dt = _playouts(20 if quick else 200, limit=150)
    figure("2p random playout decisions/s, first 150 of each game", d / dt, "dec/s")
    n, d, dt = _playouts(4 if quick else 20, players="4")
    figure("4p random playout decisions/s", d / dt, "dec/s", f"{n} games")
    state = GAME.new_game(1)
    rng = random.Random(1)
    for _ in range(60):
        state.apply(rng.choice(state.legal_actions()))
    reps = 2000 if quick else 20000
    t0 = time.perf_counter()
    for _ in range(reps):
        state.clone()
    figure("clone", reps / (time.perf_counter() - t0), "clones/s")
    obs = state.observation(state.current_player)
    reps //= 10
    t0 = time.perf_counter()
    for _ in range(reps):
        GAME.sample_state(obs, rng)
    figure("sample_state", reps / (time.perf_counter() - t0), "samples/s")
