"""The HTML report and replay viewer, loaded in a real headless Chromium.

Small leagues of Battle Line (2 and 3 players), 2-player and 4-player War Chest are played in
this process; their reports and one replay each are written by the CLI and checked from the
rendered page against `tourney ratings --format json --h2h` and against the engine replaying the
stored moves.
"""

from __future__ import annotations

import itertools
import json
import re
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

    cells = browser.find_elements(By.CSS_SELECTOR, "#h2h-table td[data-score]")
    heat = sorted((c.get_attribute("data-bot"), c.get_attribute("data-opponent"),
                   float(c.get_attribute("data-score")), int(c.get_attribute("data-games")))
                  for c in cells)
    assert heat == sorted((h["bot"], h["opponent"], h["score"], h["games"])
                          for h in expected["h2h"])
    for c in cells:  # the figure is written in the cell, not only in attributes
        assert c.text.splitlines()[0] == f"{100 * float(c.get_attribute('data-score')):.0f}%"

    assert browser.find_elements(By.CSS_SELECTOR, "#history-chart .uplot canvas")
    games = store.load_games([folder]).games.num_rows
    assert len(browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")) == min(50, games)
    bots = {r["bot"] for r in expected["leaderboard"]}
    assert {r.get_attribute("data-bot") for r in
            browser.find_elements(By.CSS_SELECTOR, "#term-table tbody tr")} == bots
    assert {r.get_attribute("data-bot") for r in
            browser.find_elements(By.CSS_SELECTOR, "#think-table tbody tr")} == bots
    # think times: one unit and one number of decimals per column (not 16 µs over 1.2 ms)
    think = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")[2:]]
             for tr in browser.find_elements(By.CSS_SELECTOR, "#think-table tbody tr")]
    for column in zip(*think, strict=True):
        forms = {re.sub(r"\d", "9", text) for text in column}
        assert len({form.split()[-1] for form in forms}) == 1, column  # the unit
        assert len({len(form.split()[0].partition(".")[2]) for form in forms}) == 1, column
    # every game listed opens its replay, which the page holds
    buttons = browser.find_elements(By.CSS_SELECTOR, "#games-table button.view")
    assert len(buttons) == min(50, games)
    assert all(browser.find_elements(By.ID, f"replay-{b.get_attribute('data-replay')}")
               for b in buttons)

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


def test_leaderboard_shows_elo_first_and_formats_each_column_evenly(
        leagues: dict[str, Path], browser: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    with_elo(monkeypatch)
    out = tmp_path / "report.html"
    assert tourney("report", leagues["bl"], "-o", out, "--replays", "0").exit_code == 0
    expected = ratings_json(leagues["bl"])["leaderboard"]
    open_page(browser, out)
    assert console_errors(browser) == []
    heads = browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table thead tr:last-child th")
    keys = [th.get_attribute("data-key") for th in heads]
    # the Elo fit with its interval first (the figure to compare), then TrueSkill, the record
    assert keys[:9] == ["rank", "bot", "elo", "elo_low", "elo_high", "elo_se", "mu", "sigma",
                        "rating"]
    assert keys[9:14] == ["games", "wins", "draws", "losses", "score"]
    assert sorted(keys) == sorted(expected[0])  # every column of the JSON, once
    labels = {th.get_attribute("data-key"): th.text for th in heads}
    assert [labels[k] for k in ("elo", "elo_low", "elo_high", "mu")] == ["Elo", "low", "high",
                                                                         "mu"]
    groups = [(th.text, int(th.get_attribute("colspan"))) for th in browser.find_elements(
        By.CSS_SELECTOR, "#leaderboard-table thead tr.groups th")]
    assert groups[:3] == [("", 2), ("Elo (95% interval)", 4), ("TrueSkill", 3)]
    assert sum(n for _, n in groups) == len(keys)

    def column(key: str) -> list[str]:
        return [td.text for td in browser.find_elements(
            By.CSS_SELECTOR, f"#leaderboard-table td[data-key={key}]")]

    n = len(expected)
    assert column("bot") == [r["bot"] for r in expected]
    # Elo is relative to the pool: signed, no decimals, a true minus; an unbounded end is ∞
    assert column("elo") == ["+100", "+50", "0"][:n]
    assert column("elo_low")[-1] == "−∞" and column("elo_high")[0] == "–"
    assert column("elo_low")[0] == "+40" and column("elo_high")[-1] == f"+{160 - 50 * (n - 1)}"
    # one number of decimals per column, in every row
    for key, decimals in (("mu", 2), ("sigma", 2), ("rating", 2), ("score", 1),
                          ("games", 0), ("wins", 0), ("rank", 0)):
        for text, row in zip(column(key), expected, strict=True):
            figure = text.rstrip("%").replace("−", "-")
            assert figure == f"{(100 if key == 'score' else 1) * row[key]:.{decimals}f}", (
                key, text)
    # numbers right-aligned in tabular digits, words left-aligned
    styles = browser.execute_script(
        "return [...document.querySelectorAll('#leaderboard-table tbody tr:first-child td')]"
        ".map((td) => [td.dataset.key, getComputedStyle(td).textAlign,"
        " getComputedStyle(td).fontVariantNumeric]);")
    for key, align, digits in styles:
        assert align == ("left" if key in ("bot", "perfect") else "right"), key
        assert "tabular-nums" in digits, key
    # sorting by Elo: numerically, an unbounded end beyond every finite one
    browser.find_element(By.CSS_SELECTOR, "#leaderboard-table th[data-key=elo]").click()
    assert column("elo") == list(reversed(["+100", "+50", "0"][:n]))
    browser.find_element(By.CSS_SELECTOR, "#leaderboard-table th[data-key=elo_low]").click()
    assert column("elo_low")[0] == "−∞"
    assert console_errors(browser) == []


# ----------------------------------------------------------------------------- labels, colours

#: Checks, in the page, that every label of a card, a tactic badge or a unit lies inside its
#: shape (its advance box, as laid out, within the rect or circle, 1 unit to spare) and is at
#: least MIN_PX CSS pixels tall on screen; returns the problems and the labels seen by kind.
LABELS_JS = """
const MIN_PX = arguments[0];
const problems = [], seen = {};
for (const g of document.querySelectorAll(
    '#board g[data-card], #board g[data-env], #board g[data-unit]')) {
  const shape = g.querySelector('rect, circle').getBBox();
  // the labels the viewer marks, else (a viewer that marks none) every text of a card and
  // the first of a unit (the second is its stack's height, in a badge of its own)
  let texts = [...g.querySelectorAll('text[data-label]')];
  if (!texts.length) texts = g.dataset.unit ? [g.querySelector('text')]
    : [...g.querySelectorAll('text')];
  for (const t of texts) {
    const kind = t.dataset.label || 'text';
    const b = t.getBBox();
    const px = parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a;
    const what = (g.dataset.card || g.dataset.env || g.dataset.unit) + ' ' + kind;
    seen[kind] = (seen[kind] || 0) + 1;
    if (b.x < shape.x + 1 || b.x + b.width > shape.x + shape.width - 1)
      problems.push(`${what} "${t.textContent}" is ${b.width.toFixed(1)} wide in ` +
                    `${shape.width.toFixed(1)}`);
    if (px < MIN_PX) problems.push(`${what} "${t.textContent}" is ${px.toFixed(1)} px`);
  }
  if (g.dataset.card && !/^([roygbp]\\d+|hidden)$/.test(g.dataset.card) &&
      ![...g.querySelectorAll('text')].some((t) => t.textContent.toLowerCase() === g.dataset.card))
    problems.push(`the tactic ${g.dataset.card} is not named on its card`);
}
return [problems, seen];
"""
MIN_PX = 8.5
TACTICS = ["alexander", "darius", "companion", "shield", "fog", "mud", "scout", "redeploy",
           "deserter", "traitor"]


def check_labels(driver: Any) -> tuple[list[str], dict[str, int]]:
    problems, seen = driver.execute_script(LABELS_JS, MIN_PX)
    return list(problems), dict(seen)


@pytest.mark.parametrize("name", NAMES)
def test_every_label_fits_its_card_in_every_frame(name: str, leagues: dict[str, Path],
                                                  browser: Any, tmp_path: Path) -> None:
    folder = leagues[name]
    game_id = first_game(folder)
    out = tmp_path / "replay.html"
    assert tourney("replay", folder, game_id, "--html", out).exit_code == 0
    _, moves = engine_replay(folder, game_id)
    open_page(browser, out)
    wait_frame(browser, 0)
    problems: set[str] = set()
    seen: dict[str, int] = {}
    for k in range(len(moves) + 1):  # every position of the game, as the viewer draws it
        browser.execute_script(
            "const s = document.getElementById('slider'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('input'));", str(k))
        found, counts = check_labels(browser)
        problems.update(f"move {k}: {p}" for p in found)
        for kind, n in counts.items():
            seen[kind] = seen.get(kind, 0) + n
    assert sorted(problems)[:10] == []
    assert seen.get("rank" if name.startswith("bl") else "unit", 0) > 0, seen
    assert console_errors(browser) == []


@pytest.mark.parametrize("seats", [2, 3])
def test_every_tactic_name_fits_in_a_hand_and_on_a_flag(seats: int, leagues: dict[str, Path],
                                                        browser: Any, tmp_path: Path) -> None:
    """All ten tactics, each in a hand and stacked on a flag, with Fog and Mud beside flags and
    flags claimed: drawn by the viewer's own tourneyBoard (which the human seat's page uses)."""
    folder = leagues["bl" if seats == 2 else "bl3"]
    out = tmp_path / "replay.html"
    assert tourney("replay", folder, first_game(folder), "--html", out).exit_code == 0
    open_page(browser, out)
    wait_frame(browser, 0)
    hands = [TACTICS[:7], [*TACTICS[7:], "r10", "p9", "b10", "y8"], ["g10", "o1", "alexander"]]
    pairs = [[0, 1]] * 9 if seats == 2 else [[0, 1]] * 3 + [[1, 2]] * 3 + [[0, 2]] * 3
    flags = []
    for i, pair in enumerate(pairs):
        stack = [[TACTICS[(i + j) % 10], j] for j in range(3)] + [["r10", 3]]
        sides: list[list[Any]] = [[] for _ in range(seats)]
        sides[pair[0]], sides[pair[1]] = stack, list(reversed(stack))
        flags.append({"flag": i + 1, "sides": sides, "claimed": pair[i % 2] if i % 3 else -1,
                      "fog": 0 if i % 2 else -1, "mud": 1 if i % 3 == 0 else -1,
                      **({"seats": pair} if seats == 3 else {})})
    frame = {"hands": hands[:seats], "flags": flags, "tactics_played": [0] * seats,
             "discards": [[] for _ in range(seats)], "claimable": [1]}
    for view in [None, *range(seats)]:
        browser.execute_script(
            "const B = tourneyBoard({players: arguments[1], seats: arguments[2], board: []});"
            "document.getElementById('board').innerHTML = "
            "B.drawBattleLine(arguments[0], arguments[3], 1);",
            frame, seats, [f"bot{s}" for s in range(seats)], view)
        problems, seen = check_labels(browser)
        assert problems == [], view
        shown = {t.get_attribute("textContent").lower() for t in browser.find_elements(
            By.CSS_SELECTOR, "#board g[data-card] text")}
        assert shown >= set(TACTICS)
        assert sum(seen.values()) >= 2 * (10 + 9 * 4 * 2)  # hands, both sides of every flag
    assert console_errors(browser) == []


def lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of a CSS ``rgb(r, g, b)`` or ``#rrggbb`` colour."""
    if colour.startswith("#"):
        rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    else:
        rgb = [int(float(x)) for x in colour[colour.index("(") + 1:-1].split(",")[:3]]
    lin = [c / 3294.6 if c <= 10.31 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883

    def f(t: float) -> float:
        return float(t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116)

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str) -> float:
    """CIE76 colour difference: about 2.3 is just noticeable, beyond 25 plainly another colour."""
    return float(sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5)


#: What each seat's colour is drawn on: its panel, its moves' marks, its claimed flags, its
#: hand's label (Battle Line) and its units (War Chest); in CSS rgb() as the page computes them.
SEAT_COLOURS_JS = """
const css = (e, p) => getComputedStyle(e)[p];
const out = [];
for (const b of document.querySelectorAll('.seatbox[data-seat]'))
  out.push([+b.dataset.seat, 'panel', css(b, 'borderTopColor')]);
document.querySelectorAll('#moves li').forEach((li, i) =>
  out.push([D_moves[i], 'move mark', css(li.querySelector('.dot'), 'backgroundColor')]));
for (const g of document.querySelectorAll('#board g[data-flag]'))
  if (+g.dataset.claimed >= 0)
    out.push([+g.dataset.claimed, 'claimed flag', css(g.querySelector('circle'), 'fill')]);
for (const g of document.querySelectorAll('#board g[data-hand]'))
  out.push([+g.dataset.hand, 'hand label', css(g.querySelector(':scope > text'), 'fill')]);
for (const g of document.querySelectorAll('#board g[data-unit]'))
  out.push([+g.dataset.owner, 'unit', css(g.querySelector('circle'), 'fill')]);
const suits = [];
for (const g of document.querySelectorAll('#board g[data-card]'))
  if (/^[roygbp]\\d+$/.test(g.dataset.card))
    suits.push([g.dataset.card[0], css(g.querySelector('rect'), 'fill')]);
return [out, suits];
"""


@pytest.mark.parametrize("name", NAMES)
def test_seats_are_coloured_apart_from_the_suits(name: str, leagues: dict[str, Path],
                                                 browser: Any, tmp_path: Path) -> None:
    folder = leagues[name]
    game_id = first_game(folder)
    out = tmp_path / "replay.html"
    assert tourney("replay", folder, game_id, "--html", out).exit_code == 0
    _, moves = engine_replay(folder, game_id)
    open_page(browser, out, f"#{len(moves)}")
    wait_frame(browser, len(moves))
    seats_of_moves = [m["seat"] for m in moves]
    used, suits = browser.execute_script(
        f"const D_moves = {json.dumps(seats_of_moves)};" + SEAT_COLOURS_JS)
    colours: dict[int, set[str]] = {}
    for seat, _, colour in used:
        colours.setdefault(seat, set()).add(colour)
    players = len(store.load_games([folder]).games.column("bots")[0].as_py())
    assert sorted(colours) == list(range(players))
    assert all(len(c) == 1 for c in colours.values()), colours  # one colour per seat, everywhere
    seat = {s: next(iter(c)) for s, c in colours.items()}
    # the suits as drawn on this board, and the six the viewer knows (War Chest has none)
    suit = {letter: colour for letter, colour in suits}
    known = browser.execute_script(
        "return tourneyBoard({players: 2, seats: [], board: []}).SUIT_COLOURS || {};")
    if name.startswith("bl"):
        assert len(suit) >= 4  # most suits are on the table at the end of a game
    for s, colour in seat.items():
        for letter, other in [*suit.items(), *known.items()]:
            assert delta_e(colour, other) > 30, (s, colour, letter, other)
    for a, b in itertools.combinations(seat, 2):
        assert delta_e(seat[a], seat[b]) > 20, (a, b, seat)
    assert set(known) == set("roygbp")
    for letter, colour in suit.items():
        assert delta_e(colour, known[letter]) < 1
    # the moves list and panels also mark each seat by a shape of its own
    shapes = browser.execute_script(
        "const d = [...document.querySelectorAll('.seatbox[data-seat] h3 .dot')];"
        "return d.map((e) => [getComputedStyle(e).clipPath, getComputedStyle(e).borderRadius]);")
    assert len(shapes) == players and len({tuple(s) for s in shapes}) == players
    assert console_errors(browser) == []
