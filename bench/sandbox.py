"""Bench section `sandbox`: the cost of a sandboxed decision, of a sandboxed bot's start, games
per second in-process and sandboxed, and the built-in greedy bot's win rate against random on
every registered game.

Two figures have targets (issue 44): a sandboxed bot's start-up (launch, confine, start, close)
at most :data:`START_TARGET_MS`, and a league of two fast bots sandboxed within
:data:`LEAGUE_TARGET` times the same league trusted, both run as a user runs them
(``tourney league battleline random greedy --games N -j 1``, then with ``sandbox:random
sandbox:greedy``), each the best of a few runs, since the machine may be shared. N is 400, so
that the league's rate is that of its games, and 100, the command issue 44 measured with, where
what each league pays once (its worker's start, the trusted league's imports) weighs more. What
a fresh referee pays before its first sandboxed bot (the start-up server's launch) is printed
on its own: a league's first worker takes over the server the league started for its isolation
probe, so a league pays it before its first game, once."""

from __future__ import annotations

import importlib.util
import re
import statistics
import subprocess
import sys
import tempfile
import time

from bench import figure
from bench.startup import tourney_argv
from harness.match.placement import pinned_here
from harness.records import BotRef, GameSpec, Limits

START_TARGET_MS = 15.0
LEAGUE_TARGET = 4.0
_RATE = re.compile(r"\(([\d.]+) games/s\)")


def _league_rate(seats: list[str], games: int) -> float:
    """Games per second that ``tourney league battleline SEATS --games N -j 1`` reports."""
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run([*tourney_argv(), "league", "battleline", *seats, "--games",
                               str(games), "-j", "1", "--out", f"{folder}/league", "--seed", "1"],
                              capture_output=True, text=True, check=True)
    found = _RATE.search(done.stdout + done.stderr)
    if found is None:
        raise RuntimeError(f"the league printed no rate: {done.stdout[-300:]}")
    return float(found.group(1))


def _round_trip_us(quick: bool) -> tuple[float, float]:
    """Median microseconds of one act round trip: a Battle Line observation, and a tiny one."""
    from harness.bots.sandbox import harden_referee

    harden_referee()
    with pinned_here():  # as `tourney play` and league workers run a game: on one CPU
        return _measure_round_trips(quick)


def _measure_round_trips(quick: bool) -> tuple[float, float]:
    from games import registry
    from harness.bots.sandbox import SandboxedAgent
    from harness.bots.spec import parse_spec

    state = registry.get("battleline").new_game(1)
    observation, legal = state.observation(0), state.legal_actions()
    tiny_obs, tiny_legal = {"game": "battleline", "seat": 0, "current_player": 0}, ["a", "b"]
    agent = SandboxedAgent(parse_spec("sandbox:random"), Limits())
    try:
        agent.start({"game": "battleline", "seat": 0, "rng_seed": 1}, 10.0)
        n = 500 if quick else 3000
        medians = []
        for obs, acts in ((observation, legal), (tiny_obs, tiny_legal)):
            times = []
            for _ in range(n):
                t0 = time.perf_counter()
                agent.act(obs, acts, 10.0)
                times.append(time.perf_counter() - t0)
            medians.append(statistics.median(times) * 1e6)
    finally:
        agent.close()
    return medians[0], medians[1]


def _startup_and_pause(quick: bool) -> tuple[float, float]:
    """Median ms to launch a sandboxed bot, start it and close it; median µs to stop its whole
    tree between turns and resume it."""
    from harness.bots.sandbox import SandboxedAgent, harden_referee
    from harness.bots.spec import parse_spec

    harden_referee()
    starts, pauses = [], []
    with pinned_here():
        for _ in range(10 if quick else 30):
            t0 = time.perf_counter()
            agent = SandboxedAgent(parse_spec("sandbox:random"), Limits())
            agent.start({"game": "battleline", "seat": 0, "rng_seed": 1}, 10.0)
            agent.close()
            starts.append(time.perf_counter() - t0)
        agent = SandboxedAgent(parse_spec("sandbox:random"), Limits())
        try:
            agent.start({"game": "battleline", "seat": 0, "rng_seed": 1}, 10.0)
            for _ in range(200 if quick else 1000):
                agent.resume()
                t0 = time.perf_counter()
                agent.suspend()
                agent.resume()
                pauses.append(time.perf_counter() - t0)
        finally:
            agent.close()
    return statistics.median(starts) * 1e3, statistics.median(pauses) * 1e6


def _start_made_ahead(quick: bool) -> float:
    """Median ms from taking a bot process made ahead of its game (as a league worker makes the
    next game's, :mod:`harness.bots.spares`) to its ``ready``."""
    from harness.bots import spares
    from harness.bots.sandbox import harden_referee
    from harness.bots.spec import parse_spec

    harden_referee()
    source = parse_spec("sandbox:random")
    game = GameSpec("ahead", "battleline", {}, 1, (BotRef("a", "sandbox:random"),
                                                    BotRef("b", "random")))
    starts = []
    with pinned_here():
        for _ in range(10 if quick else 30):
            spares.expect(game)
            time.sleep(0.02)  # the game it is made during
            t0 = time.perf_counter()
            agent = spares.take(source, Limits())
            assert agent is not None
            agent.start({"game": "battleline", "seat": 0, "rng_seed": 1}, 10.0)
            starts.append(time.perf_counter() - t0)
            agent.close()
    spares.drop()
    return statistics.median(starts) * 1e3


_FIRST_BOT = """
import time
t0 = time.perf_counter()
from harness.bots.sandbox import SandboxedAgent, harden_referee
from harness.bots.spec import parse_spec
from harness.records import Limits
harden_referee()
agent = SandboxedAgent(parse_spec("sandbox:random"), Limits())
agent.start({"game": "battleline", "seat": 0, "rng_seed": 1}, 30.0)
print((time.perf_counter() - t0) * 1e3)
agent.close()
"""


def _first_bot_ms(quick: bool) -> float:
    """Median ms from a fresh process's first use of the sandbox to its first bot ready: what
    a league worker pays once, before its first sandboxed game."""
    times = []
    for _ in range(1 if quick else 3):
        done = subprocess.run([sys.executable, "-c", _FIRST_BOT], capture_output=True, text=True,
                              check=True)
        times.append(float(done.stdout.split()[-1]))
    return statistics.median(times)


def _games_per_second(game: str, seats: tuple[str, str], games: int) -> tuple[float, float]:
    """Games per second and mean decisions per game."""
    from harness.match.referee import play_game

    refs = (BotRef("a", seats[0]), BotRef("b", seats[1]))
    decisions = 0
    t0 = time.perf_counter()
    for seed in range(games):
        decisions += play_game(GameSpec(f"b{seed}", game, {}, seed, refs)).decisions
    return games / (time.perf_counter() - t0), decisions / games


def _greedy_win_rate(game: str, games: int) -> tuple[float, float, float]:
    """Greedy vs random, seats alternated: greedy's win, draw and forfeit fractions."""
    from harness.match.referee import play_game

    wins = draws = forfeits = 0
    for seed in range(games):
        greedy_seat = seed % 2
        refs = tuple(BotRef(f"s{i}", "greedy" if i == greedy_seat else "random")
                     for i in range(2))
        record = play_game(GameSpec(f"w{seed}", game, {}, seed, refs))
        wins += record.returns[greedy_seat] > 0
        draws += record.returns[greedy_seat] == 0
        forfeits += record.offender is not None
    return wins / games, draws / games, forfeits / games


def run(quick: bool) -> None:
    from games import registry

    big, tiny = _round_trip_us(quick)
    figure("sandboxed decision round trip, Battle Line observation (median)", big, "µs")
    figure("sandboxed decision round trip, tiny observation (median)", tiny, "µs")
    start, pause = _startup_and_pause(quick)
    figure("sandboxed bot start-up: launch, confine, start, close (median)", start, "ms",
           f"target <= {START_TARGET_MS:g} ms")
    figure("stopping a bot's whole tree between turns and resuming it (median)", pause, "µs",
           "paid once per change of the seat to move")
    figure("start of a bot made during the game before (median)", _start_made_ahead(quick), "ms",
           "take, start, ready: a league worker's games")
    runs = 1 if quick else 3
    figure("first sandboxed bot of a fresh referee (median)", _first_bot_ms(quick), "ms",
           "the start-up server's launch and imports and the isolation probe, once a process")
    for games in ((40,) if quick else (400, 100)):
        trusted = max(_league_rate(["random", "greedy"], games) for _ in range(runs))
        boxed = max(_league_rate(["sandbox:random", "sandbox:greedy"], games)
                    for _ in range(runs))
        figure(f"league random v greedy, trusted (-j 1, {games} games)", trusted, "games/s",
               f"best of {runs}")
        figure(f"league sandbox:random v sandbox:greedy (-j 1, {games} games)", boxed,
               "games/s", f"best of {runs}")
        figure(f"sandboxed league's cost against trusted ({games} games)", trusted / boxed, "x",
               f"target <= {LEAGUE_TARGET:g}x", places=2)
    n_in, n_box = (100, 10) if quick else (500, 40)
    for name in registry.names():
        rate, mean = _games_per_second(name, ("random", "random"), n_in)
        figure(f"{name} random vs random in-process", rate, "games/s",
               f"{mean:.0f} decisions per game")
        rate, _ = _games_per_second(name, ("sandbox:random", "sandbox:random"), n_box)
        figure(f"{name} random vs random sandboxed", rate, "games/s",
               "two bot processes started per game")
    games = 200 if quick else 400
    for name in registry.names():
        if importlib.util.find_spec(f"agents.greedy_{name}") is None:
            print(f"  {name}: no agents/greedy_{name}.py yet, greedy plays at random", flush=True)
        t0 = time.perf_counter()
        win, draw, forfeit = _greedy_win_rate(name, games)
        note = f"{games} games, seats alternated, {draw:.0%} draws, {forfeit:.0%} forfeits, " \
               f"{time.perf_counter() - t0:.0f} s"
        figure(f"{name} greedy win rate vs random", win * 100, "%", note)
