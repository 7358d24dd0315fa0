"""A third game plugs in by declaring itself: Hidden Bid (tests/fixtures/hiddenbid.py), which
lives only in the tests, is registered, passes the conformance suite, plays leagues of two and
of three players, gets ratings, a report and replay pages, and a person plays it on the
competition server's human seat, all with no edit to ``harness/``: the harness learns its
sides, its private information and its (absent) board from the game."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from games import registry
from games.conformance import check_game
from harness.cli.app import app
from harness.figures.report import find_game, replay_html
from harness.league import store
from tests.fixtures import hiddenbid
from tests.patience import patience
from tests.report.leagues import page_replays

BOT = Path(__file__).resolve().parent / "serve" / "bots" / "first.py"


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    registry.register("hiddenbid", "tests.fixtures.hiddenbid", {"hidden-bid": {}})
    try:
        yield
    finally:
        registry.unregister("hiddenbid")


def tourney(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("players", ["2", "3"])
def test_it_passes_the_conformance_suite(players: str) -> None:
    report = check_game(hiddenbid.GAME, {"players": players}, seeds=range(25))
    assert report.games == 25 and report.decisions > 25 * 2 * 5 - 1 and report.samples > 0


def test_it_declares_what_the_harness_needs() -> None:
    info = registry.get("hidden-bid").info
    assert info.sides_of(2) == [[0], [1]] and info.sides_of(3) == [[0], [1], [2]]
    assert getattr(registry.get("hiddenbid"), "board", None) is None


def test_a_two_player_league_rates_and_reports_it(tmp_path: Path) -> None:
    out = tmp_path / "duel"
    tourney("league", "hiddenbid", "random", f"first={BOT}", "--games", "6", "--out", out,
            "--workers", "0", "--seed", "4", "-q")
    games = store.load_games([out]).games.to_pylist()
    assert len(games) == 6 and {g["game"] for g in games} == {"hiddenbid"}
    assert all(sorted(g["bots"]) == ["first", "random"] for g in games)
    # duplicate pairs: each deal played from both seats
    assert len({g["pair_id"] for g in games}) == 3
    ratings = json.loads(tourney("ratings", out, "--format", "json"))
    assert {row["bot"] for row in ratings["leaderboard"]} == {"first", "random"}
    report = tmp_path / "report.html"
    tourney("report", out, "--out", report, "--replays", "all")
    assert "Hidden Bid" in report.read_text() or "hiddenbid" in report.read_text()
    assert len(page_replays(report)) == 6  # every game's replay, in the page


def test_a_replay_shows_each_seat_only_its_own_hand(tmp_path: Path) -> None:
    out = tmp_path / "duel"
    tourney("league", "hiddenbid", "random", "other=random", "--games", "2", "--out", out,
            "--workers", "0", "--seed", "8", "-q")
    game_id = store.load_games([out]).games.column("game_id")[0].as_py()
    html = replay_html(find_game(out, game_id))
    from harness.figures.report.render import unpack

    packed = re.search(r'id="replay-data"[^>]*>([^<]+)<', html)
    assert packed, "the viewer carries its data"
    data = unpack(packed.group(1))
    truth, seat0, seat1 = (view["first"] for view in data["views"])
    assert truth["hands"] == [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]]  # the all-seeing view
    assert seat0["hands"] == [[1, 2, 3, 4, 5], 5] and seat1["hands"] == [5, [1, 2, 3, 4, 5]]
    assert "my_bid" not in truth and "hand" not in seat0
    assert data["board"] is None


def test_a_three_player_league_is_a_free_for_all(tmp_path: Path) -> None:
    out = tmp_path / "three"
    tourney("league", "hiddenbid", "random", "b=random", "c=random", "--variant", "players=3",
            "--games", "6", "--out", out, "--workers", "0", "--seed", "2", "-q")
    games = store.load_games([out]).games.to_pylist()
    assert len(games) == 6 and all(len(g["bots"]) == 3 for g in games)
    # one deal, every seating order of the triple
    assert len({tuple(g["bots"]) for g in games}) == 6 and len({g["seed"] for g in games}) == 1
    ratings = json.loads(tourney("ratings", out, "--format", "json"))
    assert len(ratings["leaderboard"]) == 3


def test_its_replay_page_shows_each_view_in_a_browser(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from tests.report.browser import chromium, console_errors, require

    require()
    out = tmp_path / "duel"
    tourney("league", "hiddenbid", "random", "other=random", "--games", "2", "--out", out,
            "--workers", "0", "--seed", "8", "-q")
    game_id = store.load_games([out]).games.column("game_id")[0].as_py()
    page = tmp_path / "replay.html"
    tourney("replay", out, game_id, "--html", page)
    with chromium() as driver:
        driver.get(page.as_uri() + "#3")
        # the viewer draws the board once its script has run: on a busy machine, a moment later
        table = WebDriverWait(driver, patience(30)).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "table.generic-view"))
        assert "prize" in table.text and "round" in table.text
        panels = driver.find_element(By.ID, "seats").text
        assert "hands" in panels and "[1,2,3,4,5]" not in panels  # 3 moves in: hands shrank
        Select(driver.find_element(By.ID, "view")).select_by_value("1")  # seat 0's view
        seat0 = driver.find_element(By.ID, "seats").text
        own, other = (box.text for box in driver.find_elements(By.CSS_SELECTOR, ".seatbox"))
        assert "[" in own.split("hands", 1)[1] and "[" not in other.split("hands", 1)[1]
        assert seat0 != panels
        assert not console_errors(driver)


# ----------------------------------------------------------------------------- the human seat


@pytest.fixture
def everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hidden Bid registered in every process the test starts too (`tourney serve`, its
    living league and its entry checks), as a game installed as a plug-in would be: a
    ``sitecustomize`` on ``PYTHONPATH`` registers it when any Python starts."""
    plugin = tmp_path / "plugin"
    plugin.mkdir()
    (plugin / "sitecustomize.py").write_text(
        "try:\n"
        "    from games import registry\n"
        "except ImportError:  # a Python without tourney (a bot's own)\n"
        "    pass\n"
        "else:\n"
        "    registry.register('hiddenbid', 'tests.fixtures.hiddenbid', {'hidden-bid': {}})\n")
    root = Path(__file__).resolve().parents[1]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(plugin), str(root)]))


def test_a_human_plays_it_on_the_server_and_sees_only_their_own_hand(
        everywhere: None, tmp_path: Path) -> None:
    """The human seat on a competition of Hidden Bid, through the application `tourney serve`
    assembles, logged in through the real login: every view the human gets is their own
    seat's view made from the game's declaration (their hand, the bot's as a count), the
    same one the replay shows for that seat, and the game is stored and replays."""
    from harness.figures.report.frames import json_patch, replay_frames
    from tests.serve.test_human import new_game, open_seat, play_out

    seat = open_seat(tmp_path / "contest", game="hiddenbid")
    try:
        alice = seat.player("alice")
        sid = new_game(alice, seat=0)
        seen: list[dict[str, Any]] = []
        final = play_out(alice, sid, seen=seen)
        assert final["result"]["termination"] in ("normal", "stalemate"), final
        stored = find_game(seat.folder, final["result"]["game_id"])
        moves = [m["action"] for m in stored.moves]
        replayed = replay_frames("hiddenbid", stored.row["seed"], {}, moves).views[1]
        frames = [replayed["first"]]
        for changes in replayed["changes"]:
            frames.append(json_patch(frames[-1], changes))
        views = [s["view"] for s in seen if s["view"] is not None]
        assert len(views) >= 5
        for view in views:
            assert "hand" not in view and isinstance(view["hands"][1], int)
            assert isinstance(view["hands"][0], list)
            # the replay's view of seat 0 at that position is the same view
            assert view == frames[view["round"] * 2 + sum(view["have_bid"])]
        page = alice.get(f"/play/g/{sid}/replay")
        assert page.status_code == 200 and final["result"]["game_id"] in page.text
    finally:
        for client in seat.clients:
            client.close()
        from tests.serve.conftest import close_site

        close_site(seat.site)


def test_a_human_plays_it_in_a_browser_on_a_real_server(everywhere: None,
                                                         tmp_path: Path) -> None:
    """`tourney serve` of a Hidden Bid competition in headless Chromium: the human seat's page
    draws the game it has no drawing of as the replay viewer does (a table of the position,
    a panel per seat), shows the human's own hand and the bot's as a count, plays from the
    list of legal moves to the end, logs no error, and its replay plays."""
    from selenium.webdriver.common.by import By

    from tests.report.browser import chromium, console_errors, require
    from tests.serve.test_browser import _wait
    from tests.serve.test_human_browser import BOT as ENTRANT
    from tests.serve.test_human_browser import _competition, _log_in_and_start, _play, _wait_turn

    require()
    served = _competition(tmp_path / "contest", "hiddenbid", "first.py")
    try:
        with chromium() as driver:
            _log_in_and_start(driver, served, seat=0)
            assert _wait_turn(driver, "") == "you"
            table = driver.find_element(By.CSS_SELECTOR, "#board table.generic-view")
            assert "prize" in table.text and "round" in table.text
            hands = [driver.find_element(
                By.CSS_SELECTOR, f'#seats .seatbox[data-seat="{s}"] [data-row="hands"] .v').text
                for s in (0, 1)]
            assert hands == ["[1,2,3,4,5]", "5"]  # the human's own hand, the bot's count
            _, seen, _ = _play(driver, 20, board_clicks=False)
            assert driver.execute_script("return document.body.dataset.turn") == "over"
            assert len(seen) >= 5
            result = driver.find_element(By.ID, "result-text").text
            assert "prize points" in result or "every seat" in result, result
            assert console_errors(driver) == []
            driver.find_element(By.ID, "replay-link").click()
            _wait(driver, lambda: driver.find_elements(By.CSS_SELECTOR,
                                                       "#board table.generic-view"),
                  "the replay viewer")
            driver.find_element(By.ID, "b-last").click()
            assert int(driver.execute_script("return document.body.dataset.frame")) == 10
            assert console_errors(driver) == []
    finally:
        log = served.stop()
    assert "Traceback" not in log, log
    games = store.load_games([served.folder / "human"]).games.to_pylist()
    assert len(games) == 1 and games[0]["bots"] == ["human:alice", ENTRANT]
    assert games[0]["game"] == "hiddenbid"
