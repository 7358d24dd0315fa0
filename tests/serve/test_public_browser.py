"""The public side of `tourney serve` in headless Chromium, as an anonymous visitor sees it
(issue 47): the leaderboard with score, W/D/L and last activity, an entrant's public page
reached from it (versions without the refusal's reason, the newest games), and a game's replay
opened from there and played to its end. `python -m tests.serve.test_public_browser DIR`
photographs the three pages (leaderboard.png, entrant.png, replay.png; docs/screenshots by
default)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from tests.report.browser import chromium, console_errors, require
from tests.serve.conftest import BOTS, Served, start_server
from tests.serve.test_browser import _admin_add, _board, _wait

ROOT = Path(__file__).resolve().parents[2]
SECRET = "SECRET-MARKER-4711"


def _send(url: str, token: str, name: str, data: bytes) -> None:
    r = httpx.post(url + "/api/submissions", files={"bot": (name, data)},
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 202, r.text


def _field(served: Served) -> None:
    """alice (a refused version, then one that plays), bob and carol, sent over the API."""
    url, folder = served.url, served.folder
    tokens = {name: _admin_add(folder, name, url).split("#", 1)[1]
              for name in ("alice", "bob", "carol")}
    _send(url, tokens["alice"], "broken.py",
          f"def act(observation, legal):\n    raise RuntimeError({SECRET!r})\n".encode())
    for name, bot in (("alice", "first.py"), ("bob", "random_pick.py"), ("carol", "last.py")):
        _send(url, tokens[name], bot, (BOTS / bot).read_bytes())


def visit(driver: Any, served: Served, shots: Path | None = None) -> None:
    """The anonymous visit; with ``shots``, the three pages are photographed there."""
    from selenium.webdriver.common.by import By

    url = served.url
    _field(served)
    driver.get(url + "/")
    _wait(driver, lambda: len(_board(driver)) == 3 and min(_board(driver).values()) >= 4,
          "games of every entrant on the leaderboard", 180)
    row = driver.find_element(By.CSS_SELECTOR, '#board tr[data-entrant="alice"]').text
    assert "%" in row and "/" in row, row  # score, W/D/L
    assert "Log out" not in driver.page_source  # nobody is logged in
    if shots:
        driver.save_screenshot(str(shots / "leaderboard.png"))
    driver.find_element(By.LINK_TEXT, "alice").click()
    _wait(driver, lambda: driver.current_url.endswith("/entrants/alice"), "alice's page")
    versions = driver.find_element(By.ID, "versions").text
    assert "active" in versions and "failed" in versions
    assert "refused by its entry check" in versions and SECRET not in driver.page_source
    links = _wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#games a.replay"),
                  "alice's games")
    if shots:
        driver.save_screenshot(str(shots / "entrant.png"))
    game_id = links[0].get_attribute("href").rsplit("/", 1)[1]
    links[0].click()
    _wait(driver, lambda: game_id in driver.current_url and "Result:" in driver.page_source,
          "the replay")
    _wait(driver, lambda: driver.execute_script("return document.body.dataset.frame") == "0",
          "the viewer's first frame")
    for _ in range(6):
        driver.find_element(By.ID, "b-next").click()
    assert int(driver.execute_script("return document.body.dataset.frame")) == 6
    if shots:
        driver.save_screenshot(str(shots / "replay.png"))
    driver.find_element(By.ID, "b-last").click()
    assert int(driver.execute_script("return document.body.dataset.frame")) > 6
    assert str(served.folder) not in driver.page_source
    errors = console_errors(driver)
    assert not errors, errors
    # the log of that game is not the visitor's: the login page, not the log
    driver.get(f"{url}/games/{game_id}/log")
    _wait(driver, lambda: driver.current_url.endswith("/login"), "the log's refusal")


def test_an_anonymous_visitor_follows_the_competition(tmp_path: Path) -> None:
    require()
    served = start_server(tmp_path / "contest", "--game", "battleline", "--seed", "9")
    try:
        with chromium(1300, 900) as driver:
            visit(driver, served, tmp_path)
        for name in ("leaderboard.png", "entrant.png", "replay.png"):
            assert (tmp_path / name).stat().st_size > 10_000, name
    finally:
        served.stop()


if __name__ == "__main__":  # photograph the pages for docs/
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "spring-cup", "--game", "battleline", "--seed", "9")
        try:
            with chromium(1300, 900) as browser:
                visit(browser, server, out)
        finally:
            server.stop()
    print(f"wrote {out}/leaderboard.png, entrant.png, replay.png")
