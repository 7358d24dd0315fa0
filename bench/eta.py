"""The league's remaining-time estimate on a synthetic league of a fast and a slow pairing:
random and greedy (in-process, milliseconds a game) and a sandboxed bot that sleeps on every
decision, played (in rounds, as every league) on one worker. Printed: the estimate after a
third and after half of the games against the time the rest really took, and what one global
rate would have said."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench import figure
from harness.league.eta import Eta
from harness.league.service import League
from harness.records import GameRecord

SLOW = ("import time\n\ndef act(observation, legal_actions):\n"
        "    time.sleep({sleep})\n    return legal_actions[0]\n")


def run(quick: bool) -> None:
    games, sleep = (6, 0.01) if quick else (10, 0.015)
    with tempfile.TemporaryDirectory() as tmp:
        slow = Path(tmp) / "slow.py"
        slow.write_text(SLOW.format(sleep=sleep))
        league = League.prepare("bl", ["random", "greedy", f"slow={slow}"],
                                out=Path(tmp) / "lg", games=games)
        eta = Eta(league.specs)
        seen: list[tuple[float, float | None]] = []
        t0 = time.perf_counter()

        def watch(record: GameRecord) -> None:
            now = time.perf_counter() - t0
            eta.add(record.seats, record.duration, record.think_time, now)
            seen.append((now, eta.seconds_left()))

        league.run(workers=1, progress=False, on_record=watch)
        end = time.perf_counter() - t0
    total = len(seen)
    for label, k in (("a third", total // 3 - 1), ("half", total // 2 - 1)):
        at, predicted = seen[k]
        real = end - at
        one_rate = (total - k - 1) * at / (k + 1)
        if predicted is not None:
            figure(f"estimate after {label} of {total} games", 100 * (predicted - real) / real,
                   "% off", f"{predicted:.1f} s predicted, {real:.1f} s real")
        figure(f"one global rate after {label}", 100 * (one_rate - real) / real, "% off",
               f"{one_rate:.1f} s")
