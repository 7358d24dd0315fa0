"""Issue 47: the report is one file that opens any game's replay. It wrote NAME_replays/ beside
itself with viewers for 100 of 746 games; now every game's replay is packed in the page on its
own (gzip, base64) and unpacked by the browser when the game is opened. Checked on a league of
three hundred games: the page's size per game, and a late game opened in a real Chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from typer.testing import CliRunner

from games import registry
from harness.cli.app import app
from harness.league import store
from tests.patience import patience
from tests.report.browser import chromium, console_errors, open_page, require
from tests.report.leagues import page_replays

GAMES = 100  # 3 pairings of random bots: 300 games, six pages of the list
#: What a game may add to the page: its replay, compressed, and its row (about 5 kB measured;
#: a viewer file of its own was 40 kB).
BYTES_PER_GAME = 8_000


def tourney(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("big")
    folder = root / "big"
    result = tourney("league", "bl", "random", "lazy=random", "rash=random", "--games",
                     str(GAMES), "--out", folder, "--workers", "2", "-q", "--seed", "4")
    assert result.exit_code == 0, result.output
    out = root / "report.html"
    result = tourney("report", folder, "-o", out)
    assert result.exit_code == 0, result.output
    assert f"{3 * GAMES} games, the replays of {3 * GAMES} in it" in result.stdout
    return folder, out


def test_a_big_league_s_report_holds_every_replay_in_a_few_kb_each(
        big: tuple[Path, Path]) -> None:
    folder, out = big
    assert sorted(p.name for p in out.parent.iterdir()) == ["big", "report.html"]
    size = out.stat().st_size
    assert size < 3 * GAMES * BYTES_PER_GAME, f"{size / 1e6:.1f} MB for {3 * GAMES} games"
    replays = page_replays(out)
    assert len(replays) == 3 * GAMES
    last = max(replays)  # any one: its moves are the stored ones
    assert [m[1] for m in replays[last]["moves"]] == [
        m["action"] for m in store.load_moves(folder, last)]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require()  # not run where Chromium is missing (and failed under CI, which must run it)
    with chromium() as driver:
        yield driver


def _in_frame(driver: Any, script: str) -> Any:
    """Run ``script`` in the replay's frame (and come back to the report)."""
    driver.switch_to.frame(driver.find_element(By.ID, "replay-frame"))
    try:
        return driver.execute_script(script)
    finally:
        driver.switch_to.default_content()


def _frame_at(driver: Any, k: int) -> None:
    WebDriverWait(driver, patience(20)).until(
        lambda d: _in_frame(d, "return document.body && document.body.dataset.frame") == str(k))


def test_a_late_game_opens_from_the_report_and_plays_to_the_engine_s_end(
        big: tuple[Path, Path], browser: Any) -> None:
    folder, out = big
    open_page(browser, out)
    WebDriverWait(browser, patience(30)).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    # the last page of the games list, its last game
    while browser.find_element(By.ID, "p-next").is_enabled():
        browser.find_element(By.ID, "p-next").click()
    assert browser.find_element(By.ID, "p-pos").text == f"page {3 * GAMES // 50} of " \
                                                         f"{3 * GAMES // 50}"
    button = browser.find_elements(By.CSS_SELECTOR, "#games-table button.view")[-1]
    game_id = button.get_attribute("data-replay")
    button.click()
    dialog = browser.find_element(By.ID, "replay-dialog")
    WebDriverWait(browser, patience(20)).until(lambda d: dialog.get_attribute("open"))
    _frame_at(browser, 0)
    assert browser.current_url.endswith(f"#game={game_id}")

    row = next(r for r in store.load_games([folder]).games.to_pylist()
               if r["game_id"] == game_id)
    state = registry.get("bl").new_game(row["seed"], **json.loads(row["variant"]))
    moves = store.load_moves(folder, game_id)
    for m in moves:
        state.apply(m["action"])
    assert state.is_terminal()
    title = _in_frame(browser, "return document.getElementById('r-title').textContent")
    assert title == f"Battle Line · game {game_id}"
    assert "Result: " in _in_frame(browser, "return document.getElementById('result')"
                                            ".textContent")
    _in_frame(browser, "document.getElementById('b-last').click()")
    _frame_at(browser, len(moves))
    shown = _in_frame(browser, "return [...document.querySelectorAll('g[data-flag]')].map("
                               "g => [Number(g.dataset.flag), Number(g.dataset.claimed)])")
    assert {f: c for f, c in shown} == {f["flag"]: f["claimed"]
                                       for f in state.observation(0)["flags"]}
    listed = _in_frame(browser, "return [...document.querySelectorAll('#moves li')].map("
                                "li => li.textContent)")
    assert len(listed) == len(moves) and moves[-1]["action"] in listed[-1]

    # Escape closes it; the address opens it again, as a link to it would
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    WebDriverWait(browser, patience(10)).until(lambda d: not dialog.get_attribute("open"))
    other = min(page_replays(out))
    open_page(browser, out, f"#game={other}")
    WebDriverWait(browser, patience(30)).until(lambda d: dialog.get_attribute("open"))
    _frame_at(browser, 0)
    assert _in_frame(browser, "return document.title") == f"tourney replay: {other}"
    assert console_errors(browser) == []


def test_a_live_report_reloads_itself_with_the_new_games(
        tmp_path: Path, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 47: a live report refreshes itself. While the league runs, the page says so and
    reloads itself; once the league has ended, it stops."""
    import harness.figures.report as report
    from harness.figures.report import ReportUpdater

    monkeypatch.setattr(report, "LIVE_RELOAD", 1)  # seconds (a minute in use)
    folder, out = tmp_path / "lg", tmp_path / "lg.html"

    def play(games: int) -> None:
        result = tourney("league", "bl", "random", "greedy", "--games", str(games), "--out",
                         folder, "--workers", "0", "-q", "--seed", "2")
        assert result.exit_code == 0, result.output

    def count() -> str:  # the page may be reloading under the question: then not yet
        try:
            return str(browser.find_element(By.ID, "f-count").text)
        except (NoSuchElementException, StaleElementReferenceException):
            return ""

    play(2)
    updater = ReportUpdater(folder, out, interval=0.0)
    updater.tick()  # while the league runs
    open_page(browser, out)
    WebDriverWait(browser, patience(20)).until(lambda d: count() == "2 of 2 games")
    assert "still running" in browser.find_element(By.ID, "live").text
    browser.execute_script("window.seen = 1")
    play(4)
    updater.tick()
    WebDriverWait(browser, patience(30)).until(lambda d: count() == "4 of 4 games")
    assert browser.execute_script("return window.seen") is None  # a new page: it reloaded
    updater.write()  # the league has ended
    WebDriverWait(browser, patience(30)).until(
        lambda d: count() == "4 of 4 games" and not d.find_elements(By.ID, "live"))
    assert console_errors(browser) == []
