"""The organiser's dashboard through the app as `tourney serve` assembles it: games and their
rate, the league, the queue of entry checks, forfeits and suspensions, the server's own errors,
the disk; house bots added from the page (organiser only, CSRF-protected); and the login page
telling the organiser how to get in."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from harness.arena import living
from harness.arena.registry import Registry
from harness.cli.app import app
from harness.league import store
from tests.serve.conftest import Site

runner = CliRunner()


def tourney(*args: str | Path) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_login_page_tells_the_organiser_how_to_get_in(site: Site) -> None:
    page = site.client.get("/login").text
    hint = re.search(r'id="organiser-login">(.*?)</p>', page, re.S)
    assert hint, page
    text = re.sub(r"<[^>]+>", "", hint.group(1))
    assert text == ("Organiser? Log in with the organiser token that tourney serve printed when "
                    "the competition started. Lost it? tourney serve-admin organiser-token "
                    "FOLDER makes a new one (and ends the old one's sessions).")
    # and that token, in that form, leads to the organiser's pages
    site.login(site.organiser)
    assert site.client.get("/admin/dashboard").status_code == 200


def test_the_dashboard_shows_what_the_organiser_watches(site: Site, tmp_path: Path) -> None:
    alice, bob = site.add("alice"), site.add("bob")
    site.send(alice, "first.py")
    site.send(bob, "last.py")
    # a bot added from the command line that crashes at every move, admitted as it would be
    # had it passed its check, then suspended by the league after two forfeits in a row
    crashy = tmp_path / "crashy.py"
    crashy.write_text("def act(observation, legal_actions):\n    raise RuntimeError('boom')\n")
    tourney("arena", "add", site.folder, "crashy", crashy)
    with Registry.open(site.folder) as registry:
        registry.set_status("crashy.v1", "active")
    opts = living.RunOptions(workers=0, stop_after=12, progress=False, seed=1,
                             stop_when_idle=True, suspend_after=2, say=lambda line: None)
    living.Arena(site.folder, opts).run()
    tourney("arena", "add", site.folder, "waiting", "random")  # checked by no one here

    csrf = site.login(site.organiser)
    figures = site.client.get("/api/admin/dashboard").json()
    stored = store.load_games([site.folder]).games.num_rows
    assert figures["games"]["stored"] == stored >= 12
    assert figures["games"]["rates"][0] == {"window": "last 10 minutes", "games": stored,
                                            "per_minute": round(stored / 10, 1)}
    assert figures["league"]["state"] == "not playing"  # no league process in this app
    assert [c["bot"] for c in figures["checks"]] == ["waiting.v1"]
    forfeits = figures["forfeits"]
    assert forfeits and all("crashy.v1" in g["bots"] for g in forfeits)
    assert {g["termination"] for g in forfeits} == {"crash"}
    assert [s["bot"] for s in figures["suspended"]] == ["crashy.v1"], (forfeits, stored)
    assert "in a row" in figures["suspended"][0]["reason"]
    assert str(site.folder) not in str(figures)
    parts = {p["part"]: p["bytes"] for p in figures["disk"]["parts"]}
    assert parts["games"] > 0 and parts["moves"] > 0
    assert figures["disk"]["total"] >= sum(parts.values()) and figures["disk"]["free"] > 0
    assert figures["errors"] == {"count": 0, "recent": []}

    # a failure of the server's own (a batch file damaged under it): counted and shown
    game_id = forfeits[0]["game_id"]
    for path in (site.folder / "games").glob("*.parquet"):
        path.write_bytes(b"PAR1 this is not a parquet file any more PAR1")
    broken = site.client.get(f"/api/games/{game_id}")
    assert broken.status_code == 500
    errors = site.client.get("/api/admin/dashboard").json()["errors"]
    assert errors["count"] == 1
    assert errors["recent"][0]["line"].startswith(f"GET /api/games/{game_id} failed: ")

    page = site.client.get("/admin/dashboard").text
    for part in ('id="card-games"', "waiting.v1", "crashy.v1", "boom",
                 f"GET /api/games/{game_id} failed", "games a minute, last 10 minutes"):
        assert part in page, part
    assert csrf in page


def test_house_bots_are_added_from_the_page_by_the_organiser_only(site: Site) -> None:
    csrf = site.login(site.organiser)
    r = site.client.post("/admin/dashboard/house", data={"csrf": csrf, "name": "baseline",
                                                         "spec": "greedy"},
                         follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/admin/dashboard"
    site.settle()  # its entry check, as any entrant's
    house = site.client.get("/api/admin/dashboard").json()["house"]
    assert house == [{"name": "baseline", "bot": "baseline.v1", "spec": "greedy",
                      "status": "active"}]
    assert "baseline" in site.client.get("/admin/dashboard").text
    board = site.client.get("/api/leaderboard").json()["entrants"]
    assert [e["entrant"] for e in board] == ["baseline"]
    made = site.client.post("/api/admin/house", json={"name": "mcts1", "spec": "mcts:iters=20"},
                            headers=site.bearer(site.organiser))
    assert made.status_code == 201 and made.json()["bot"] == "mcts1.v1"

    # refused, with one line each, and nothing added
    alice = site.add("alice")
    for body, status, start in (
            ({"name": "shell", "spec": "cmd:/bin/sh"}, 422, "a house bot is a built-in"),
            ({"name": "path", "spec": "agents/greedy.py"}, 422, "a house bot is a built-in"),
            ({"name": "odd", "spec": "mcts:speed=3"}, 422, ""),
            ({"name": "baseline", "spec": "random"}, 409, "entrant 'baseline' is already"),
            ({"name": "alice", "spec": "random"}, 409, "'alice' is an entrant's name already"),
            ({"name": "9lives", "spec": "random"}, 422, "")):
        bad = site.client.post("/api/admin/house", json=body,
                               headers=site.bearer(site.organiser))
        assert bad.status_code == status, (body, bad.text)
        assert bad.json()["error"].startswith(start), bad.text
    no_csrf = site.client.post("/admin/dashboard/house", data={"name": "x", "spec": "random"})
    assert no_csrf.status_code == 403
    other = site.browser()
    site.login(alice, other)
    assert other.get("/admin/dashboard").status_code == 403
    assert other.get("/api/admin/dashboard").status_code == 403
    assert site.client.post("/api/admin/house", json={"name": "x", "spec": "random"},
                            headers=site.bearer(alice)).status_code == 403
    anonymous = site.browser()
    assert anonymous.get("/admin/dashboard", follow_redirects=False).status_code == 303
    assert anonymous.post("/admin/dashboard/house", data={"name": "x"}).status_code == 401
    assert site.client.post("/admin/dashboard/nothing", data={"csrf": csrf}).status_code == 404
    with Registry.open(site.folder) as registry:
        assert sorted(v.bot for v in registry.versions()) == ["baseline.v1", "mcts1.v1"]
