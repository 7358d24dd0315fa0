"""The bots' logs within their budgets, and the organiser's download (issue 45, point 6): a
chatty bot's logs are pruned, older versions' first, past the entrant's and the competition's
budgets; the download is streamed and holds neither the organiser's paths, nor the sessions,
nor the sign-up code's hash."""

from __future__ import annotations

import io
import sqlite3
import tempfile
import zipfile
from pathlib import Path

from harness.league.index import GameIndex, entrant_of
from tests.serve.conftest import BOTS, Site

KB = 1 << 10


def _logs(site: Site) -> dict[str, int]:
    """Bytes of logs of each version, from the files and the index of the games."""
    out: dict[str, int] = {}
    index = GameIndex.open(site.folder)
    try:
        for path in (site.folder / "logs").glob("*.log"):
            game, _, seat = path.name.removesuffix(".log").rpartition(".seat")
            bots = index.seats_of([game])[game]
            out[bots[int(seat)]] = out.get(bots[int(seat)], 0) + path.stat().st_size
    finally:
        index.close()
    return out


def _chatty(note: str) -> bytes:
    return (BOTS / "chatty.py").read_bytes() + f"# {note}\n".encode()


def test_an_entrants_old_versions_logs_go_first(site: Site) -> None:
    alice, bob = site.add("alice"), site.add("bob")
    assert site.upload(alice, "chatty.py", _chatty("v1")).status_code == 202
    site.send(bob, "first.py")
    site.play(12)
    assert site.upload(alice, "chatty.py", _chatty("v2")).status_code == 202
    site.settle()
    site.play(12)
    before = _logs(site)
    assert before["alice.v1"] > 600 * KB and before["alice.v2"] > 600 * KB, before
    old = [g["game_id"] for g in site.client.get(
        "/api/me/games?limit=5000", headers=site.bearer(alice)).json()["games"]
        if "alice.v1" in g["bots"]][-1]  # alice's oldest game
    r = site.client.post("/api/admin/settings", json={"log_mb_per_entrant": 1},
                         headers=site.bearer(site.organiser))
    assert r.status_code == 200 and r.json()["log_mb_per_entrant"] == 1
    after = _logs(site)
    assert after["alice.v1"] + after["alice.v2"] <= 1 << 20
    assert after["alice.v1"] < before["alice.v1"]  # the older version's logs went first
    assert after["alice.v2"] == before["alice.v2"]  # within the budget: kept whole
    log = site.client.get(f"/api/games/{old}/log", headers=site.bearer(alice)).text
    assert "removed" in log and "1 MB each entrant may keep" in log
    bad = site.client.post("/api/admin/settings", json={"log_mb_per_entrant": 0},
                           headers=site.bearer(site.organiser))
    assert bad.status_code == 422 and "between" in bad.json()["error"]


def test_the_competitions_logs_keep_the_newest(site: Site) -> None:
    alice, bob = site.add("alice"), site.add("bob")
    assert site.upload(alice, "chatty.py", _chatty("v1")).status_code == 202
    assert site.upload(bob, "chatty.py", _chatty("bob")).status_code == 202
    site.settle()
    site.play(6)
    assert site.upload(alice, "chatty.py", _chatty("v2")).status_code == 202
    site.settle()
    site.play(6)
    before = _logs(site)
    assert sum(before.values()) > 1400 * KB, before
    site.competition.update_settings({"log_mb_total": "1"})  # as the organiser's form sends it
    after = _logs(site)
    assert sum(after.values()) <= 1 << 20
    assert "alice.v1" not in after and after["alice.v2"] == before["alice.v2"]
    assert 0 < after["bob.v1"] < before["bob.v1"]
    # what is left of bob's are his newest games
    index = GameIndex.open(site.folder)
    try:
        kept = {p.name.split(".seat")[0] for p in (site.folder / "logs").glob("*.log")}
        games = site.competition.games_of("bob", 5000)
        seqs = index.seq_of(g["game_id"] for g in games)
        mine = sorted((seqs[g["game_id"]], g["game_id"] in kept) for g in games)
        flags = [k for _, k in mine]
        assert flags == sorted(flags), "an older log was kept while a newer one went"
    finally:
        index.close()
    assert entrant_of("bob.v1") == ("bob", 1)


def test_the_download_is_streamed_without_paths_sessions_or_the_code(site: Site) -> None:
    from tests.serve.test_security import login

    alice, bob = site.add("alice"), site.add("bob")
    assert site.upload(alice, "chatty.py", _chatty("v1")).status_code == 202
    site.send(bob, "last.py")
    site.play(4)
    login(site, alice)  # a session in the table
    code = "spring-2026-secret"
    site.client.post("/api/admin/settings", json={"signup_code": code, "signup": True},
                     headers=site.bearer(site.organiser))
    db = sqlite3.connect(site.folder / "serve.sqlite")
    code_hash = db.execute("SELECT value FROM settings WHERE key = 'signup_code'").fetchone()[0]
    sessions = db.execute("SELECT id_hash FROM sessions").fetchall()
    db.close()
    assert sessions
    # a crash's reason with the organiser's paths, in the logs and in the arena's log
    (site.folder / "serve-arena.log").write_text(f"Traceback: {site.folder}/bots/x.py\n")
    with site.client.stream("GET", "/api/admin/download",
                            headers=site.bearer(site.organiser)) as r:
        assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
        assert "content-length" not in r.headers  # sent as it is written
        pieces = list(r.iter_raw())
    assert len(pieces) > 1
    data = b"".join(pieces)
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = archive.namelist()
    assert {"league.json", "serve.sqlite", "arena.sqlite", "serve-arena.log"} <= set(names)
    assert any(n.startswith("games/") for n in names) and any(n.startswith("logs/")
                                                              for n in names)
    forbidden = [str(site.folder), str(site.folder.resolve()), str(Path.home()),
                 code_hash, *(s[0] for s in sessions)]
    for name in names:
        content = archive.read(name)
        for word in forbidden:
            assert word.encode() not in content, (name, word)
    assert "<results folder>/bots/x.py" in archive.read("serve-arena.log").decode()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "serve.sqlite"
        copy.write_bytes(archive.read("serve.sqlite"))
        got = sqlite3.connect(copy)
        assert got.execute("SELECT count(*) FROM sessions").fetchone() == (0,)
        assert got.execute("SELECT count(*) FROM settings WHERE key = 'signup_code'"
                           ).fetchone() == (0,)
        assert got.execute("SELECT count(*) FROM accounts").fetchone()[0] == 3
        got.close()
