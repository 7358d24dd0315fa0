"""Public games (issue 47): the leaderboard with games, score, wins, draws, losses and last
activity; each entrant's public page and every game's replay, open to anonymous visitors; and
what stays private (refusal reasons, entry-check reports, logs, tokens), tried through the
application as `tourney serve` assembles it, anonymously and as another entrant."""

from __future__ import annotations

from pathlib import Path

from harness.arena import report
from harness.league import store
from tests.arena.test_arena import _page_data
from tests.serve.conftest import Site

SECRET = "SECRET-MARKER-4711"  # what alice's refused bot says when it fails
REFUSED = f"def act(observation, legal):\n    raise RuntimeError({SECRET!r})\n".encode()


def _league(site: Site) -> tuple[str, str, str]:
    """alice (one refused version, then an active one), bob and carol, a few games."""
    alice, bob, carol = site.add("alice"), site.add("bob"), site.add("carol")
    r = site.upload(alice, "broken.py", REFUSED)
    assert r.status_code == 202, r.text
    site.settle()
    site.send(alice, "first.py")
    site.send(bob, "last.py")
    site.send(carol, "random_pick.py")
    site.play(12)
    return alice, bob, carol


def test_the_leaderboard_shows_games_score_wins_draws_losses_and_last_active(
        site: Site) -> None:
    _league(site)
    board = site.client.get("/api/leaderboard").json()["entrants"]
    stored = store.load_games([site.folder]).games.to_pylist()
    assert {e["entrant"] for e in board} == {"alice", "bob", "carol"}
    for e in board:
        bot = f"{e['entrant']}.v{e['version']}"
        mine = [(r, r["bots"].index(bot)) for r in stored if bot in r["bots"] and r["rated"]]
        wins = sum(r["result"][seat] > 0 for r, seat in mine)
        draws = sum(r["result"][seat] == 0 for r, seat in mine)
        losses = sum(r["result"][seat] < 0 for r, seat in mine)
        assert (e["wins"], e["draws"], e["losses"]) == (wins, draws, losses), e
        assert e["games"] == wins + draws + losses > 0
        assert abs(e["score"] - (wins + draws / 2) / e["games"]) < 1e-3
        last = max(r["finished_at"].timestamp() for r in stored if bot in r["bots"])
        assert abs(e["last_active"] - last) < 0.01
    page = site.client.get("/").text  # anonymous
    for e in board:
        assert f'href="/entrants/{e["entrant"]}"' in page
        assert f'{e["wins"]}/{e["draws"]}/{e["losses"]}' in page


def test_an_entrants_page_and_replays_are_public_and_the_rest_private(site: Site) -> None:
    alice, bob, carol = _league(site)
    mine = site.client.get("/api/me", headers=site.bearer(alice)).json()["submissions"]
    refused = next(v for v in mine if v["status"] == "failed")
    assert SECRET in refused["reason"] + refused["report"]  # alice's own: she reads why
    anonymous = site.browser()
    newest = anonymous.get("/api/entrants/alice").json()["games"][0]
    game = newest["game_id"]  # its replay is anyone's to watch, its logs its players' alone
    outsider = carol if any(b.startswith("bob.v") for b in newest["bots"]) else bob
    as_other = site.bearer(outsider)  # another entrant, not at that game's table
    for headers in ({}, as_other):
        found = anonymous.get("/api/entrants/alice", headers=headers)
        assert found.status_code == 200, found.text
        public = found.json()
        assert [v["status"] for v in public["versions"]] == ["active", "failed"]
        assert all(v["added"] and v["changed"] for v in public["versions"])
        assert public["versions"][1]["note"] == "refused by its entry check"
        assert SECRET not in found.text and "report" not in public["versions"][1]
        assert public["standing"]["entrant"] == "alice" and public["standing"]["games"] > 0
        games = public["games"]
        assert games and all(any(b.startswith("alice.v") for b in g["bots"]) for g in games)
        ended = [g["finished"] for g in games]
        assert ended == sorted(ended, reverse=True)
        page = anonymous.get("/entrants/alice", headers=headers)
        assert page.status_code == 200 and SECRET not in page.text
        assert "refused by its entry check" in page.text
        assert f'href="/games/{game}"' in page.text
        replay = anonymous.get(f"/games/{game}", headers=headers)
        assert replay.status_code == 200 and "<html" in replay.text.lower()
        assert str(site.folder) not in replay.text
        moves = anonymous.get(f"/api/games/{game}", headers=headers)
        assert moves.status_code == 200 and moves.json()["moves"]
        # private: alice's logs, her submissions and check reports, her tokens
        for path in (f"/games/{game}/log", f"/api/games/{game}/log"):
            refused_log = anonymous.get(path, headers=headers, follow_redirects=False)
            assert refused_log.status_code in ((303, 401) if not headers else (404,)), path
        assert anonymous.get("/api/submissions/alice.v1", headers=headers).status_code in \
            (401, 404)
        assert alice not in found.text and alice not in page.text
    me = anonymous.get("/api/me", headers=as_other).json()
    assert all(not v["bot"].startswith("alice.") for v in me["submissions"])  # not alice's
    assert site.client.get("/api/entrants/nobody").status_code == 404
    assert site.client.get("/entrants/nobody").status_code == 404
    assert site.client.get("/games/no-such-game").status_code == 404


def test_the_public_report_keeps_a_refusal_reason_to_its_entrant(
        site: Site, tmp_path: Path) -> None:
    _league(site)
    out = tmp_path / "report.html"
    report.write(site.folder, out, replays=0)
    entrants = {e["bot"]: e for e in _page_data(out)["entrants"]}  # type: ignore[attr-defined]
    assert entrants["alice.v1"]["status"] == "failed"
    assert entrants["alice.v1"]["reason"] == "refused by its entry check"
    assert SECRET not in out.read_text()
