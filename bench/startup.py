"""How fast the command line starts: ``tourney --help`` and ``tourney --version``, each run in a
fresh process several times (median and fastest, in ms), beside a bare ``python -c pass``; then
the modules that ``import harness.cli.app`` spends most on (``python -X importtime``), so a
heavy import that crept back in is named. The target is under 250 ms; the commands import
numpy, pyarrow, the statistics, the engines and the server only when they run."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import figure

TARGET_MS = 250


def tourney_argv() -> list[str]:
    """The installed ``tourney`` script beside this Python, else the same entry point run
    through ``python -c``."""
    script = Path(sys.executable).with_name("tourney")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from harness.cli.app import main; main()"]


def wall_ms(argv: list[str], runs: int) -> list[float]:
    """Wall time of ``argv`` in a new process, ``runs`` times, in ms."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def importers(module: str = "harness.cli.app") -> tuple[int, list[tuple[str, float]]]:
    """How many modules ``import module`` loads, and each one's own import time in ms, the
    slowest first (``python -X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                          capture_output=True, text=True, check=True)
    rows: list[tuple[str, float]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _cumulative, name = line.removeprefix("import time:").split("|", 2)
        rows.append((name.strip(), int(own) / 1000))
    return len(rows), sorted(rows, key=lambda row: -row[1])


def run(quick: bool) -> None:
    runs = 5 if quick else 21
    base = tourney_argv()
    python = statistics.median(wall_ms([sys.executable, "-c", "pass"], runs))
    figure("python -c pass", python, "ms", f"median of {runs}")
    for args in (["--help"], ["--version"]):
        times = wall_ms(base + args, runs)
        figure(f"tourney {args[0]}", statistics.median(times), "ms",
               f"median of {runs}; fastest {min(times):.0f} ms; target < {TARGET_MS} ms")
    count, rows = importers()
    figure("import harness.cli.app loads", count, "modules")
    for name, ms in rows[:8]:
        figure(f"import {name}", ms, "ms", "own time")
