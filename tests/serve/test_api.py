"""`tourney serve`'s JSON API through the real app: entrants, uploads and their entry checks,
limits, the leaderboard, games, replays and logs, and who may see what."""

from __future__ import annotations

import io
import json
import zipfile

from harness.arena.registry import Registry
from harness.serve.db import DB_FILE
from tests.serve.conftest import BOTS, Site


def test_the_organiser_adds_entrants_and_tokens_work(site: Site) -> None:
    alice = site.add("alice")
    assert alice.startswith("tny_")
    me = site.client.get("/api/me", headers=site.bearer(alice))
    assert me.status_code == 200 and me.json()["entrant"] == "alice"
    again = site.client.post("/api/admin/entrants", json={"name": "Alice"},
                             headers=site.bearer(site.organiser))
    assert again.status_code == 409 and "already exists" in again.json()["error"]
    bad = site.client.post("/api/admin/entrants", json={"name": "../etc"},
                           headers=site.bearer(site.organiser))
    assert bad.status_code == 422 and "not allowed" in bad.json()["error"]
    reserved = site.client.post("/api/admin/entrants", json={"name": "organiser"},
                                headers=site.bearer(site.organiser))
    assert reserved.status_code == 409
    # a new token replaces the old one
    r = site.client.post("/api/admin/token", json={"name": "alice"},
                         headers=site.bearer(site.organiser))
    assert r.status_code == 200
    assert site.client.get("/api/me", headers=site.bearer(alice)).status_code == 401
    assert site.client.get("/api/me", headers=site.bearer(r.json()["token"])).status_code == 200


def test_an_upload_is_checked_and_a_failure_is_explained(site: Site) -> None:
    alice, bob = site.add("alice"), site.add("bob")
    made = site.send(alice, "first.py")
    assert made["bot"] == "alice.v1" and made["status"] == "validating"
    sub = site.client.get("/api/submissions/alice.v1", headers=site.bearer(alice)).json()
    assert sub["status"] == "active", sub
    assert "self-play game" in sub["report"] and sub["filename"] == "first.py"
    # a bot that does not define act: failed, with the reason in words
    r = site.upload(bob, "nothing.py", b"x = 1\n")
    assert r.status_code == 202
    site.settle()
    sub = site.client.get("/api/submissions/bob.v1", headers=site.bearer(bob)).json()
    assert sub["status"] == "failed"
    assert "defines no bot" in sub["reason"] and "FAIL" in sub["report"]
    assert str(site.folder) not in sub["report"]  # the organiser's paths are not shown
    # the newest passing version plays; a failing newer one leaves the old one playing
    site.send(alice, "last.py")
    site.upload(alice, "broken.py", b"def act(:\n")  # refused at once: does not compile
    r = site.upload(alice, "bad.py", b"def act(o, l):\n    raise RuntimeError('no')\n")
    assert r.status_code == 202
    site.settle()
    with Registry.open(site.folder) as registry:
        states = {v.bot: v.status for v in registry.versions()}
    assert states == {"alice.v1": "replaced", "alice.v2": "active", "alice.v3": "failed",
                      "bob.v1": "failed"}
    board = site.client.get("/api/leaderboard").json()["entrants"]
    assert [(e["entrant"], e["version"]) for e in board] == [("alice", 2), ("bob", 1)]


def test_bad_uploads_are_refused_and_nothing_is_stored(site: Site) -> None:
    alice = site.add("alice")
    cases = [
        ("broken.py", b"def act(:\n", 422, "does not compile"),
        ("bot.txt", b"x", 415, ".py"),
        ("empty.py", b"", 400, "empty"),
        ("junk.zip", b"not a zip", 422, "not a readable zip"),
    ]
    for name, data, status, words in cases:
        r = site.upload(alice, name, data)
        assert r.status_code == status, (name, r.text)
        assert words in r.json()["error"], (name, r.json())
    r = site.client.post("/api/submissions", data={"x": "1"}, headers=site.bearer(alice))
    assert r.status_code == 400 and "form field 'bot'" in r.json()["error"]
    with Registry.open(site.folder) as registry:
        assert registry.versions() == []
    assert not (site.folder / "uploads").exists() or not list((site.folder / "uploads").iterdir())
    me = site.client.get("/api/me", headers=site.bearer(alice)).json()
    assert me["submissions"] == [] and me["limits"]["used_today"] == 0
    # the same code twice: refused, nothing added
    site.send(alice, "first.py")
    r = site.upload(alice, "again.py", (BOTS / "first.py").read_bytes())
    assert r.status_code == 409 and "same code" in r.json()["error"]


def test_limits_per_entrant(site: Site) -> None:
    alice = site.add("alice")
    r = site.client.post("/api/admin/settings", json={"submissions_per_day": 2, "total_mb": 1},
                         headers=site.bearer(site.organiser))
    assert r.status_code == 200 and r.json()["submissions_per_day"] == 2
    assert site.upload(alice, "a.py", b"def act(o, l):\n    return l[0]\n").status_code == 202
    assert site.upload(alice, "b.py", b"def act(o, l):\n    return l[-1]\n").status_code == 202
    r = site.upload(alice, "c.py", b"def act(o, l):\n    return l[1 % len(l)]\n")
    assert r.status_code == 429 and "24 hours" in r.json()["error"]
    bob = site.add("bob")
    big = b"# " + b"x" * (1100 << 10) + b"\ndef act(o, l):\n    return l[0]\n"
    r = site.upload(bob, "big.py", big)
    assert r.status_code == 413 and "1 MB" in r.json()["error"]
    bad = site.client.post("/api/admin/settings", json={"upload_mb": 1000},
                           headers=site.bearer(site.organiser))
    assert bad.status_code == 422 and "between" in bad.json()["error"]
    site.settle()


def test_games_are_public_and_logs_the_entrants_own(site: Site) -> None:
    alice, bob, carol = site.add("alice"), site.add("bob"), site.add("carol")
    site.send(alice, "first.py")
    site.send(bob, "last.py")
    site.send(carol, "first.py")  # the same code as alice's: another entrant may send it
    site.play(12)
    board = site.client.get("/api/leaderboard").json()["entrants"]
    assert {e["entrant"] for e in board} == {"alice", "bob", "carol"}
    assert all(e["games"] > 0 and e["interval"] > 0 for e in board), board
    games = site.client.get("/api/me/games", headers=site.bearer(alice)).json()["games"]
    assert games and all(any(b.startswith("alice.v") for b in g["bots"]) for g in games)
    mine = games[0]["game_id"]
    game = site.client.get(f"/api/games/{mine}", headers=site.bearer(alice)).json()
    assert game["moves"] and game["replay"] == f"/games/{mine}"
    page = site.client.get(f"/games/{mine}", headers=site.bearer(alice))
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert str(site.folder) not in page.text
    log = site.client.get(f"/api/games/{mine}/log", headers=site.bearer(alice))
    assert log.status_code == 200 and log.headers["content-type"].startswith("text/plain")
    seats = [line for line in log.text.splitlines() if line.startswith("--- seat")]
    assert seats and all("alice.v" in line for line in seats)  # only alice's own seats
    # a game alice did not play: public to watch (its moves and replay), its logs not hers
    others = site.client.get("/api/me/games", headers=site.bearer(bob)).json()["games"]
    theirs = next(g["game_id"] for g in others if not any(b.startswith("alice.v")
                                                          for b in g["bots"]))
    for path in (f"/api/games/{theirs}", f"/games/{theirs}"):
        assert site.client.get(path, headers=site.bearer(alice)).status_code == 200, path
    for path in (f"/api/games/{theirs}/log", f"/games/{theirs}/log"):
        assert site.client.get(path, headers=site.bearer(alice)).status_code == 404, path
    assert site.client.get(f"/api/games/{mine[:8]}", headers=site.bearer(alice)
                           ).status_code == 404  # no prefix guessing
    assert site.client.get("/api/submissions/bob.v1", headers=site.bearer(alice)
                           ).status_code == 404
    # the organiser sees every game and the entrants
    assert site.client.get(f"/api/games/{theirs}", headers=site.bearer(site.organiser)
                           ).status_code == 200
    rows = site.client.get("/api/admin/entrants", headers=site.bearer(site.organiser)).json()
    assert [r["status"] for r in rows["entrants"]] == ["active"] * 3


def test_entrants_cannot_act_as_the_organiser(site: Site) -> None:
    alice = site.add("alice")
    for method, path in (("get", "/api/admin/entrants"), ("post", "/api/admin/pause"),
                         ("get", "/api/admin/download"), ("post", "/api/admin/entrants")):
        r = getattr(site.client, method)(path, headers=site.bearer(alice))
        assert r.status_code == 403, path
    assert site.client.get("/api/me").status_code == 401
    r = site.client.get("/api/me", headers={"Authorization": "Bearer tny_wrong"})
    assert r.status_code == 401 and "not valid" in r.json()["error"]
    r = site.client.get("/api/me", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401


def test_retire_pause_and_download(site: Site) -> None:
    alice, bob = site.add("alice"), site.add("bob")
    site.send(alice, "first.py")
    site.send(bob, "last.py")
    site.play(4)
    org = site.bearer(site.organiser)
    assert site.client.post("/api/admin/pause", headers=org).json() == {"paused": True}
    assert site.client.get("/api/leaderboard").json()["paused"] is True
    assert site.client.post("/api/admin/resume", headers=org).json() == {"paused": False}
    r = site.client.post("/api/admin/retire", json={"name": "bob"}, headers=org)
    assert r.status_code == 200
    assert site.client.get("/api/me", headers=site.bearer(bob)).status_code == 401
    again = site.client.post("/api/admin/retire", json={"name": "bob"}, headers=org)
    assert again.status_code == 409
    with Registry.open(site.folder) as registry:
        assert registry.version("bob.v1").status == "retired"  # type: ignore[union-attr]
    r = site.client.get("/api/admin/download", headers=org)
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    names = archive.namelist()
    assert "league.json" in names and any(n.startswith("games/") for n in names)
    assert not any(n.startswith(("bots/", "uploads/")) for n in names)
    key = json.loads((site.folder / "league.json").read_text())["key"]
    assert "key" not in json.loads(archive.read("league.json"))
    for name in names:
        assert key.encode() not in archive.read(name), name


def test_tokens_are_stored_hashed(site: Site) -> None:
    alice = site.add("alice")
    raw = (site.folder / DB_FILE).read_bytes()
    wal = site.folder / (DB_FILE + "-wal")
    raw += wal.read_bytes() if wal.exists() else b""
    assert alice.encode() not in raw and site.organiser.encode() not in raw
    assert alice[4:].encode() not in raw


def test_a_refused_upload_through_the_page_says_why(site: Site) -> None:
    from tests.serve.test_security import login

    alice = site.add("alice")
    csrf = login(site, alice)
    r = site.client.post("/me/submit", files={"bot": ("broken.py", b"def act(:\n")},
                         data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    assert "Refused" in r.text and "does not compile (line 1)" in r.text
    org_csrf = login(site, site.organiser)
    r = site.client.post("/admin/entrants", data={"name": "alice", "csrf": org_csrf})
    assert r.status_code == 409 and "already exists" in r.text
    r = site.client.get("/me", follow_redirects=False)  # the organiser has no entrant page
    assert r.status_code == 303 and r.headers["location"] == "/admin"
    site.client.cookies.clear()
    r = site.client.get("/me", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"
