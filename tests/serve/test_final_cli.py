"""The deadline and the final from the command line, on a real `tourney serve`: the organiser
sets the deadline while the server runs, the server closes entries, stops its league, plays the
final and publishes it; `tourney submit` is refused with one line; a restart keeps it all."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
from selenium.webdriver.common.by import By

from tests.patience import patience
from tests.report.browser import chromium, console_errors, require
from tests.serve.conftest import BOTS, start_server, tourney


def test_the_organiser_closes_entries_and_the_server_plays_the_final(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    served = start_server(folder, "--game", "battleline", "--seed", "5", "--deadline",
                          "2099-01-01T12:00Z", "--final-top", "2")
    try:
        assert "Submission deadline 2099-01-01 12:00 UTC" in served.output.read_text()
        shown = tourney("serve-admin", "deadline", folder)
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout == ("deadline: 2099-01-01 12:00 UTC\n"
                                "final: swiss among the top 2, log2 N rounds, 1 duplicate pair "
                                "a meeting\nstate: open\n")
        tokens = {}
        for name, bot in (("alice", "first.py"), ("bob", "last.py")):
            made = tourney("serve-admin", "add", folder, name)
            tokens[name] = made.stdout.split("token ", 1)[1].split()[0]
            sent = tourney("submit", served.url, BOTS / bot, env={"TOURNEY_TOKEN": tokens[name]})
            assert sent.returncode == 0, sent.stderr
        end = time.monotonic() + patience(90)
        while time.monotonic() < end:
            board = httpx.get(served.url + "/api/leaderboard", timeout=10).json()["entrants"]
            if all(e["games"] >= 2 and e["rating"] is not None for e in board):
                break
            time.sleep(0.3)

        # the leaderboard open in a browser while the organiser moves the deadline to now
        require()
        with chromium(1300, 900) as driver:
            driver.get(served.url + "/")
            assert driver.find_element(By.ID, "deadline").text.startswith(
                "Submission deadline 2099-01-01 12:00 UTC")
            closed = tourney("serve-admin", "deadline", folder, "2020-01-01T00:00Z",
                             "--final", "knockout", "--final-pairs", "1")
            assert closed.returncode == 0, closed.stderr
            assert closed.stdout.startswith("deadline: 2020-01-01 00:00 UTC\nfinal: knockout "
                                            "among the top 2, 1 duplicate pair a meeting\n")
            late = tourney("submit", served.url, BOTS / "random_pick.py",
                           env={"TOURNEY_TOKEN": tokens["bob"]})
            assert late.returncode == 2
            assert late.stderr == ("tourney: error: the server refused (403): entries closed "
                                   "at 2020-01-01 00:00 UTC, the submission deadline; no more "
                                   "bots are taken (the final is played among the leaders)\n")
            end = time.monotonic() + patience(180)
            final: dict[str, object] = {}
            while time.monotonic() < end:
                final = httpx.get(served.url + "/api/final", timeout=10).json()
                if final["state"] in ("done", "failed"):
                    break
                time.sleep(0.3)
            assert final["state"] == "done", (final, (folder / "serve-arena.log").read_text())
            published = json.loads((folder / "final" / "standings.json").read_text())
            assert sorted(r["bot"] for r in published["standings"]) == ["alice.v1", "bob.v1"]
            assert final["standings"] == published["standings"]
            # the league stopped at the deadline: its table is the one that seeded the final
            board = httpx.get(served.url + "/api/leaderboard", timeout=10).json()["entrants"]
            assert [(e["entrant"], e["games"]) for e in board] == \
                [(e["entrant"], e["games"]) for e in published["seeding"]]
            page = httpx.get(served.url + "/", timeout=10).text
            assert "These standings are final." in page
            _look_at_the_final(driver, published["standings"], tmp_path / "final.png")
        again = tourney("serve-admin", "deadline", folder, "none")
        assert again.returncode == 2
        assert again.stderr.startswith("tourney: error: the final has begun (done)")
    finally:
        out = served.stop()
    assert "stopped; the same command continues" in out

    # continued: the same published final, no league, and no new deadline on the command line
    refused = tourney("serve", folder, "--deadline", "2099-01-01T00:00Z", "--port", "0")
    assert refused.returncode == 2
    assert "tourney serve-admin deadline" in refused.stderr
    served = start_server(folder)
    try:
        text = served.output.read_text()
        assert "Entries closed 2020-01-01 00:00 UTC. The final is over" in text
        assert httpx.get(served.url + "/api/final", timeout=10).json()["standings"] == \
            published["standings"]
        assert tourney("serve-admin", "stop", folder).returncode == 0
    finally:
        served.stop()


def _look_at_the_final(driver: Any, standings: list[dict[str, object]], shot: Path) -> None:
    """The published final on the leaderboard opened before the deadline: the page followed
    the final by itself, as anyone sees it."""
    end = time.monotonic() + patience(60)
    while not driver.find_elements(By.CSS_SELECTOR, "#final .pill") or \
            driver.find_element(By.CSS_SELECTOR, "#final .pill").text != "final standings":
        assert time.monotonic() < end, driver.find_element(By.TAG_NAME, "body").text
        time.sleep(0.3)
    table = driver.find_element(By.ID, "final-table")
    rows = [r.text.split() for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert [(row[0], row[1]) for row in rows] == [(str(r["rank"]), r["bot"]) for r in standings]
    assert driver.find_element(By.ID, "deadline").text.startswith("Entries closed")
    driver.find_element(By.CSS_SELECTOR, "#final summary").click()  # the meetings
    assert " v " in driver.find_element(By.ID, "final-meetings").text
    assert not console_errors(driver)
    driver.save_screenshot(str(shot))


def test_a_bad_deadline_at_the_start_gets_one_line_and_makes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    for options, message in (
            (("--deadline", "tomorrow"), "cannot read the deadline 'tomorrow'; write it as "
                                         "2026-12-01T18:00Z (UTC), with an offset such as "
                                         "+01:00, or none"),
            (("--final", "league"), "the final's format is swiss or knockout, not 'league'")):
        bad = tourney("serve", folder, "--game", "battleline", "--port", "0", *options)
        assert bad.returncode == 2
        assert bad.stderr == f"tourney: error: {message}\n"
        assert not folder.exists()
