"""The league's remaining-time estimate holds when one pairing is much slower than another."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.league.eta import Eta, clock
from harness.league.service import League
from harness.records import BotRef, GameRecord, GameSpec


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
        eta.add([r.name for r in spec.seats], duration, [THINK[r.name] for r in spec.seats])
        elapsed += duration / 2  # two workers
        left = eta.seconds_left(elapsed)
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
    assert eta.seconds_left(1.0) is None and clock(None) == "?"
    assert clock(3723.4) == "1:02:03"


@pytest.mark.slow
def test_a_real_league_with_a_slow_pairing_finishes_within_a_fifth_of_its_estimate(
        tmp_path: Path) -> None:
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef act(observation, legal_actions):\n"
                    "    time.sleep(0.004)\n    return legal_actions[0]\n")
    league = League.prepare("bl", ["random", "greedy", f"slow={slow}"], out=tmp_path / "lg",
                            games=10)
    seen: list[tuple[float, float | None]] = []
    eta = Eta(league.specs)
    t0 = time.perf_counter()

    def watch(record: GameRecord) -> None:
        eta.add(record.seats, record.duration, record.think_time)
        now = time.perf_counter() - t0
        seen.append((now, eta.seconds_left(now)))

    league.run(workers=1, progress=False, on_record=watch)
    end = time.perf_counter() - t0
    # from the first game of the slow bot's second pairing on, every pairing has a measure
    k = 20
    at, predicted = seen[k]
    assert predicted is not None
    assert abs((at + predicted) - end) / (end - at) < 0.2, (at, predicted, end)
