"""The report of a living league (issue 30, ``tourney arena``): its entrants panel and its public
form, which holds no organiser-side path.

A small league of Battle Line is played in this process under a results folder and bot files
with distinctive paths: two bot files (one sandboxed, one in-process that crashes naming its own
file, so a crash reason carries a bot path) and the built-ins random and greedy. The figures are
checked without a browser; one test opens the page in a real headless Chromium.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from harness.figures.report import ReportUpdater, write_report
from harness.figures.report.data import ReportError, load, report_data
from harness.figures.report.render import unpack
from harness.league.service import League
from tests.report.browser import chromium, console_errors, open_page, require
from tests.report.leagues import page_replays

RESULTS_MARK = "results-q7zx"  # in the results folder's path, and nowhere else
BOTS_MARK = "botfiles-k3vw"  # in the bot files' path, and nowhere else

CRASHER = '''"""The first legal action; raises on its 4th decision, naming its own file."""

calls = 0


def act(observation, legal_actions):
    global calls
    calls += 1
    if calls % 7 == 4:
        raise RuntimeError(f"bob failed at {__file__}")
    return legal_actions[0]
'''
FIRST = '''"""Always the first legal action."""


def act(observation, legal_actions):
    return legal_actions[0]
'''


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A played league (its folder) and the folder of its bot files."""
    bots = tmp_path_factory.mktemp(BOTS_MARK)
    (bots / "alice.py").write_text(FIRST)
    (bots / "bob.py").write_text(CRASHER)
    folder = tmp_path_factory.mktemp(RESULTS_MARK) / "arena"
    league = League.prepare("battleline", [
        "random", "greedy", f"alice.v1={bots / 'alice.py'}", f"bob.v1=inproc:{bots / 'bob.py'}",
    ], out=folder, games=2, seed=7)
    summary = league.run(workers=0, progress=False)
    assert summary.stored == 12
    return folder, bots


def entrants_of(folder: Path) -> list[dict[str, Any]]:
    """What the arena gives the report: every version, the failed one's reason naming a file
    under the results folder (where the arena keeps its entrants' code)."""
    return [
        {"entrant": "alice", "bot": "alice.v1", "version": 1, "status": "retired",
         "reason": "entrant retired", "games": 6, "added": "2025-03-01T10:00:00+00:00"},
        {"entrant": "bob", "bot": "bob.v1", "version": 1, "status": "suspended",
         "reason": "4 forfeits in a row (crash); tourney arena reinstate lets it play again",
         "games": 6, "added": "2025-03-01T10:05:00+00:00"},
        {"entrant": "carol", "bot": "carol.v1", "version": 1, "status": "failed",
         "reason": f"could not load: {folder}/bots/carol/v1/bot.py line 3: SyntaxError",
         "games": 0, "added": "2025-03-02T08:00:00+00:00"},
        {"entrant": "carol", "bot": "carol.v2", "version": 2, "status": "validating",
         "reason": "", "games": 0, "added": "2025-03-02T09:30:00+00:00"},
    ]


def page_data(path: Path, element: str = "report-data") -> Any:
    html = path.read_text()
    head = f'<script type="application/octet-stream" id="{element}">'
    start = html.index(head) + len(head)
    return unpack(html[start:html.index("</script>", start)])


def private_strings(folder: Path, bots: Path) -> list[str]:
    """The organiser-side paths a public report must not show."""
    out = {str(folder), str(folder.resolve()), str(bots), str(bots.resolve()), RESULTS_MARK,
           BOTS_MARK}
    if Path.home() != Path("/"):
        out.add(str(Path.home()))
    return sorted(out)


def texts_of(out: Path) -> dict[str, str]:
    """Every text a report shows, by where: its HTML, its data, and each replay it holds."""
    texts = {out.name: out.read_text(),
             out.name + " (data)": json.dumps(page_data(out), ensure_ascii=False)}
    for game_id, replay in page_replays(out).items():
        texts[f"replay {game_id}"] = json.dumps(replay, ensure_ascii=False)
    return texts


# ----------------------------------------------------------------------------- the figures


def test_figures_carry_the_entrants(arena: tuple[Path, Path], tmp_path: Path) -> None:
    folder, _ = arena
    rows = entrants_of(folder)
    figures = report_data(load([folder]), entrants=rows)
    assert figures["entrants"] == rows
    assert "entrants" not in report_data(load([folder]))

    out = tmp_path / "r.html"
    write_report([folder], out, replays=0, entrants=rows)
    assert page_data(out)["entrants"] == rows
    html = out.read_text()
    assert 'id="entrants-table"' in html and 'href="#entrants"' in html
    write_report([folder], out, replays=0)  # a league's report: no panel, no link
    html = out.read_text()
    assert "entrants" not in page_data(out)
    assert 'id="entrants' not in html and 'href="#entrants"' not in html


def test_an_entrant_without_a_key_is_refused(arena: tuple[Path, Path], tmp_path: Path) -> None:
    folder, _ = arena
    rows = entrants_of(folder)
    del rows[1]["status"]
    del rows[2]["reason"]  # the one key that may be left out
    with pytest.raises(ReportError, match=r"entrant 2 \(bob.v1\) has no status"):
        write_report([folder], tmp_path / "r.html", replays=0, entrants=rows)
    assert not (tmp_path / "r.html").exists()


def test_public_report_holds_no_organiser_path(arena: tuple[Path, Path], tmp_path: Path) -> None:
    folder, bots = arena
    private = private_strings(folder, bots)
    rows = entrants_of(folder)

    # the organiser's report shows the paths (so the test below would see them) ...
    mine = tmp_path / "mine.html"
    write_report([folder], mine, replays=None, entrants=rows)
    data = page_data(mine)
    assert data["configs"][0]["folder"] == str(folder)
    assert {b["name"]: b["spec"] for b in data["configs"][0]["bots"]}["alice.v1"] == str(
        bots / "alice.py")
    assert any(str(bots / "bob.py") in r for r in data["games"]["reason"])
    assert any(str(bots / "bob.py") in t for t in texts_of(mine).values())

    # ... the public one none of them, in the page, its data or any viewer
    out = tmp_path / "public.html"
    summary = write_report([folder], out, replays=None, entrants=rows, public=True)
    assert summary.replays == 12
    texts = texts_of(out)
    assert len(texts) == 2 + 12
    for where, text in texts.items():
        for path in private:
            assert path not in text, f"{path} in {where}"

    data = page_data(out)
    [config] = data["configs"]
    assert "folder" not in config and "key" not in config
    assert "writable" not in config["isolation"]
    sha = {b["name"]: b["sha256"] for b in config["bots"]}
    assert {b["name"]: b["spec"] for b in config["bots"]} == {
        "random": "random", "greedy": "greedy",
        "alice.v1": f"uploaded file, sha256 {sha['alice.v1'][:12]}",
        "bob.v1": f"uploaded file, sha256 {sha['bob.v1'][:12]}"}
    # what the paths were is still said, in words
    crashes = [r for r in data["games"]["reason"] if "bob failed at" in r]
    assert crashes and all(r.endswith("bob failed at <bot bob.v1>") for r in crashes)
    assert data["entrants"][2]["reason"] == (
        "could not load: <results folder>/bots/carol/v1/bot.py line 3: SyntaxError")
    assert [e["status"] for e in data["entrants"]] == [e["status"] for e in rows]


def test_an_updater_builds_each_replay_once_and_keeps_them_public(
        arena: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report rewritten while its league runs packs each game's replay once (a stored game
    never changes); a public updater's replays hold no organiser-side path."""
    import harness.figures.report as report

    folder, bots = arena
    built: list[str] = []
    plain = report.replay_view

    def counted(game: Any, redact: Any = None) -> dict[str, Any]:
        built.append(game.row["game_id"])
        return plain(game, redact)

    monkeypatch.setattr(report, "replay_view", counted)
    out = tmp_path / "r.html"
    updater = ReportUpdater(folder, out, interval=0.0, public=True)
    updater.tick()
    assert len(built) == len(set(built)) == 12
    updater.tick()
    updater.write()
    assert len(built) == 12 and len(page_replays(out)) == 12
    for where, text in texts_of(out).items():
        for path in private_strings(folder, bots):
            assert path not in text, f"{path} in {where}"


def test_updater_asks_for_the_entrants_at_every_rewrite(arena: tuple[Path, Path],
                                                        tmp_path: Path) -> None:
    folder, _ = arena
    rows = entrants_of(folder)
    out = tmp_path / "r.html"
    updater = ReportUpdater(folder, out, interval=0.0, replays=0, entrants=lambda: rows,
                            public=True)
    updater.tick()
    assert [e["status"] for e in page_data(out)["entrants"]][1] == "suspended"
    assert "folder" not in page_data(out)["configs"][0]
    rows[1] = {**rows[1], "status": "active", "reason": ""}
    updater.tick()
    assert page_data(out)["entrants"][1] == rows[1]

    fixed = ReportUpdater(folder, out, interval=0.0, replays=0, entrants=rows[:1])
    fixed.write()
    assert page_data(out)["entrants"] == rows[:1]
    assert page_data(out)["configs"][0]["folder"] == str(folder)


# ----------------------------------------------------------------------------- in a browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require()  # not run where Chromium is missing (and failed under CI, which must run it)
    with chromium() as driver:
        yield driver


def test_entrants_panel_and_leaderboard_tags(arena: tuple[Path, Path], browser: Any,
                                             tmp_path: Path) -> None:
    folder, _ = arena
    rows = entrants_of(folder)
    out = tmp_path / "report.html"
    write_report([folder], out, replays=5, entrants=rows, public=True)
    open_page(browser, out)
    assert console_errors(browser) == []
    assert browser.find_element(By.CSS_SELECTOR, 'nav.toc a[href="#entrants"]').text == "Entrants"

    # the panel: one row per version, its status in words in a badge, the reason in full
    shown = browser.find_elements(By.CSS_SELECTOR, "#entrants-table tbody tr")
    assert [r.get_attribute("data-bot") for r in shown] == [e["bot"] for e in rows]
    for row, entrant in zip(shown, rows, strict=True):
        cell = {td.get_attribute("data-key"): td for td in row.find_elements(By.TAG_NAME, "td")}
        badge = cell["status"].find_element(By.CSS_SELECTOR, ".badge")
        assert badge.text == entrant["status"]
        assert badge.get_attribute("data-status") == entrant["status"]
        assert f"status-{entrant['status']}" in badge.get_attribute("class").split()
        assert cell["entrant"].text == entrant["entrant"]
        assert cell["version"].text == str(entrant["version"])
        assert cell["games"].text == str(entrant["games"])
        want = entrant["reason"].replace(str(folder), "<results folder>") or "–"
        assert cell["reason"].text == want
    colours = {b.value_of_css_property("background-color") for b in
               browser.find_elements(By.CSS_SELECTOR, "#entrants-table .badge")}
    assert len(colours) == len(rows)  # each status looks different, besides its word

    # sorting by status puts the validating version first, by name the other way back
    browser.find_element(By.CSS_SELECTOR, "#entrants-table th[data-key=status]").click()
    assert [td.text for td in browser.find_elements(
        By.CSS_SELECTOR, "#entrants-table td[data-key=status]")] == [
        "validating", "suspended", "failed", "retired"]

    # the leaderboard tags the bots that are not active, and only them
    def tags() -> dict[str, str]:
        out = {}
        for tr in browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr"):
            found = tr.find_elements(By.CSS_SELECTOR, "td[data-key=bot] .tag")
            out[tr.get_attribute("data-bot")] = found[0].text if found else ""
        return out

    assert tags() == {"random": "", "greedy": "", "alice.v1": "retired", "bob.v1": "suspended"}
    alice = browser.find_element(By.CSS_SELECTOR, '#leaderboard-table tr[data-bot="alice.v1"]')
    assert alice.find_element(By.CSS_SELECTOR, "td[data-key=bot]").text == "alice.v1 retired"
    assert json.loads(alice.find_element(By.CSS_SELECTOR, "td[data-key=bot]")
                      .get_attribute("data-value")) == "alice.v1"
    # sorting by name still sorts by the name alone
    browser.find_element(By.CSS_SELECTOR, "#leaderboard-table th[data-key=bot]").click()
    assert [tr.get_attribute("data-bot") for tr in browser.find_elements(
        By.CSS_SELECTOR, "#leaderboard-table tbody tr")] == [
        "alice.v1", "bob.v1", "greedy", "random"]
    assert tags()["alice.v1"] == "retired"

    # the public configuration names no folder and no bot file
    terms = [dt.text for dt in browser.find_elements(By.CSS_SELECTOR, "#config-body dt")]
    assert "league" in terms and "folder" not in terms
    config = browser.find_element(By.ID, "config-body").text
    assert str(folder) not in config and "uploaded file, sha256 " in config
    assert console_errors(browser) == []
