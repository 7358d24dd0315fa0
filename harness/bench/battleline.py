"""Battle Line engine speed: random playouts per second, decisions per second, claim checks.

The playout policy picks uniformly among ``legal_actions()`` but always claims a flag when it
can (as a real player would); everything goes through the public protocol.
"""

from __future__ import annotations

import random
import statistics
import time

from games import registry
from games.battleline.state import BattleLineState
from harness.bench import figure


def _playout(seed: int, rules: str) -> int:
    """One random game; returns its number of decisions."""
    state = registry.get("battleline").new_game(seed, rules=rules)
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        actions = state.legal_actions()
        first = actions[0]
        action = first if first[0] == "c" and first[1] == "l" else rng.choice(actions)
        state.apply(action)
        decisions += 1
    return decisions


def _games_per_second(rules: str, games: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    decisions = sum(_playout(seed, rules) for seed in range(games))
    elapsed = time.perf_counter() - t0
    return games / elapsed, decisions / elapsed


def _claim_check_times(samples: int) -> list[float]:
    """Seconds per claim check, measured on positions with complete sides from real games."""
    game = registry.get("battleline")
    rng = random.Random(99)
    probes: list[tuple[BattleLineState, int, int]] = []
    seed = 0
    while len(probes) < samples:
        state = game.new_game(seed)
        assert isinstance(state, BattleLineState)
        seed += 1
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            seat = state.current_player
            if seat < 0:
                break
            for flag in range(9):
                if state.claimed[flag] < 0 and state.side_rank(seat, flag) >= 0:
                    probes.append((state.clone(), seat, flag))
    times = []
    for state, seat, flag in probes[:samples]:
        repeats = 20
        t0 = time.perf_counter()
        for _ in range(repeats):
            state.can_claim(seat, flag)
        times.append((time.perf_counter() - t0) / repeats)
    return times


def run(quick: bool) -> None:
    """Print the Battle Line figures (quick: fewer games)."""
    games = 100 if quick else 1000
    for rules in ("standard", "no-tactics"):
        gps, dps = _games_per_second(rules, games)
        figure(f"random playouts, {rules}", gps, "games/s", f"{games} games, one core")
        figure(f"decisions, {rules}", dps, "decisions/s")
    times = _claim_check_times(300 if quick else 2000)
    figure("claim check, median", statistics.median(times) * 1e6, "µs",
           f"{len(times)} checks of complete sides from random games")
    figure("claim check, 95th percentile", statistics.quantiles(times, n=20)[18] * 1e6, "µs")
