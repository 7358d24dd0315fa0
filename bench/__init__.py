"""`make bench` (``python -m bench``): benchmark sections, each printing its own figures.

A section is a module in this package with ``run(quick: bool) -> None``. Figures go to stdout as
``name: value unit`` lines so they can be pasted into notes and compared across runs.
"""

from __future__ import annotations

import importlib
import time

SECTIONS = ["battleline", "warchest", "mcts", "sandbox", "league", "eta", "cluster", "stats",
            "matchmaking", "arena", "serve", "startup", "envs"]


def figure(name: str, value: float, unit: str, note: str = "", places: int = 1) -> None:
    """Print one benchmark figure in the common format (``places`` decimals)."""
    tail = f"  ({note})" if note else ""
    print(f"  {name}: {value:,.{places}f} {unit}{tail}", flush=True)


def run_sections(only: list[str], quick: bool = False) -> None:
    unknown = [s for s in only if s not in SECTIONS]
    if unknown:
        raise KeyError(f"unknown bench section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    from games import native

    print("engines: " + "; ".join(f"{game} {how}" for game, how in native.status().items()),
          flush=True)
    for name in only or SECTIONS:
        module = importlib.import_module(f"bench.{name}")
        print(f"[{name}]", flush=True)
        t0 = time.perf_counter()
        module.run(quick)
        print(f"  (section took {time.perf_counter() - t0:.1f} s)", flush=True)
