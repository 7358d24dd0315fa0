"""The league's remaining-time estimate holds when one pairing is much slower than another.

The same on a real league, against the clock, is a benchmark line (`make bench ONLY=eta`),
not a test: timings on a shared machine vary."""

from __future__ import annotations

import pytest

from harness.league.eta import Eta, clock
from harness.records import BotRef, GameSpec


def specs(pairs: list[tuple[str, str]], games: int) -> list[GameSpec]:
    return [GameSpec(f"{a}{b}{k}", "battleline", {}, k, (BotRef(a, "random"), BotRef(b, "random")))
            for a, b in pairs for k in range(games)]


# seconds a bot thinks per game; a game spends 5 ms outside the bots
THINK = {"a": 0.005, "b": 0.01, "slow": 0.4}


def test_the_estimate_uses_each_pairing_and_each_bot_not_one_rate() -> None:
    todo = specs([("a", "b"), ("a", "slow"), ("b", "slow")], 20)
    eta = Eta(todo)
    durations = [0.005 + sum(THINK[r.name] for r in s.seats) for s in todo]
    elapsed, errors = 0.0, []
    for k, (spec, duration) in enumerate(zip(todo, durations, strict=True)):
        elapsed += duration / 2  # two workers
        eta.add([r.name for r in spec.seats], duration, [THINK[r.name] for r in spec.seats],
                elapsed)
        left = eta.seconds_left()
        if k == 0:  # one arrival: no parallelism measured yet
            assert left is None
            continue
        assert left is not None
        real = sum(durations[k + 1:]) / 2
        if k >= 20:  # once the slow bot has played a game, every pairing is known
            errors.append(abs(left - real) / max(real, 1e-9) if real else left)
        else:  # while only the fast pairing has played, the slow bot counts as the mean bot
            mean_bot = (THINK["a"] + THINK["b"]) / 2
            games = [(19 - k, 0.02), (20, 0.005 + THINK["a"] + mean_bot),
                     (20, 0.005 + THINK["b"] + mean_bot)]
            assert left == pytest.approx(sum(n * each for n, each in games) / 2)
    assert max(errors[:-1]) < 0.01  # exact here: the model is the synthetic league's own
    # a single rate after the first 21 games (20 fast, 1 slow) would predict 5x too little
    rate = 21 / (sum(durations[:21]) / 2)  # games per second
    single = 39 / rate
    real = sum(durations[21:]) / 2
    assert single < real / 5


def test_nothing_measured_yet_is_unknown() -> None:
    eta = Eta(specs([("a", "b")], 2))
    assert eta.seconds_left() is None and clock(None) == "?"
    assert clock(3723.4) == "1:02:03"
