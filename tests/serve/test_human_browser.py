"""The human seat's page in headless Chromium: a person plays a bot by clicking (a card, then a
flag, on the Battle Line board; the list of legal moves otherwise), the page keeps up with the
bot's moves, logs no error, and never shows a card of the bot's hand it may not know."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from games import registry
from harness.records import BotRef
from harness.serve.human import LocalServer, serve_local
from tests.patience import patience
from tests.report.browser import chromium, console_errors, require

GREEDY = BotRef("greedy", "greedy")


def _wait_turn(driver: Any, last: str, seconds: float = 20) -> str:
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


def _play(driver: Any, local: LocalServer, moves: int, board_clicks: bool) -> tuple[int, list[
        tuple[int, str]], str]:
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


def test_a_human_plays_battle_line_by_clicking_the_board(tmp_path: Path) -> None:
    require()
    local = serve_local(game="battleline", variant={}, bots=[GREEDY], human=0,
                        store=tmp_path / "h", user="me", seed=13)
    try:
        with chromium() as driver:
            driver.get(local.url)
            clicked, seen, _ = _play(driver, local, 40, board_clicks=True)
            assert clicked >= 5
            assert console_errors(driver) == []
            history = driver.find_element("id", "history").text
            assert "you: play" in history and "seat 1 (greedy): " in history
    finally:
        local.stop()
    # what the page showed, against the true position at that decision
    record_moves = local.session.record.moves if local.session.record else []
    truth_moves = [m.action for m in record_moves]
    engine = registry.get("battleline")
    checked = 0
    for decisions, shown in seen:
        state = engine.new_game(13)
        for action in truth_moves[:decisions]:
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


def test_a_human_plays_war_chest_from_the_list_of_moves(tmp_path: Path) -> None:
    require()
    local = serve_local(game="warchest", variant={}, bots=[GREEDY], human=1,
                        store=tmp_path / "h", user="me", seed=4)
    try:
        with chromium() as driver:
            driver.get(local.url)
            _, seen, last = _play(driver, local, 12, board_clicks=False)
            assert len(seen) >= 10
            assert driver.find_elements("css selector", "#board svg[data-game=warchest]")
            # the human's next turn after the last move: the page may show it already (the
            # bot answered, or the move was the first part of a turn), so the version to wait
            # past is the one the last move was made at, not the one the page shows now
            if _wait_turn(driver, last) == "you":
                _click_a_hex(driver)
            history = driver.find_element("id", "history").text
            assert "seat 0 (greedy): " in history and "you: " in history
            assert console_errors(driver) == []
    finally:
        local.stop()
    assert local.session.cancelled and not local.session.stored
