"""Battle Line engine speed: random playouts per second, decisions per second, claim checks,
and the calls a search bot makes on every iteration (``sample_state``, ``clone``,
``observation``).

The playout policy picks uniformly among ``legal_actions()`` but always claims a flag when it
can (as a real player would); everything goes through the public protocol. (Search iterations
per second are in the ``mcts`` section.)
"""

from __future__ import annotations

import random
import statistics
import time

from bench import figure
from games import registry
from games.battleline.state import BattleLineState


def _playout(seed: int, rules: str, players: int = 2) -> int:
    """One random game; returns its number of decisions."""
    variant = {"rules": rules} if players == 2 else {"rules": rules, "players": str(players)}
    state = registry.get("battleline").new_game(seed, **variant)
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        actions = state.legal_actions()
        first = actions[0]
        action = first if first[0] == "c" and first[1] == "l" else rng.choice(actions)
        state.apply(action)
        decisions += 1
    return decisions


def _games_per_second(rules: str, games: int, players: int = 2) -> tuple[float, float, float]:
    """Games and decisions per wall-clock second, and games per second of CPU time (the
    figure that holds up when other processes share the machine)."""
    t0 = time.perf_counter()
    c0 = time.process_time()
    decisions = sum(_playout(seed, rules, players) for seed in range(games))
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return games / elapsed, decisions / elapsed, games / max(cpu, 1e-9)


def _claim_check_times(samples: int) -> tuple[list[float], list[float]]:
    """Seconds per claim check on positions from random games where the checking side is
    complete: all such checks, and those against an incomplete opponent side (the full proof
    over every possible completion)."""
    game = registry.get("battleline")
    rng = random.Random(99)
    probes: list[tuple[BattleLineState, int, int, bool]] = []
    seed = 0
    while len(probes) < samples:
        state = game.new_game(seed)
        assert isinstance(state, BattleLineState)
        seed += 1
        while not state.is_terminal() and len(probes) < samples:
            state.apply(rng.choice(state.legal_actions()))
            seat = state.current_player
            if seat < 0:
                break
            for flag in range(9):
                if state.claimed[flag] < 0 and state.side_rank(seat, flag) >= 0:
                    open_side = state.side_rank(1 - seat, flag) < 0
                    probes.append((state.clone(), seat, flag, open_side))
    every: list[float] = []
    proofs: list[float] = []
    for state, seat, flag, open_side in probes:
        repeats = 20
        t0 = time.perf_counter()
        for _ in range(repeats):
            state.can_claim(seat, flag)
        seconds = (time.perf_counter() - t0) / repeats
        every.append(seconds)
        if open_side:
            proofs.append(seconds)
    return every, proofs


def _search_positions(count: int) -> list[BattleLineState]:
    """Positions of random standard games, from the opening to the late game."""
    game = registry.get("battleline")
    out: list[BattleLineState] = []
    for seed in range(count):
        state = game.new_game(seed)
        assert isinstance(state, BattleLineState)
        rng = random.Random(seed)
        target = 5 + (seed * 7) % 60
        while not state.is_terminal() and len(state.history) < target:
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            out.append(state)
    return out


def _search_calls(quick: bool) -> None:
    """Calls per second of what a search does per iteration, on one core."""
    game = registry.get("battleline")
    states = _search_positions(10 if quick else 40)
    observations = [s.observation(s.current_player) for s in states]
    reps = 20 if quick else 200
    rng = random.Random(0)
    t0 = time.perf_counter()
    for observation in observations:
        for _ in range(reps):
            game.sample_state(observation, rng)
    figure("sample_state, repeated observation", reps * len(states) / (time.perf_counter() - t0),
           "samples/s", "what a search does: many samples of one observation")
    t0 = time.perf_counter()
    for _ in range(reps // 10):
        for observation in observations:
            game.sample_state(observation, rng)
    figure("sample_state, each observation once",
           reps // 10 * len(states) / (time.perf_counter() - t0), "samples/s",
           "alternating observations: every call reads its observation afresh")
    t0 = time.perf_counter()
    for state in states:
        for _ in range(reps):
            state.clone()
    figure("clone", reps * len(states) / (time.perf_counter() - t0), "calls/s")
    t0 = time.perf_counter()
    for state in states:
        for _ in range(reps):
            state.observation(state.current_player)
    figure("observation", reps * len(states) / (time.perf_counter() - t0), "calls/s")


def run(quick: bool) -> None:
    """Print the Battle Line figures (quick: fewer games)."""
    games = 100 if quick else 1000
    for rules in ("standard", "no-tactics"):
        gps, dps, cpu_gps = _games_per_second(rules, games)
        figure(f"random playouts, {rules}", gps, "games/s",
               f"{games} games, one core; {cpu_gps:,.0f} games per CPU second")
        figure(f"decisions, {rules}", dps, "decisions/s")
    gps, dps, cpu_gps = _games_per_second("standard", games, players=3)
    figure("random playouts, 3 players", gps, "games/s",
           f"{games} games, one core; {cpu_gps:,.0f} games per CPU second")
    figure("decisions, 3 players", dps, "decisions/s")
    every, proofs = _claim_check_times(300 if quick else 2000)
    figure("claim check, median", statistics.median(every) * 1e6, "µs",
           f"{len(every)} checks of complete sides from random games")
    figure("claim check vs incomplete side, median", statistics.median(proofs) * 1e6, "µs",
           f"{len(proofs)} full proofs over every completion")
    figure("claim check vs incomplete side, 95th percentile",
           statistics.quantiles(proofs, n=20)[18] * 1e6, "µs")
    _search_calls(quick)
