"""`make screenshots`: play small leagues, write their reports and viewers, and photograph them
in headless Chromium at a mid-game position into docs/screenshots/."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from harness.cli.app import app
from harness.figures.report import write_replay, write_report
from harness.league import store
from tests.report.browser import chromium, console_errors

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "screenshots"

LEAGUES = {
    "battleline": ["bl", "random", "greedy", "careful=greedy", "--games", "6"],
    "warchest": ["wc", "random", "greedy", "--games", "4"],
    "warchest4": ["wc", "random", "greedy", "--variant", "players=4", "--games", "2"],
    "battleline3": ["bl", "random", "greedy", "lazy=random", "--variant", "players=3",
                    "--games", "6"],
}


def play(folder: Path, args: list[str]) -> None:
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, [*args, "--out", str(folder), "--workers", "0", "-q",
                                      "--seed", "3"])
    if result.exit_code != 0:
        raise SystemExit(f"league for the screenshots failed: {result.output}")


def mid_game(folder: Path) -> tuple[str, int]:
    """A game won by the rules with the most decisions, and its middle move."""
    rows = store.load_games([folder]).games.to_pylist()
    rows = [r for r in rows if r["termination"] == "normal"] or rows
    best = max(rows, key=lambda r: (r["decisions"] if r["decisions"] < 400 else 0, r["game_id"]))
    return best["game_id"], best["decisions"] * 3 // 5


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, chromium(1400, 1100) as driver:
        root = Path(tmp)
        shots: list[tuple[str, str]] = []
        for name, args in LEAGUES.items():
            folder = root / name
            play(folder, ["league", *args])
            game_id, k = mid_game(folder)
            viewer = root / f"{name}-replay.html"
            write_replay(folder, game_id, viewer)
            shots.append((f"replay-{name}.png", viewer.as_uri() + f"#{k}"))
            if name == "battleline":
                report = root / "report.html"
                write_report([folder], report, replays=10)
                shots.insert(0, ("report.png", report.as_uri()))
        for png, url in shots:
            driver.get(url)
            time.sleep(0.6)
            errors = console_errors(driver)
            if errors:
                print(f"console errors on {url}: {errors}", file=sys.stderr)
                return 1
            driver.save_screenshot(str(OUT / png))
            print(f"wrote {OUT / png}")
        driver.set_window_size(1400, 2600)
        driver.get(shots[0][1])
        time.sleep(0.6)
        driver.save_screenshot(str(OUT / "report-full.png"))
        print(f"wrote {OUT / 'report-full.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
