"""A competition with a submission deadline: entries refused from the deadline on, the deadline
on every page, then the final stage played by the server (its own child process, as `tourney
serve` starts it) from the leaderboard at that moment, its progress and its published table on
the leaderboard. The clock is the competition's, moved by the test: nobody waits for a
deadline."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.serve.final import StageProcess
from tests.patience import patience
from tests.serve.conftest import BOTS, Site, end_site, make_site

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC).timestamp()


class Clock:
    """The competition's clock, moved by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def contest(tmp_path: Path, clock: Clock) -> Iterator[Site]:
    made = make_site(tmp_path / "contest", clock=clock,
                     stage=StageProcess(tmp_path / "contest", ["--workers", "0"]))
    try:
        yield made
    finally:
        end_site(made)


def banner(html: str) -> str:
    start = html.index('id="deadline">') + len('id="deadline">')
    return html[start:html.index("</div>", start)]


def wait_final(site: Site, state: str) -> dict[str, object]:
    end = time.monotonic() + patience(120)
    final: dict[str, object] = {}
    while time.monotonic() < end:
        final = site.client.get("/api/final").json()
        if final["state"] == state:
            return final
        time.sleep(0.2)
    log = (site.folder / "serve-arena.log").read_text()
    raise AssertionError(f"the final did not reach {state!r}: {final}\n{log}")


def test_the_deadline_closes_entries_and_the_server_plays_and_publishes_the_final(
        contest: Site, clock: Clock) -> None:
    site = contest
    org = site.bearer(site.organiser)
    assert site.client.get("/api/final").json()["state"] == "open"
    assert 'id="deadline"' not in site.client.get("/").text  # no deadline, no banner

    r = site.client.post("/api/admin/final", headers=org, json={
        "deadline": "2026-06-01T13:30Z", "format": "knockout", "top": 2, "pairs": 1})
    assert r.status_code == 200, r.text
    assert r.json()["deadline"] == T0 + 5400 and r.json()["format"] == "knockout"

    alice, bob, carol = site.add("alice"), site.add("bob"), site.add("carol")
    site.send(alice, "first.py")
    site.send(bob, "last.py")
    site.send(carol, "random_pick.py")
    site.play(12)

    # the deadline on every page, anyone's
    expected = ("Submission deadline 2026-06-01 13:30 UTC (in 1 h 30 min); then a knockout "
                "final among the top 2.")
    assert banner(site.client.get("/").text) == expected
    assert banner(site.client.get("/login").text) == expected
    site.login(alice)
    assert banner(site.client.get("/me").text) == expected
    assert banner(site.client.get("/play/").text) == expected  # the human seat's pages too
    clock.now = T0 + 5400 - 59
    assert "(in under a minute)" in banner(site.client.get("/me").text)
    board = site.client.get("/api/leaderboard").json()["entrants"]

    # the deadline: one upload refused with one line, nothing stored
    clock.now = T0 + 5400
    late = site.upload(bob, "late.py", (BOTS / "first.py").read_bytes())
    assert late.status_code == 403
    assert late.json() == {"error": "entries closed at 2026-06-01 13:30 UTC, the submission "
                                    "deadline; no more bots are taken (the final is played "
                                    "among the leaders)"}
    assert [v["bot"] for v in site.client.get("/api/me", headers=site.bearer(bob)).json()[
        "submissions"]] == ["bob.v1"]

    # the server's watch begins the final from the leaderboard of this moment, and plays it
    final = wait_final(site, "done")
    seeding = json.loads((site.folder / "final" / "standings.json").read_text())["seeding"]
    assert [(e["entrant"], e["games"]) for e in seeding] == \
        [(e["entrant"], e["games"]) for e in board]
    leaders = [f"{e['entrant']}.v{e['version']}" for e in board[:2]]
    assert final["published"] is True and final["format"] == "knockout"
    standings = final["standings"]
    assert isinstance(standings, list)
    assert sorted(r["bot"] for r in standings) == sorted(leaders)
    assert [r["rank"] for r in standings] == [1, 2]
    meetings = final["meetings"]
    assert isinstance(meetings, list) and meetings  # one meeting, then tie-breaks while level
    assert [(m["round"], m["tiebreak"]) for m in meetings] == \
        [(1, n) for n in range(len(meetings))]
    assert sum(m["games"] for m in meetings) == final["games"]
    published = json.loads((site.folder / "final" / "standings.json").read_text())
    assert published["standings"] == standings

    # on the leaderboard, for everyone; every page says entries closed
    page = site.browser().get("/").text
    assert "final standings" in page and "These standings are final." in page
    assert standings[0]["bot"] in page.split('id="final-table"')[1].split("</table>")[0]
    assert banner(page) == ("Entries closed 2026-06-01 13:30 UTC. The final is over: its "
                            "standings are published.")

    # frozen: the plan no longer changes, the league does not play again
    again = site.client.post("/api/admin/final", headers=org, json={"deadline": "none"})
    assert again.status_code == 409
    assert again.json()["error"].startswith("the final has begun (done)")
    resume = site.client.post("/api/admin/resume", headers=org, json={})
    assert resume.status_code == 409
    clock.now += 86400
    assert site.client.get("/api/final").json()["standings"] == standings


def test_a_deadline_is_set_on_the_dashboard_and_bad_ones_are_refused(
        contest: Site, clock: Clock) -> None:
    site = contest
    csrf = site.login(site.organiser)
    r = site.client.post("/admin/dashboard/final", data={
        "csrf": csrf, "deadline": "2026-06-03 09:15", "format": "swiss", "top": "4",
        "rounds": "", "pairs": "2"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/admin/dashboard"
    page = site.client.get("/admin/dashboard").text
    assert 'value="2026-06-03T09:15Z"' in page
    assert banner(page).startswith("Submission deadline 2026-06-03 09:15 UTC (in 1 d 21 h)")

    no_csrf = site.client.post("/admin/dashboard/final", data={"deadline": "none"})
    assert no_csrf.status_code == 403
    for body, message in (
            ({"deadline": "next friday"}, "cannot read the deadline 'next friday'"),
            ({"format": "league"}, "the final's format is swiss or knockout, not 'league'"),
            ({"top": "1"}, "top must be between 2 and 1000"),
            ({"pairs": "two"}, "pairs must be a whole number")):
        bad = site.client.post("/api/admin/final", json=body,
                               headers=site.bearer(site.organiser))
        assert bad.status_code == 422, bad.text
        assert bad.json()["error"].startswith(message)
    alice = site.add("alice")
    assert site.client.post("/api/admin/final", json={"deadline": "none"},
                            headers=site.bearer(alice)).status_code == 403
    assert site.browser().post("/api/admin/final", json={}).status_code == 401

    # no deadline: no banner, and entries stay open
    assert site.client.post("/api/admin/final", json={"deadline": "none"},
                            headers=site.bearer(site.organiser)).status_code == 200
    assert 'id="deadline"' not in site.client.get("/").text
    assert site.send(alice, "first.py")["status"] == "validating"


def test_a_final_that_cannot_be_played_says_why(contest: Site, clock: Clock) -> None:
    site = contest
    r = site.client.post("/api/admin/final", json={"deadline": "2026-06-01T12:00Z"},
                         headers=site.bearer(site.organiser))
    assert r.status_code == 200
    final = wait_final(site, "failed")
    assert "a final needs two or more rated active bots" in str(final["error"])
    assert str(site.folder) not in str(final["error"])  # no organiser's path in public
    page = site.client.get("/").text
    assert "The final could not be played: a final needs two or more rated active bots" in page
    # the organiser may set a new deadline, which opens entries again
    r = site.client.post("/api/admin/final", json={"deadline": "2026-06-02T12:00Z"},
                         headers=site.bearer(site.organiser))
    assert r.status_code == 200 and r.json()["state"] == "open"
