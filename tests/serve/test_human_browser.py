"""The human seat's page in headless Chromium, on a real `tourney serve`: an entrant logs in
through the invitation link, opens *Play a bot*, starts a game against another entrant's bot
through the form, and plays by clicking (a card, then a flag, on the Battle Line board; the
list of legal moves otherwise). The page keeps up with the bot's moves, logs no error (its
Content-Security-Policy allows no inline script), never shows a card of the bot's hand it may
not know, reveals the deal's seed only at the end, and the replay of the game plays."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx

from games import registry
from harness.figures.report import find_game
from harness.league.store import load_games
from tests.patience import patience
from tests.report.browser import chromium, console_errors, require
from tests.serve.conftest import BOTS, Served, start_server
from tests.serve.test_browser import _admin_add, _wait

BOT = "bob.v1"


def _competition(folder: Path, game: str, bot: str) -> Served:
    """A running competition of ``game`` with bob's ``bot`` admitted."""
    served = start_server(folder, "--game", game, "--seed", "5")
    bob = _admin_add(folder, "bob", served.url).split("#", 1)[1]
    data = (BOTS / bot).read_bytes()
    auth = {"Authorization": f"Bearer {bob}"}
    r = httpx.post(served.url + "/api/submissions", files={"bot": (bot, data)}, headers=auth)
    assert r.status_code == 202, r.text
    end = time.monotonic() + patience(120)
    while time.monotonic() < end:
        status = httpx.get(f"{served.url}/api/submissions/{BOT}", headers=auth).json()["status"]
        if status != "validating":
            assert status == "active", status
            return served
        time.sleep(0.5)
    raise AssertionError("bob's bot was not checked in time")


def _log_in_and_start(driver: Any, served: Served, seat: int) -> None:
    """Alice logs in from her invitation link and starts a game against bob's bot from the
    seat's form (no address typed but the invitation's and the site's own links)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(_admin_add(served.folder, "alice", served.url))
    driver.find_element(By.ID, "token").submit()
    _wait(driver, lambda: driver.current_url.endswith("/me"), "logging in")
    driver.find_element(By.LINK_TEXT, "Play a bot").click()
    _wait(driver, lambda: driver.find_elements(By.ID, "new-game"), "the human seat's form")
    assert not driver.find_elements(By.ID, "seed")  # the server deals
    Select(driver.find_element(By.ID, "bot")).select_by_value(BOT)
    Select(driver.find_element(By.ID, "seat")).select_by_value(str(seat))
    driver.find_element(By.CSS_SELECTOR, "#new-game button[type=submit]").click()
    _wait(driver, lambda: re.search(r"/play/g/[0-9a-f]{16}$", driver.current_url),
          "the game's page")


def _wait_turn(driver: Any, last: str, seconds: float = 30) -> str:
    """Until the page shows the human's turn (at a new version) or the end: which one."""
    end = time.monotonic() + patience(seconds)
    while time.monotonic() < end:
        turn, version = driver.execute_script(
            "return [document.body.dataset.turn || '', document.body.dataset.version || '']")
        if turn == "over" or (turn == "you" and version != last):
            return str(turn)
        time.sleep(0.05)
    raise AssertionError("the page never offered a move: "
                         + driver.find_element("tag name", "body").text[:1500])


def _snapshot(driver: Any) -> tuple[int, str]:
    decisions, html = driver.execute_script(
        "return [Number(document.body.dataset.decisions),"
        " document.getElementById('board').innerHTML + document.getElementById('seats')"
        ".innerText + document.getElementById('history').innerText]")
    return int(decisions), str(html)


def _click_card_then_flag(driver: Any) -> bool:
    """Play a troop by clicking a card of the human's hand, then a flag: False if there is no
    such move now."""
    card = driver.execute_script(
        "const c = document.querySelector('#board [data-hand=\"0\"] [data-card].pickable');"
        "return c ? c.dataset.card : null")
    if card is None or not re.fullmatch(r"[roygbp]\d+", card):
        return False
    driver.find_element("css selector", f'#board [data-hand="0"] [data-card="{card}"]').click()
    assert driver.find_element("id", "prefix").text == f"play {card} …"
    flag = driver.execute_script(
        "const f = document.querySelector('#board [data-flag].pickable');"
        "return f ? f.dataset.flag : null")
    assert flag is not None, "a chosen card shows the flags it may go to"
    driver.find_element("css selector", f'#board [data-flag="{flag}"]').click()
    return True


def _play(driver: Any, moves: int, board_clicks: bool) -> tuple[int, list[tuple[int, str]], str]:
    """Make up to ``moves`` moves by clicking; returns how many were made by clicking the board,
    what the page showed after each, and the page's version when the last move was made."""
    seen: list[tuple[int, str]] = []
    clicked = 0
    version = ""
    for _ in range(moves):
        if _wait_turn(driver, version) == "over":
            break
        version = driver.execute_script("return document.body.dataset.version")
        seen.append(_snapshot(driver))
        if board_clicks and _click_card_then_flag(driver):
            clicked += 1
        else:
            driver.find_element("css selector", "#all-actions button[data-action]").click()
    seen.append(_snapshot(driver))
    return clicked, seen, version


def _policy(driver: Any, url: str) -> str:
    """The Content-Security-Policy of a page, fetched with the browser's session."""
    cookies = {c["name"]: c["value"] for c in driver.get_cookies()}
    r = httpx.get(url, cookies=cookies)
    assert r.status_code == 200, r.text
    return r.headers["content-security-policy"]


def test_a_human_plays_battle_line_on_the_server_by_clicking_the_board(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    require()
    served = _competition(tmp_path / "contest", "battleline", "first.py")
    try:
        with chromium() as driver:
            _log_in_and_start(driver, served, seat=0)
            assert "seed" not in driver.find_element(By.CSS_SELECTOR, "header .sub").text
            clicked, seen, _ = _play(driver, 300, board_clicks=True)
            assert clicked >= 5
            assert driver.execute_script("return document.body.dataset.turn") == "over"
            assert console_errors(driver) == []
            history = driver.find_element(By.ID, "history").text
            assert "you: play" in history and f"seat 1 ({BOT}): " in history
            result = driver.find_element(By.ID, "result-text").text
            # the replay, its scripts served by the site under a policy without inline script
            link = driver.find_element(By.ID, "replay-link")
            replay = link.get_attribute("href")
            assert "script-src 'self';" in _policy(driver, replay)  # no inline script
            link.click()
            _wait(driver, lambda: "Result:" in driver.page_source and
                  driver.execute_script("return document.body.dataset.frame") == "0",
                  "the replay viewer")
            driver.find_element(By.ID, "b-last").click()
            frames = int(driver.execute_script("return document.body.dataset.frame"))
            assert console_errors(driver) == []
    finally:
        served.stop()
    games = load_games([served.folder / "human"]).games.to_pylist()
    assert len(games) == 1 and games[0]["bots"] == ["human:alice", BOT]
    stored = find_game(served.folder / "human", games[0]["game_id"])
    assert frames == len(stored.moves) > 20  # the viewer went to the last move
    seed = stored.row["seed"]
    assert f"(deal seed {seed})" in result  # shown once the game is over
    # what the page showed, against the true position at that decision
    engine = registry.get("battleline")
    checked = 0
    moves = [m["action"] for m in stored.moves]
    for decisions, shown in seen:
        assert str(seed) not in shown
        state = engine.new_game(seed)
        for action in moves[:decisions]:
            state.apply(action)
        known = set(state.observation(0)["opponent_known"])
        hidden = set(state.observation(1)["hand"]) - known
        leaked = [c for c in hidden if re.search(rf"\b{c}\b", shown)]
        assert not leaked, (decisions, leaked)
        assert shown.count('data-card="hidden"') == len(state.observation(1)["hand"])
        checked += 1
    assert checked >= 10


def _click_a_hex(driver: Any) -> None:
    """On the human's turn: the hexes some legal move names are marked; clicking one narrows
    the moves to those naming it (or chooses the move's beginning up to it)."""
    hexes = set(driver.execute_script(
        "return [...document.querySelectorAll('#board [data-hex]')].map(h => h.dataset.hex)"))
    moves = driver.execute_script(
        "return [...document.querySelectorAll('#all-actions button')].map(b => b.dataset.action)")
    named = sorted({t for m in moves for t in m.split() if t in hexes})
    marked = driver.execute_script(
        "return [...document.querySelectorAll('#board [data-hex].pickable')]"
        ".map(h => h.dataset.hex)")
    assert sorted(set(marked)) == named
    if not named:
        return
    driver.find_element("css selector", f'#board [data-hex="{named[0]}"]').click()
    after = driver.execute_script(
        "return [...document.querySelectorAll('#all-actions button')].map(b => b.dataset.action)")
    assert after and all(named[0] in m.split() for m in after)


def test_a_human_plays_war_chest_on_the_server_from_the_list_of_moves(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    require()
    served = _competition(tmp_path / "contest", "warchest", "random_pick.py")
    try:
        with chromium() as driver:
            _log_in_and_start(driver, served, seat=1)
            _, seen, last = _play(driver, 12, board_clicks=False)
            assert len(seen) >= 10
            assert driver.find_elements(By.CSS_SELECTOR, "#board svg[data-game=warchest]")
            # the human's next turn after the last move: the page may show it already (the
            # bot answered, or the move was the first part of a turn), so the version to wait
            # past is the one the last move was made at, not the one the page shows now
            if _wait_turn(driver, last) == "you":
                _click_a_hex(driver)
            history = driver.find_element(By.ID, "history").text
            assert f"seat 0 ({BOT}): " in history and "you: " in history
            assert console_errors(driver) == []
            # the game is listed on the seat's page, in progress
            driver.get(served.url + "/play/")
            assert "in progress" in driver.find_element(By.CSS_SELECTOR, "ul.games").text
    finally:
        log = served.stop()
    assert "error:" not in log and "Traceback" not in log, log
    # stopped mid-game: the game in progress is not stored
    assert not (served.folder / "human" / "games").exists() or \
        load_games([served.folder / "human"]).games.num_rows == 0
