"""`tourney serve`, `tourney serve-admin` and `tourney submit` as people run them: a real server
process on loopback, entrants added from the command line, bots sent with `tourney submit`,
games played by the living league it runs, and a `kill -9` that loses nothing."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import httpx
import pyarrow.dataset as ds

from harness.league import store
from tests.patience import patience
from tests.serve.conftest import BOTS, Site, start_server, tourney


def token_of(output: str) -> str:
    return output.split("token ", 1)[1].split()[0]


def game_ids(folder: Path) -> set[str]:
    if not store.batch_files(folder / "games"):
        return set()
    return set(ds.dataset(folder / "games", format="parquet").to_table(
        columns=["game_id"]).column("game_id").to_pylist())


def wait_for_games(url: str, entrants: set[str], at_least: int = 1) -> dict[str, int]:
    end = time.monotonic() + patience(90)
    games: dict[str, int] = {}
    while time.monotonic() < end:
        board = httpx.get(url + "/api/leaderboard", timeout=10).json()
        games = {e["entrant"]: e["games"] for e in board["entrants"]}
        if all(games.get(name, 0) >= at_least for name in entrants):
            return games
        time.sleep(0.3)
    raise AssertionError(f"no games for {entrants} in time: {games}")


def test_a_competition_from_the_command_line_survives_kill_9(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    served = start_server(folder, "--game", "battleline", "--seed", "5")
    try:
        assert served.organiser.startswith("tny_")
        added = tourney("serve-admin", "add", folder, "alice", "--url", served.url)
        assert added.returncode == 0, added.stderr
        assert f"invitation link: {served.url}/login#tny_" in added.stdout
        alice = token_of(added.stdout)
        bob = token_of(tourney("serve-admin", "add", folder, "bob").stdout)
        sent = tourney("submit", served.url, BOTS / "first.py", env={"TOURNEY_TOKEN": alice})
        assert sent.returncode == 0, sent.stdout + sent.stderr
        assert "alice.v1 is active" in sent.stdout and "self-play game" in sent.stdout
        failed = tourney("submit", served.url, BOTS / "last.py", "--token", bob)
        assert failed.returncode == 0, failed.stderr
        wait_for_games(served.url, {"alice", "bob"}, at_least=4)
        listed = tourney("serve-admin", "list", folder)
        assert "alice" in listed.stdout and "active" in listed.stdout
        served.process.send_signal(signal.SIGKILL)  # nothing may be lost
        served.process.wait()
        time.sleep(0.5)
        # the league it ran died with it: a new server can take the folder's lock
        before = game_ids(folder)
        again = start_server(folder)
        try:
            assert "organiser token: the one printed" in again.output.read_text()
            games = wait_for_games(again.url, {"alice", "bob"}, at_least=1)
            end = time.monotonic() + patience(60)
            while len(game_ids(folder)) <= len(before) and time.monotonic() < end:
                time.sleep(0.3)
            after = game_ids(folder)
            assert before <= after and len(after) > len(before), (len(before), len(after))
            assert sum(games.values()) >= len(before)
        finally:
            out = again.stop()
        assert "stopped; the same command continues the competition" in out, out
    finally:
        served.stop(signal.SIGKILL)
    left = subprocess.run(["pgrep", "-f", f"harness.serve.child .* {folder}"],
                          capture_output=True, text=True)
    assert left.stdout.strip() == "", "a child of the server outlived it"


def test_bad_input_gets_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    r = tourney("serve", folder)
    assert r.returncode == 2 and "give --game GAME" in r.stderr
    r = tourney("serve", folder, "--game", "nosuchgame", "--port", "0")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    served = start_server(folder, "--game", "battleline")
    try:
        r = tourney("submit", served.url, BOTS / "first.py", "--token", "tny_wrong")
        assert r.returncode == 2 and "refused (401)" in r.stderr and "not valid" in r.stderr
        r = tourney("submit", served.url, tmp_path / "missing.py", "--token", "tny_x")
        assert r.returncode == 2 and "no bot file" in r.stderr
        r = tourney("submit", served.url, BOTS / "first.py")
        assert r.returncode == 2 and "TOURNEY_TOKEN" in r.stderr
        r = tourney("submit", "http://127.0.0.1:9", BOTS / "first.py", "--token", "tny_x")
        assert r.returncode == 2 and "cannot reach" in r.stderr
        r = tourney("serve-admin", "add", folder, "bad name")
        assert r.returncode == 2 and "not allowed" in r.stderr
        tourney("serve-admin", "add", folder, "carol")
        r = tourney("serve-admin", "add", folder, "carol")
        assert r.returncode == 2 and "already exists" in r.stderr
        r = tourney("serve-admin", "retire", folder, "nobody")
        assert r.returncode == 2 and "no entrant" in r.stderr
        r = tourney("serve-admin", "settings", folder, "--signup-code", "short")
        assert r.returncode == 2 and "8 characters" in r.stderr
        r = tourney("serve", folder, "--port", "0", "--move-time", "2")
        assert r.returncode == 2 and "chosen when it starts" in r.stderr
        r = tourney("serve-admin", "list", tmp_path / "elsewhere")
        assert r.returncode == 2 and "not a living league" in r.stderr
    finally:
        served.stop()


def test_open_host_warns_and_sign_up_works(tmp_path: Path) -> None:
    folder = tmp_path / "contest"
    served = start_server(folder, "--game", "battleline", "--host", "0.0.0.0")
    try:
        text = served.output.read_text()
        assert "warning: listening on 0.0.0.0" in text and "TLS" in text
        r = tourney("serve-admin", "settings", folder, "--signup-code", "club-2026", "--per-day",
                    "3")
        assert r.returncode == 0 and "signup: True" in r.stdout and "submissions_per_day: 3" \
            in r.stdout
        url = served.url.replace("0.0.0.0", "127.0.0.1")
        with httpx.Client(base_url=url) as client:
            wrong = client.post("/signup", data={"name": "dora", "code": "guess"})
            assert wrong.status_code == 403
            joined = client.post("/signup", data={"name": "dora", "code": "club-2026"})
            assert joined.status_code == 200 and "tny_" in joined.text
            me = client.get("/me")  # the sign-up logged her in
            assert me.status_code == 200 and "Send a bot" in me.text
    finally:
        served.stop()


def test_a_new_organiser_token_ends_the_old_ones_sessions_and_logout_all_ends_every_one(
        site: Site) -> None:
    """A leaked organiser token's session (a 7-day cookie) must not outlive the token: after
    `serve-admin organiser-token` it is no organiser session any more. `serve-admin
    logout-all` logs everyone out; tokens keep working."""
    alice_token = site.add("alice")
    old = site.browser()
    site.login(site.organiser, old)
    assert old.get("/api/admin/entrants").status_code == 200
    r = tourney("serve-admin", "organiser-token", site.folder)
    assert r.returncode == 0, r.stderr
    new = r.stdout.split("organiser token: ", 1)[1].strip()
    r = old.post("/api/admin/entrants", json={"name": "mallory"},
                 headers={"X-CSRF-Token": "x"})
    assert r.status_code == 401
    assert old.get("/admin", follow_redirects=False).headers["location"] == "/login"
    assert site.client.get("/api/admin/entrants", headers=site.bearer(site.organiser)
                           ).status_code == 401  # the old token itself
    # everyone logged in, then logged out from the command line
    organiser, alice = site.browser(), site.browser()
    site.login(new, organiser)
    site.login(alice_token, alice)
    assert organiser.get("/api/admin/entrants").status_code == 200
    assert alice.get("/api/me").status_code == 200
    r = tourney("serve-admin", "logout-all", site.folder)
    assert r.returncode == 0 and r.stdout.startswith("ended 2 sessions"), (r.stdout, r.stderr)
    assert organiser.get("/api/admin/entrants").status_code == 401
    assert alice.get("/api/me").status_code == 401
    assert alice.get("/me", follow_redirects=False).headers["location"] == "/login"
    site.login(alice_token, alice)  # the token still works
    assert alice.get("/api/me").json()["entrant"] == "alice"
    for client in (old, organiser, alice):
        client.close()
    bad = tourney("serve-admin", "logout-all", site.folder.parent / "nowhere")
    assert bad.returncode != 0 and "is not a competition" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
