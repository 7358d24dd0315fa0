"""The organiser's dashboard in headless Chromium, on a real `tourney serve` started with a
deadline: log in with the organiser token (as the login page says), open the dashboard, watch
its figures, add a house bot through its form and see it admitted, and see the deadline on
every page. `python -m tests.serve.test_dashboard_browser DIR` photographs the dashboard
(docs/screenshots/dashboard.png)."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from tests.patience import patience
from tests.report.browser import chromium, console_errors, require, wait_until
from tests.serve.conftest import BOTS, Served, start_server

ROOT = Path(__file__).resolve().parents[2]
# three days on, at 18:00 UTC: a deadline as an organiser sets one
_AT = datetime.fromtimestamp(time.time() + 3 * 86400, UTC).replace(hour=18, minute=0, second=0,
                                                                   microsecond=0)
DEADLINE = ("--deadline", _AT.strftime("%Y-%m-%dT%H:%MZ"), "--final", "knockout",
            "--final-top", "4")


def _cli(*args: str | Path) -> str:
    return subprocess.run([sys.executable, "-m", "harness.cli.app", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=patience(60),
                          check=True).stdout


def _wait(driver: Any, check: Any, what: str, seconds: float = 90) -> Any:
    return wait_until(driver, check, what, seconds)


def _field(served: Served) -> None:
    """Three entrants' bots sent through the API, one of them failing its entry check."""
    for name, bot in (("alice", "first.py"), ("bob", "random_pick.py"), ("carol", "last.py")):
        token = _cli("serve-admin", "add", served.folder, name).split("token ", 1)[1].split()[0]
        data = (BOTS / bot).read_bytes()
        r = httpx.post(served.url + "/api/submissions", files={"bot": (bot, data)},
                       headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert r.status_code == 202, r.text


def _games(served: Served) -> int:
    board = httpx.get(served.url + "/api/leaderboard", timeout=10).json()
    return sum(e["games"] for e in board["entrants"])


def walk(driver: Any, served: Served, shots: Path | None = None) -> None:
    from selenium.webdriver.common.by import By

    url = served.url
    _field(served)
    end = time.monotonic() + patience(120)
    while _games(served) < 12 and time.monotonic() < end:
        time.sleep(0.5)
    # the login page tells the organiser which token to use
    driver.get(url + "/login")
    assert "organiser token that tourney serve printed" in \
        driver.find_element(By.ID, "organiser-login").text
    banner = driver.find_element(By.ID, "deadline").text
    assert banner.startswith(f"Submission deadline {_AT:%Y-%m-%d} 18:00 UTC (in ")
    assert banner.endswith("then a knockout final among the top 4.")
    driver.find_element(By.ID, "token").send_keys(served.organiser)
    driver.find_element(By.ID, "token").submit()
    _wait(driver, lambda: driver.current_url.endswith("/admin"), "the organiser's login")
    driver.find_element(By.LINK_TEXT, "Dashboard").click()
    _wait(driver, lambda: driver.current_url.endswith("/admin/dashboard"), "the dashboard")
    assert driver.find_element(By.ID, "deadline").text == banner
    stored = int(driver.find_element(By.CSS_SELECTOR, "#card-games .big").text)
    assert stored >= 12
    assert driver.find_element(By.CSS_SELECTOR, "#card-league .big").text == "playing"
    assert driver.find_element(By.ID, "deadline-input").get_attribute("value") == DEADLINE[1]
    # a house bot, added through the form, checked and playing like an entrant
    form = driver.find_element(By.ID, "house-form")
    form.find_element(By.NAME, "name").send_keys("baseline")
    form.find_element(By.NAME, "spec").send_keys("greedy")
    form.find_element(By.TAG_NAME, "button").click()
    _wait(driver, lambda: "baseline" in driver.find_element(By.ID, "house").text,
          "the house bot in the table")

    def admitted() -> bool:
        driver.refresh()
        return "active" in driver.find_element(By.ID, "house").text

    _wait(driver, admitted, "the house bot's entry check")
    _wait(driver, lambda: "baseline" in httpx.get(url + "/api/leaderboard").text,
          "the house bot on the leaderboard")
    for part in ("disk", "forfeits", "suspended", "errors", "checks"):
        assert driver.find_element(By.ID, part).is_displayed(), part
    assert "the whole folder" in driver.find_element(By.ID, "disk").text
    assert str(served.folder) not in driver.page_source
    assert not console_errors(driver)
    if shots:
        driver.set_window_size(1300, 1750)
        driver.refresh()
        time.sleep(0.5)
        driver.save_screenshot(str(shots / "dashboard.png"))


def test_the_dashboard_in_a_browser(tmp_path: Path) -> None:
    require()
    served = start_server(tmp_path / "contest", "--game", "battleline", "--seed", "9",
                          *DEADLINE)
    try:
        with chromium(1300, 900) as driver:
            walk(driver, served, tmp_path)
        assert (tmp_path / "dashboard.png").stat().st_size > 10_000
    finally:
        served.stop()


if __name__ == "__main__":  # photograph the dashboard for docs/
    import tempfile

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "spring-cup", "--game", "battleline", "--seed", "9",
                              *DEADLINE)
        try:
            with chromium(1300, 900) as browser:
                walk(browser, server, out)
        finally:
            server.stop()
    print(f"wrote {out}/dashboard.png")
