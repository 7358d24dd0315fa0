"""The HTML report and replay viewer, loaded in a real headless Chromium.

Small leagues of Battle Line (2 and 3 players), 2-player and 4-player War Chest are played in
this process; their reports and one replay each are written by the CLI and checked from the
rendered page against `tourney ratings --format json --h2h` and against the engine replaying the
stored moves.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from typer.testing import CliRunner

from games import registry
from harness.cli.app import app
from harness.league import store
from tests.report.browser import chromium, console_errors, open_page, require
from tests.report.leagues import with_elo

runner = CliRunner()

LEAGUES: dict[str, list[str]] = {
    "bl": ["bl", "random", "greedy", "lazy=random", "--games", "2"],
    "wc2": ["wc", "random", "greedy", "--games", "2"],
    "wc4": ["wc", "random", "greedy", "--variant", "players=4", "--games", "2"],
    "bl3": ["bl", "random", "greedy", "lazy=random", "--variant", "players=3", "--games", "6"],
}
NAMES = list(LEAGUES)


def tourney(*args: str | Path) -> Any:
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def leagues(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("leagues")
    out = {}
    for name, args in LEAGUES.items():
        folder = root / name
        result = tourney("league", *args, "--out", folder, "--workers", "0", "-q", "--seed", "5")
        assert result.exit_code == 0, result.output
        out[name] = folder
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require()  # not run where Chromium is missing (and failed under CI, which must run it)
    with chromium() as driver:
        yield driver


def ratings_json(folder: Path) -> dict[str, Any]:
    result = tourney("ratings", folder, "--format", "json", "--h2h")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize("name", NAMES)
def test_report_tables_match_ratings_json(name: str, leagues: dict[str, Path], browser: Any,
                                          tmp_path: Path) -> None:
    folder = leagues[name]
    out = tmp_path / "report.html"
    result = tourney("report", folder, "-o", out)
    assert result.exit_code == 0, result.output
    expected = ratings_json(folder)
    open_page(browser, out)
    assert console_errors(browser) == []

    rows = browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr")
    shown = [{td.get_attribute("data-key"): json.loads(td.get_attribute("data-value"))
              for td in row.find_elements(By.TAG_NAME, "td")} for row in rows]
    assert shown == expected["leaderboard"]
    assert [r.find_element(By.CSS_SELECTOR, "td[data-key=bot]").text for r in rows] == [
        r["bot"] for r in expected["leaderboard"]]

    cells = browser.find_elements(By.CSS_SELECTOR, "#h2h-table td[data-win-rate]")
    heat = sorted((c.get_attribute("data-bot"), c.get_attribute("data-opponent"),
                   float(c.get_attribute("data-win-rate")), int(c.get_attribute("data-games")))
                  for c in cells)
    assert heat == sorted((h["bot"], h["opponent"], h["win_rate"], h["games"])
                          for h in expected["h2h"])
    for c in cells:  # the figure is written in the cell, not only in attributes
        assert c.text.splitlines()[0] == f"{100 * float(c.get_attribute('data-win-rate')):.0f}%"

    assert browser.find_elements(By.CSS_SELECTOR, "#history-chart .uplot canvas")
    games = store.load_games([folder]).games.num_rows
    assert len(browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")) == min(50, games)
    bots = {r["bot"] for r in expected["leaderboard"]}
    assert {r.get_attribute("data-bot") for r in
            browser.find_elements(By.CSS_SELECTOR, "#term-table tbody tr")} == bots
    assert {r.get_attribute("data-bot") for r in
            browser.find_elements(By.CSS_SELECTOR, "#think-table tbody tr")} == bots
    # every game links to a viewer written beside the report
    links = browser.find_elements(By.CSS_SELECTOR, "#games-table a")
    assert len(links) == min(50, games)
    assert all((out.parent / a.get_attribute("href").split(str(out.parent.resolve()))[-1]
                .lstrip("/")).exists() for a in links)

    # a click on a column header sorts the rows by it, again the other way
    header = browser.find_element(By.CSS_SELECTOR, "#leaderboard-table th[data-key=bot]")
    header.click()
    names = [r["bot"] for r in expected["leaderboard"]]
    def order() -> list[str]:
        return [td.text for td in browser.find_elements(
            By.CSS_SELECTOR, "#leaderboard-table td[data-key=bot]")]
    assert order() == sorted(names, key=str.lower)
    header.click()
    assert order() == sorted(names, key=str.lower, reverse=True)

    # filtering by bot keeps only its games
    bot = expected["leaderboard"][-1]["bot"]
    browser.execute_script(
        "const s = document.getElementById('f-bot'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('change'));", bot)
    listed = browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
    assert listed and all(bot in r.find_elements(By.TAG_NAME, "td")[1].text.split(" · ")
                          for r in listed)
    assert console_errors(browser) == []


def engine_replay(folder: Path, game_id: str,
                  upto: int | None = None) -> tuple[Any, list[dict[str, Any]]]:
    """The engine's own replay of a stored game, after ``upto`` moves (default all), and its
    moves (independent of the viewer's code)."""
    row = next(r for r in store.load_games([folder]).games.to_pylist()
               if r["game_id"] == game_id)
    state = registry.get(row["game"]).new_game(row["seed"], **json.loads(row["variant"]))
    moves = store.load_moves(folder, game_id)
    for m in moves[:upto]:
        state.apply(m["action"])
    return state, moves


def first_game(folder: Path) -> str:
    return str(store.load_games([folder]).games.column("game_id")[0].as_py())


def wait_frame(driver: Any, k: int) -> None:
    WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-frame") == str(k))


@pytest.mark.parametrize("name", NAMES)
def test_replay_steps_to_the_engine_final_position(name: str, leagues: dict[str, Path],
                                                   browser: Any, tmp_path: Path) -> None:
    folder = leagues[name]
    game_id = first_game(folder)
    out = tmp_path / "replay.html"
    result = tourney("replay", folder, game_id[:9], "--html", out)
    assert result.exit_code == 0, result.output
    state, moves = engine_replay(folder, game_id)
    assert state.is_terminal()
    open_page(browser, out)
    body = browser.find_element(By.TAG_NAME, "body")
    wait_frame(browser, 0)
    body.send_keys(Keys.ARROW_RIGHT)
    wait_frame(browser, 1)
    current = browser.find_elements(By.CSS_SELECTOR, "#moves li.current")
    assert [li.get_attribute("data-ply") for li in current] == ["0"]
    assert moves[0]["action"] in current[0].text
    browser.find_element(By.ID, "b-last").click()
    wait_frame(browser, len(moves))
    body.send_keys(Keys.ARROW_LEFT)
    wait_frame(browser, len(moves) - 1)
    body.send_keys(Keys.HOME)
    wait_frame(browser, 0)
    browser.execute_script(  # drag the slider to the middle
        "const s = document.getElementById('slider'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('input'));", str(len(moves) // 2))
    wait_frame(browser, len(moves) // 2)
    browser.find_element(By.CSS_SELECTOR, '#moves li[data-ply="2"]').click()
    wait_frame(browser, 3)
    browser.find_element(By.ID, "b-prev").click()
    wait_frame(browser, 2)
    browser.find_element(By.ID, "b-first").click()
    wait_frame(browser, 0)
    browser.find_element(By.ID, "b-next").click()
    wait_frame(browser, 1)
    body.send_keys(Keys.END)
    wait_frame(browser, len(moves))
    assert browser.find_element(By.ID, "slider").get_attribute("value") == str(len(moves))

    obs = state.observation(0)
    if name.startswith("bl"):
        shown = {int(g.get_attribute("data-flag")): int(g.get_attribute("data-claimed"))
                 for g in browser.find_elements(By.CSS_SELECTOR, "g[data-flag]")}
        assert shown == {f["flag"]: f["claimed"] for f in obs["flags"]}
        assert any(v >= 0 for v in shown.values())
    else:
        control = {g.get_attribute("data-hex"): int(g.get_attribute("data-control"))
                   for g in browser.find_elements(By.CSS_SELECTOR, "g[data-location]")}
        assert {h: c for h, c in control.items() if c >= 0} == obs["control"]
        units = sorted((u.get_attribute("data-at"), u.get_attribute("data-unit"),
                        int(u.get_attribute("data-owner")), int(u.get_attribute("data-height")))
                       for u in browser.find_elements(By.CSS_SELECTOR, "g[data-unit]"))
        assert units == sorted((u["hex"], u["unit"], u["owner"], u["height"])
                               for u in obs["board"])
    assert console_errors(browser) == []


@pytest.mark.parametrize("name", NAMES)
def test_seat_view_hides_the_other_hands(name: str, leagues: dict[str, Path], browser: Any,
                                         tmp_path: Path) -> None:
    folder = leagues[name]
    game_id = first_game(folder)
    out = tmp_path / "replay.html"
    assert tourney("replay", folder, game_id, "--html", out).exit_code == 0
    _, moves = engine_replay(folder, game_id)
    k = len(moves) // 2
    state, _ = engine_replay(folder, game_id, k)
    seats = state.num_players
    open_page(browser, out, f"#{k}")
    wait_frame(browser, k)

    def choose(view: int) -> None:
        browser.execute_script(
            "const s = document.getElementById('view'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('change'));", str(view))

    def hand_rows() -> dict[int, str]:
        return {int(b.get_attribute("data-seat")):
                b.find_element(By.CSS_SELECTOR, "[data-row=hand] .v").text
                for b in browser.find_elements(By.CSS_SELECTOR, ".seatbox[data-seat]")}

    def bl_hand(seat: int) -> list[str]:
        return [c.get_attribute("data-card") for c in browser.find_elements(
            By.CSS_SELECTOR, f'g[data-hand="{seat}"] g[data-card]')]

    for seat in range(seats):
        choose(seat + 1)
        obs = state.observation(seat)
        rows = hand_rows()
        for other in range(seats):
            if other == seat:
                assert "hidden" not in rows[other]
            else:
                count = (obs["hand_sizes"][other] if name.startswith("bl")
                         else obs["hand_count"][other])
                assert rows[other] == f"{count} (hidden)", (seat, rows)
        if name.startswith("bl"):
            assert bl_hand(seat) == obs["hand"]
            for other in range(seats):
                if other != seat:
                    assert bl_hand(other) == ["hidden"] * obs["hand_sizes"][other]
    choose(0)  # the whole truth: every hand in the open
    rows = hand_rows()
    assert all("hidden" not in text for text in rows.values())
    if name.startswith("bl"):
        for seat in range(seats):
            assert bl_hand(seat) == state.observation(seat)["hand"]
    assert console_errors(browser) == []


def test_report_of_a_league_not_started_yet(leagues: dict[str, Path], browser: Any,
                                            tmp_path: Path) -> None:
    folder = tmp_path / "fresh"
    folder.mkdir()
    (folder / "league.json").write_text((leagues["bl"] / "league.json").read_text())
    out = tmp_path / "report.html"
    result = tourney("report", folder, "-o", out)
    assert result.exit_code == 0, result.output
    open_page(browser, out)
    assert browser.find_element(By.ID, "leaderboard-table").text == "no games yet"
    assert browser.find_element(By.ID, "f-count").text == "0 of 0 games"
    assert console_errors(browser) == []


def test_three_player_battle_line_draws_each_flag_between_its_two_seats(
        leagues: dict[str, Path], browser: Any, tmp_path: Path) -> None:
    folder = leagues["bl3"]
    game_id = first_game(folder)
    out = tmp_path / "replay.html"
    assert tourney("replay", folder, game_id, "--html", out).exit_code == 0
    _, moves = engine_replay(folder, game_id)
    k = max(1, len(moves) * 2 // 3)
    state, _ = engine_replay(folder, game_id, k)
    open_page(browser, out, f"#{k}")
    wait_frame(browser, k)

    def rect(element: Any) -> dict[str, float]:
        box: dict[str, float] = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};", element)
        return box

    def cards(flag: int, seat: int) -> list[str]:
        return sorted(c.get_attribute("data-card") for c in browser.find_elements(
            By.CSS_SELECTOR, f'g[data-side-of="{flag}"][data-side-seat="{seat}"] g[data-card]'))

    for view in (None, 0, 1, 2):  # the whole truth, then each seat's view
        browser.execute_script(
            "const s = document.getElementById('view'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('change'));", str(0 if view is None else view + 1))
        flags = state.observation(0 if view is None else view)["flags"]
        assert len(flags) == 9
        for flag in flags:
            number, pair = flag["flag"], flag["seats"]
            circle = browser.find_element(By.CSS_SELECTOR, f'g[data-flag="{number}"]')
            above = int(circle.get_attribute("data-above"))
            below = int(circle.get_attribute("data-below"))
            assert sorted((above, below)) == sorted(pair), (view, number)
            if view in pair:  # the seat whose view it is plays from below, as in 2-player
                assert below == view
            for seat in range(3):  # each of the two seats' cards on its side, the third none
                want = sorted(c[0] for c in flag["sides"][seat]) if seat in pair else []
                assert cards(number, seat) == want, (view, number, seat)
            middle = rect(circle.find_element(By.TAG_NAME, "circle"))
            for c in browser.find_elements(
                    By.CSS_SELECTOR, f'g[data-side-of="{number}"][data-side-seat="{above}"] rect'):
                assert rect(c)["bottom"] < middle["top"]
            for c in browser.find_elements(
                    By.CSS_SELECTOR, f'g[data-side-of="{number}"][data-side-seat="{below}"] rect'):
                assert rect(c)["top"] > middle["bottom"]
        # three hands, one under the other, none over the board or another hand
        hands = sorted((rect(h) for h in browser.find_elements(
            By.CSS_SELECTOR, "svg[data-game=battleline] g[data-hand]")), key=lambda r: r["top"])
        assert len(hands) == 3
        lowest_card = max(rect(c)["bottom"] for c in browser.find_elements(
            By.CSS_SELECTOR, "g[data-side-of] rect") or [circle])
        assert hands[0]["top"] > lowest_card
        assert all(a["bottom"] <= b["top"] for a, b in itertools.pairwise(hands))
    assert console_errors(browser) == []


def test_leaderboard_shows_elo_columns(leagues: dict[str, Path], browser: Any, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    with_elo(monkeypatch)
    out = tmp_path / "report.html"
    assert tourney("report", leagues["bl"], "-o", out, "--replays", "0").exit_code == 0
    expected = ratings_json(leagues["bl"])["leaderboard"]
    open_page(browser, out)
    assert console_errors(browser) == []
    heads = {th.get_attribute("data-key"): th.text for th in
             browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table th")}
    assert {k: heads[k] for k in ("elo", "elo_low", "elo_high")} == {
        "elo": "Elo", "elo_low": "Elo low", "elo_high": "Elo high"}

    def column(key: str) -> list[str]:
        return [td.text for td in browser.find_elements(
            By.CSS_SELECTOR, f"#leaderboard-table td[data-key={key}]")]

    n = len(expected)
    assert column("bot") == [r["bot"] for r in expected]
    assert column("elo") == [f"{100 - 50 * i}" for i in range(n)]
    assert column("elo_low")[-1] == "−∞" and column("elo_high")[0] == "–"
    browser.find_element(By.CSS_SELECTOR, "#leaderboard-table th[data-key=elo]").click()
    assert column("elo") == [f"{100 - 50 * i}" for i in reversed(range(n))]
    assert console_errors(browser) == []
