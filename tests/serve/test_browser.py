"""`tourney serve` in headless Chromium, as an entrant and the organiser use it: log in from an
invitation link, upload a bot through the form and see it validated, watch the leaderboard
change while games are played (without a reload), open a replay from the entrant's page, and the
organiser's page. `python -m tests.serve.test_browser DIR` photographs the three pages."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.patience import patience
from tests.report.browser import chromium, console_errors, require, wait_until
from tests.serve.conftest import BOTS, Served, start_server

ROOT = Path(__file__).resolve().parents[2]


def _admin_add(folder: Path, name: str, url: str) -> str:
    out = subprocess.run([sys.executable, "-m", "harness.cli.app", "serve-admin", "add",
                          str(folder), name, "--url", url], capture_output=True, text=True,
                         cwd=ROOT, timeout=patience(60), check=True).stdout
    return out.split("invitation link: ", 1)[1].split()[0]


def _wait(driver: Any, check: Any, what: str, seconds: float = 60) -> Any:
    return wait_until(driver, check, what, seconds)


def _board(driver: Any) -> dict[str, int]:
    """The leaderboard's games per entrant, read in one go (the page redraws its rows)."""
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#board tbody tr[data-entrant]'))"
        ".map(r => [r.dataset.entrant, Number(r.dataset.games)]);")
    return {name: int(games) for name, games in rows}


def walk(driver: Any, served: Served, shots: Path | None = None) -> None:
    """The whole visit; with ``shots``, the three pages are photographed into that folder."""
    from selenium.webdriver.common.by import By

    url, folder = served.url, served.folder
    # an opponent, sent from the command line
    bob = _admin_add(folder, "bob", url).split("#", 1)[1]
    bot = BOTS / "random_pick.py"
    r = httpx.post(url + "/api/submissions", files={"bot": (bot.name, bot.read_bytes())},
                   headers={"Authorization": f"Bearer {bob}"})
    assert r.status_code == 202, r.text
    invite = _admin_add(folder, "alice", url)
    # the invitation link fills in the token, which never reaches the server in a URL
    driver.get(invite)
    token = driver.find_element(By.ID, "token")
    assert token.get_attribute("value").startswith("tny_")
    assert "#" not in driver.current_url
    token.submit()
    _wait(driver, lambda: driver.current_url.endswith("/me"), "logging in")
    # upload through the form, and see the entry check's verdict without reloading by hand
    driver.find_element(By.ID, "bot").send_keys(str(BOTS / "first.py"))
    driver.find_element(By.CSS_SELECTOR, "#upload button").click()
    _wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR,
                                               "#submissions .status-active"),
          "the bot's entry check")
    assert "first.py" in driver.find_element(By.ID, "submissions").text
    assert "self-play game" in driver.page_source  # the check's report
    # the leaderboard follows the games as they are played, without a reload
    driver.get(url + "/")
    driver.execute_script("window.__stay = 42;")
    start = _board(driver).get("alice", 0)
    _wait(driver, lambda: _board(driver).get("alice", 0) > start, "the leaderboard's update")
    assert driver.execute_script("return window.__stay;") == 42  # the same page, updated
    assert set(_board(driver)) == {"alice", "bob"}
    assert driver.find_element(By.ID, "live").text == "live"
    if shots:
        time.sleep(2.5)
        driver.save_screenshot(str(shots / "serve-leaderboard.png"))
    # the entrant's page lists the games; a replay opens in the viewer
    driver.get(url + "/me")
    links = _wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#games a.replay"),
                  "the entrant's games")
    if shots:
        driver.save_screenshot(str(shots / "serve-entrant.png"))
    game_id = links[0].get_attribute("href").rsplit("/", 1)[1]
    links[0].click()
    _wait(driver, lambda: game_id in driver.current_url and "Result:" in driver.page_source,
          "the replay")
    assert str(folder) not in driver.page_source
    # the viewer plays with its scripts served by the site: no inline script is allowed
    _wait(driver, lambda: driver.execute_script("return document.body.dataset.frame") == "0",
          "the viewer's first frame")
    driver.find_element(By.ID, "b-last").click()
    assert int(driver.execute_script("return document.body.dataset.frame")) > 0
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    policy = httpx.get(driver.current_url, cookies=cookies).headers["content-security-policy"]
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy.split(
        "script-src", 1)[1].split(";", 1)[0]
    errors = console_errors(driver)
    assert not errors, errors
    # an error page's Back link works under the site's policy (no javascript: address)
    driver.get(url + "/me")
    driver.get(url + "/games/no-such-game")
    assert "Not found" in driver.find_element(By.TAG_NAME, "h2").text
    driver.find_element(By.ID, "back").click()
    _wait(driver, lambda: driver.current_url.endswith("/me"), "going back from the error page")
    errors = [e for e in console_errors(driver) if "status of 404" not in e]
    assert not errors, errors  # (a refused script would be one)
    # the organiser's page
    driver.get(url + "/login")
    driver.delete_all_cookies()
    driver.get(url + "/login")
    driver.find_element(By.ID, "token").send_keys(served.organiser)
    driver.find_element(By.ID, "token").submit()
    _wait(driver, lambda: driver.current_url.endswith("/admin"), "the organiser's login")
    table = driver.find_element(By.ID, "entrants").text
    assert "alice" in table and "bob" in table and "active" in table
    assert driver.find_element(By.ID, "state").text == "playing"
    if shots:
        driver.save_screenshot(str(shots / "serve-organiser.png"))
    assert not console_errors(driver)


def test_an_entrant_and_the_organiser_in_a_browser(tmp_path: Path) -> None:
    require()
    served = start_server(tmp_path / "contest", "--game", "battleline", "--seed", "9")
    try:
        with chromium(1300, 900) as driver:
            walk(driver, served, tmp_path)
        for name in ("serve-leaderboard.png", "serve-entrant.png", "serve-organiser.png"):
            assert (tmp_path / name).stat().st_size > 10_000, name
    finally:
        served.stop()


if __name__ == "__main__":  # photograph the pages for docs/
    import tempfile

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "spring-cup", "--game", "battleline", "--seed", "9")
        try:
            with chromium(1300, 900) as browser:
                walk(browser, server, out)
        finally:
            server.stop()
    print(f"wrote {out}/serve-*.png")
