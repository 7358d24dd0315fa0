"""The human seat (harness/serve/human.py): a person plays a bot through the web app, sees only
their own view, can make only legal moves in turn, and the game is stored like any other; the
local server of `tourney play GAME human BOT`; docs/human.md's examples."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from games import registry
from harness.league.config import load_config
from harness.league.report import find_game, replay_html
from harness.league.report.frames import replay_frames
from harness.league.store import load_games
from harness.records import BotRef, Termination
from harness.serve.human import (
    HumanGames,
    default_store,
    human_app,
    seat_view,
    serve_local,
)
from tests.patience import patience

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note that it will prefer another client
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
GREEDY = BotRef("greedy", "greedy")
SLOW_BOT = """
import time


class Slow:
    def act(self, observation, legal_actions):
        time.sleep({sleep})
        return legal_actions[0]
"""


def as_user(name: str | None) -> dict[str, str]:
    return {"x-user": name} if name else {}


def header_user(request: Any) -> str | None:
    found: str | None = request.headers.get("x-user")
    return found


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """A TestClient of a human app (the user named by the ``x-user`` header); every game is
    interrupted at the end."""
    apps: list[Any] = []

    def make(game: str = "battleline", variant: dict[str, str] | None = None,
             bots: dict[str, BotRef] | None = None, **kwargs: Any) -> TestClient:
        offered = bots if bots is not None else {"greedy": GREEDY}
        app = human_app(game=game, variant=variant or {}, bots=lambda: offered,
                        store=tmp_path / "human", user=header_user, **kwargs)
        apps.append(app)
        return TestClient(app)

    yield make
    for app in apps:
        app.state.games.close()


def new_game(client: TestClient, user: str = "alice", **body: Any) -> str:
    r = client.post("/new", json={"bot": "greedy", "seat": 0, **body}, headers=as_user(user))
    assert r.status_code == 201, r.text
    sid: str = r.json()["id"]
    assert r.json()["url"] == f"/g/{sid}"
    return sid


def play_out(client: TestClient, sid: str, user: str = "alice", choose: Callable[
        [list[str]], str] = lambda legal: legal[0], seen: list[dict[str, Any]] | None = None,
        limit: float = 60) -> dict[str, Any]:
    """Play the human's moves until the game is over; returns the final state."""
    deadline = time.monotonic() + patience(limit)
    while time.monotonic() < deadline:
        state: dict[str, Any] = client.get(f"/g/{sid}/state", headers=as_user(user)).json()
        if seen is not None:
            seen.append(state)
        if state["over"]:
            return state
        if state["your_turn"]:
            r = client.post(f"/g/{sid}/move", json={"action": choose(state["legal"])},
                            headers=as_user(user))
            assert r.status_code == 200, r.text
        else:
            time.sleep(0.005)
    raise AssertionError("the game did not end")


def wait_for(client: TestClient, sid: str, test: Callable[[dict[str, Any]], bool],
             user: str = "alice", limit: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + patience(limit)
    while time.monotonic() < deadline:
        state: dict[str, Any] = client.get(f"/g/{sid}/state", headers=as_user(user)).json()
        if test(state):
            return state
        time.sleep(0.01)
    raise AssertionError("the state never came")


# ----------------------------------------------------------------------------- a whole game


def test_a_human_plays_a_bot_to_the_end_and_the_game_is_stored_apart(
        make_client: Callable[..., TestClient], tmp_path: Path) -> None:
    client = make_client()
    sid = new_game(client, seat=1, seed=7)
    final = play_out(client, sid, choose=lambda legal: legal[-1])
    result = final["result"]
    assert final["over"] and not final["your_turn"] and final["legal"] == []
    assert final["seats"] == ["greedy", "human:alice"] and final["human"] == 1
    assert result["termination"] == "normal" and result["winners"]
    assert result["replay"] == f"/g/{sid}/replay"

    folder = tmp_path / "human"
    config = load_config(folder)
    assert config.kind == "human" and config.game == "battleline"
    assert [b.name for b in config.bots] == ["greedy", "human:alice"]
    stored = find_game(folder, result["game_id"])
    assert stored.row["bots"] == ["greedy", "human:alice"] and stored.row["seed"] == 7
    assert stored.row["league"] == "human"
    # the human's moves are the stored moves of seat 1, as played
    mine = [m["action"] for m in stored.moves if m["seat"] == 1]
    assert mine == [a for seat, a, auto in final["history"] if seat == 1 and not auto]
    # the ordinary viewer replays it, and so does the app
    html = replay_html(stored)
    assert "human:alice" in html
    page = client.get(f"/g/{sid}/replay", headers=as_user("alice"))
    assert page.status_code == 200 and result["game_id"] in page.text


def test_the_state_shows_the_humans_view_never_the_bots_hand(
        make_client: Callable[..., TestClient], tmp_path: Path) -> None:
    """Every state the human got during a game of Battle Line, checked against the true
    position at that decision: no card of the bot's hand the human may not know appears."""
    client = make_client()
    sid = new_game(client, seat=0, seed=11)
    seen: list[dict[str, Any]] = []
    rng = random.Random(3)
    final = play_out(client, sid, choose=rng.choice, seen=seen)
    moves = [m["action"] for m in find_game(tmp_path / "human", final["result"]["game_id"]).moves]
    engine = registry.get("battleline")
    checked = 0
    for state in seen:
        view = state["view"]
        if view is None or state["over"]:
            continue
        truth = engine.new_game(11)
        for action in moves[:view["decisions"]]:
            truth.apply(action)
        mine = truth.observation(0)
        assert view == seat_view("battleline", mine)  # exactly the human's observation
        assert isinstance(view["hands"][1], int) and view["hands"][0] == mine["hand"]
        hidden = set(truth.observation(1)["hand"]) - set(mine["opponent_known"])
        text = json.dumps(state)
        leaked = [card for card in hidden if re.search(rf"\b{card}\b", text)]
        assert not leaked, (view["decisions"], leaked)
        checked += 1
    assert checked >= 20


def test_war_chest_is_playable_and_the_bots_face_down_coins_stay_hidden(
        make_client: Callable[..., TestClient], tmp_path: Path) -> None:
    client = make_client(game="warchest")
    sid = new_game(client, seat=1, seed=5)
    seen: list[dict[str, Any]] = []
    final = play_out(client, sid, choose=random.Random(1).choice, seen=seen)
    assert final["result"]["termination"] in ("normal", "stalemate", "move_cap")
    for state in seen:
        view = state["view"]
        if view is not None:
            assert isinstance(view["hands"][0], int) and isinstance(view["facedowns"][0], int)
            assert isinstance(view["hands"][1], dict)  # coin -> count
            assert "hand" not in view and "facedown" not in view
    stored = find_game(tmp_path / "human", final["result"]["game_id"])
    face_down = ("initiative", "recruit", "pass")
    bots_hidden = [m["action"] for m in stored.moves
                   if m["seat"] == 0 and m["action"].split()[1:2] and
                   m["action"].split()[1] in face_down]
    assert bots_hidden, "the bot made no face-down payment in this game"
    public = [a for seat, a, _ in final["history"] if seat == 0]
    assert all(not any(a == h for a in public) for h in bots_hidden)
    assert sum(a.startswith("? ") for a in public) == len(bots_hidden)


def test_three_player_battle_line_seats_the_bot_twice(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client(variant={"players": "3"})
    sid = new_game(client, seat=2, seed=3)
    final = play_out(client, sid, limit=120)
    assert final["seats"] == ["greedy", "greedy#1", "human:alice"]
    assert final["view"]["hands"][2] and all(isinstance(final["view"]["hands"][s], int)
                                             for s in (0, 1))


# ----------------------------------------------------------------------------- moves


def test_a_move_is_refused_unless_it_is_legal_and_the_humans_turn(
        make_client: Callable[..., TestClient], tmp_path: Path) -> None:
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW_BOT.format(sleep=1.0))
    client = make_client(bots={"greedy": BotRef("greedy", f"inproc:{slow}")})
    sid = new_game(client, seat=0, seed=2)
    state = wait_for(client, sid, lambda s: s["your_turn"])
    move = f"/g/{sid}/move"
    r = client.post(move, json={"action": "play x99 12"}, headers=as_user("alice"))
    assert r.status_code == 400 and "'play x99 12' is not a legal move now" in r.json()["error"]
    r = client.post(move, json={"nothing": 1}, headers=as_user("alice"))
    assert r.status_code == 400 and "action string" in r.json()["error"]
    r = client.post(move, json={"action": state["legal"][0]}, headers=as_user("alice"))
    assert r.status_code == 200
    drawing = wait_for(client, sid, lambda s: s["your_turn"])  # then the human draws
    assert all(a.startswith("draw ") for a in drawing["legal"])
    r = client.post(move, json={"action": drawing["legal"][0]}, headers=as_user("alice"))
    assert r.status_code == 200
    # the slow bot thinks now (a second): not the human's turn
    bots_turn = wait_for(client, sid, lambda s: s["view"]["current_player"] == 1)
    assert not bots_turn["your_turn"] and bots_turn["legal"] == []
    r = client.post(move, json={"action": state["legal"][1]}, headers=as_user("alice"))
    assert r.status_code == 400 and "not your turn" in r.json()["error"]
    # a form post works too, once it is the human's turn again
    again = wait_for(client, sid, lambda s: s["your_turn"] and s["view"]["decisions"] > 2)
    r = client.post(move, data={"action": again["legal"][0]}, headers=as_user("alice"))
    assert r.status_code == 200, r.text


def test_a_resigned_game_is_stored_as_the_humans_forfeit(
        make_client: Callable[..., TestClient], tmp_path: Path) -> None:
    client = make_client()
    sid = new_game(client, seat=1, seed=4)
    wait_for(client, sid, lambda s: s["your_turn"])
    assert client.post(f"/g/{sid}/resign", headers=as_user("alice")).status_code == 200
    final = wait_for(client, sid, lambda s: s["over"])
    assert final["result"]["winners"] == [0]
    assert final["result"]["reason"] == "seat 1 (human:alice) resigned"
    r = client.post(f"/g/{sid}/move", json={"action": "done"}, headers=as_user("alice"))
    assert r.status_code == 400 and "the game is over" in r.json()["error"]
    row = find_game(tmp_path / "human", final["result"]["game_id"]).row
    assert row["termination"] == Termination.CRASH.value and row["reason"].endswith("resigned")


def running_children() -> set[int]:
    found = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True)
    return {int(p) for p in found.stdout.split()}


def test_an_idle_human_forfeits_and_the_sandboxed_bot_is_closed(
        make_client: Callable[..., TestClient]) -> None:
    before = running_children()
    client = make_client(bots={"greedy": BotRef("greedy", "sandbox:greedy")}, idle_seconds=1.0)
    sid = new_game(client, seat=1, seed=9)
    wait_for(client, sid, lambda s: s["your_turn"], limit=30)
    assert running_children() - before, "the sandboxed bot runs in a process of its own"
    final = wait_for(client, sid, lambda s: s["over"], limit=30)
    assert final["result"]["reason"] == "seat 1 (human:alice) left the game (no move for " \
                                        "1 second)"
    assert final["result"]["replay"]  # stored
    deadline = time.monotonic() + patience(10)
    while running_children() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running_children() - before


# ----------------------------------------------------------------------------- who may do what


def test_a_game_is_its_owners_alone_and_anonymous_users_are_refused(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    sid = new_game(client, seat=0)
    for path in (f"/g/{sid}", f"/g/{sid}/state", f"/g/{sid}/replay"):
        assert client.get(path, headers=as_user("bob")).status_code == 404
    r = client.post(f"/g/{sid}/move", json={"action": "pass"}, headers=as_user("bob"))
    assert r.status_code == 404 and "no such game" in r.json()["error"]
    assert client.post(f"/g/{sid}/resign", headers=as_user("bob")).status_code == 404
    assert client.get("/").status_code == 403
    assert client.get(f"/g/{sid}/state").status_code == 403
    r = client.post("/new", json={"bot": "greedy", "seat": 0})
    assert r.status_code == 403 and "log in" in r.json()["error"]
    assert client.get("/g/0123456789abcdef/state", headers=as_user("alice")).status_code == 404


def test_live_games_are_limited_per_user_and_overall(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client(per_user=2, overall=3)
    new_game(client, "alice", seat=1)
    new_game(client, "alice", seat=1)
    r = client.post("/new", json={"bot": "greedy", "seat": 1}, headers=as_user("alice"))
    assert r.status_code == 429 and "2 games in progress" in r.json()["error"]
    bobs = new_game(client, "bob", seat=1)
    r = client.post("/new", json={"bot": "greedy", "seat": 1}, headers=as_user("carol"))
    assert r.status_code == 429 and "the server's limit" in r.json()["error"]
    client.post(f"/g/{bobs}/resign", headers=as_user("bob"))
    wait_for(client, bobs, lambda s: s["over"], user="bob")
    new_game(client, "carol", seat=1)


def test_bad_requests_for_a_new_game_say_what_is_wrong(
        make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    cases = [({"bot": "nobody", "seat": 0}, "there is no bot 'nobody'"),
             ({"bot": "greedy", "seat": 5}, "seat 5 does not exist"),
             ({"bot": "greedy", "seat": "x"}, "the seat must be a whole number"),
             ({"bot": "greedy", "seat": 0, "seed": "-3"}, "the seed must be a whole number")]
    for body, message in cases:
        r = client.post("/new", json=body, headers=as_user("alice"))
        assert r.status_code == 400 and message in r.json()["error"], (body, r.text)
    page = client.post("/new", data={"bot": "nobody", "seat": "0"}, headers=as_user("alice"))
    assert page.status_code == 400 and "there is no bot" in page.text
    assert "<html" in page.text


def test_pages_escape_hostile_names_and_carry_the_csrf_token(
        make_client: Callable[..., TestClient]) -> None:
    evil = '<script>alert("x")</script>'
    client = make_client(bots={evil: BotRef(evil, "greedy")}, csrf=lambda request: "tok&<>")
    form = client.get("/", headers=as_user(f"{evil}user"))
    assert form.status_code == 200 and evil not in form.text
    assert "&lt;script&gt;alert(" in form.text
    assert '<meta name="csrf-token" content="tok&amp;&lt;&gt;">' in form.text
    assert "no move of yours for 30 minutes is forfeited" in " ".join(form.text.split())
    r = client.post("/new", json={"bot": evil, "seat": 0}, headers=as_user(f"{evil}user"))
    sid = r.json()["id"]
    page = client.get(f"/g/{sid}", headers=as_user(f"{evil}user"))
    assert page.status_code == 200 and evil not in page.text
    assert "script-src 'nonce-" in page.headers["content-security-policy"]
    nonce = re.search(r"'nonce-([^']+)'", page.headers["content-security-policy"])
    assert nonce is not None
    scripts = re.findall(r"<script([^>]*)>", page.text)
    assert scripts and all(f'nonce="{nonce.group(1)}"' in s or "application/json" in s
                           for s in scripts)


def test_mounted_under_a_prefix_its_addresses_follow_the_mount(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    app = human_app(game="battleline", variant={}, bots=lambda: {"greedy": GREEDY},
                    store=tmp_path / "human", user=header_user)
    client = TestClient(Starlette(routes=[Mount("/play", app=app)]))
    try:
        r = client.post("/play/new", data={"bot": "greedy", "seat": "1", "seed": "5"},
                        headers=as_user("alice"), follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/play/g/")
        page = client.get(r.headers["location"], headers=as_user("alice"))
        data = re.search(r'id="human-data">(.*?)</script>', page.text)
        assert data is not None
        meta = json.loads(data.group(1))
        assert meta["state_url"] == r.headers["location"] + "/state"
        assert client.get(meta["state_url"], headers=as_user("alice")).json()["seats"][1] == \
            "human:alice"
        listing = client.get("/play/", headers=as_user("alice")).text
        assert f'href="{r.headers["location"]}"' in listing
    finally:
        app.state.games.close()


# ----------------------------------------------------------------------------- pieces


@pytest.mark.parametrize("game", ["battleline", "warchest"])
def test_a_seats_view_is_the_replay_viewers_view_of_that_seat(game: str) -> None:
    engine = registry.get(game)
    state = engine.new_game(21)
    rng = random.Random(21)
    actions: list[str] = []
    while not state.is_terminal() and len(actions) < 60:
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    rebuilt = replay_frames(game, 21, {}, actions)
    from harness.league.report.frames import json_patch

    state = engine.new_game(21)
    frames = [rebuilt.views[1 + s]["first"] for s in range(state.num_players)]
    for k, action in enumerate([*actions, None]):
        for seat in range(state.num_players):
            assert seat_view(game, state.observation(seat)) == frames[seat]
        if action is None:
            break
        state.apply(action)
        frames = [json_patch(frames[s], rebuilt.views[1 + s]["changes"][k])
                  for s in range(state.num_players)]


def test_a_bot_changed_since_its_last_game_in_the_folder_is_stored_under_its_hash(
        tmp_path: Path) -> None:
    games = HumanGames(game="battleline", variant={}, store=tmp_path / "h")
    try:
        first = games.create("alice", [BotRef("mine", "greedy", "a" * 64)], 0, seed=1)
        first.leave("resigned")
        assert first.done.wait(patience(20))
        again = games.create("alice", [BotRef("mine", "greedy", "b" * 64)], 0, seed=1)
        assert [r.name for r in again.seats] == ["human:alice", "mine@bbbbbbb"]
        again.leave("resigned")
        assert again.done.wait(patience(20))
    finally:
        games.close()
    table = load_games([tmp_path / "h"]).games
    assert sorted(map(tuple, table.column("bots").to_pylist())) == [
        ("human:alice", "mine"), ("human:alice", "mine@bbbbbbb")]


def test_the_default_folder_names_the_game_and_its_variant() -> None:
    assert default_store("battleline", {}) == Path("results/human/battleline")
    assert default_store("schotten-totten", {"rules": "schotten-totten"}) == \
        Path("results/human/battleline-rules=schotten-totten")
    assert default_store("wc", {"players": "4"}) == Path("results/human/warchest-players=4")


# ----------------------------------------------------------------------------- locally


def drive(url: str, limit: float = 60, choose: Callable[[list[str]], str] = lambda x: x[0]
          ) -> dict[str, Any]:
    """Play a local game's human seat through its address until the game is over."""
    deadline = time.monotonic() + patience(limit)
    with httpx.Client(timeout=patience(10)) as client:
        while time.monotonic() < deadline:
            state: dict[str, Any] = client.get(url + "/state").json()
            if state["over"]:
                return state
            if state["your_turn"]:
                r = client.post(url + "/move", json={"action": choose(state["legal"])})
                assert r.status_code == 200, r.text
            else:
                time.sleep(0.01)
    raise AssertionError("the local game did not end")


def test_a_local_game_is_served_under_a_token_and_stops_when_over(tmp_path: Path) -> None:
    local = serve_local(game="battleline", variant={}, bots=[GREEDY], human=0,
                        store=tmp_path / "h", user="me", seed=3)
    try:
        assert local.url.startswith("http://127.0.0.1:")
        token = local.url.split("/")[3]
        assert len(token) >= 30
        base = local.url.split(token)[0]
        assert httpx.get(local.url).status_code == 200
        assert httpx.get(base + "x" * len(token) + local.url.split(token)[1]).status_code == 404
        assert httpx.get(base + "g/" + local.session.id + "/state").status_code == 404
        final = drive(local.url)
    finally:
        session = local.wait(linger=patience(5))
    assert final["result"]["text"].startswith(("seat 0", "seat 1", "draw"))
    assert session.stored and session.record is not None
    assert session.record.seats == ["human:me", "greedy"]
    assert not local.thread.is_alive()
    with pytest.raises(httpx.ConnectError):
        httpx.get(local.url)


def test_tourney_play_with_a_human_seat_prints_the_address_and_the_result(
        tmp_path: Path) -> None:
    out = run_play(["battleline", "greedy", "human", "--seed", "7", "--no-browser",
                    "--out", str(tmp_path / "mine")], tmp_path)
    assert "seat 0: greedy, seat 1: human:" in out
    assert re.search(r"stored in \S*mine as game human-[0-9a-f]{16}; replay it with: tourney "
                     r"replay \S*mine human-[0-9a-f]{16} --html replay.html", out)
    assert load_config(tmp_path / "mine").kind == "human"
    bad = subprocess.run([sys.executable, "-m", "harness.cli.app", "play", "battleline",
                          "human", "human", "--no-browser"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=patience(60))
    assert bad.returncode == 2 and "exactly one seat as human, not 2" in bad.stderr


def tourney_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
            "BROWSER": "true"}  # webbrowser.open runs `true URL`: no browser opens


def run_play(args: list[str], cwd: Path) -> str:
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli.app", "play", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            env=tourney_env())
    return finish(proc)


def finish(proc: subprocess.Popen[str], choose: Callable[[list[str]], str] = lambda x: x[0]
           ) -> str:
    """Play the human seat of a running `tourney play ... human ...` to the end: its output."""
    assert proc.stdout is not None
    first = proc.stdout.readline()
    found = re.search(r"Play in your browser \(seat \d\): (http://127\.0\.0\.1:\d+/\S+)", first)
    if found is None:
        proc.kill()
        raise AssertionError(first + proc.communicate()[1])
    drive(found.group(1), choose=choose)
    rest, err = proc.communicate(timeout=patience(60))
    assert proc.returncode == 0, (first + rest, err)
    return first + rest


def test_every_example_of_the_human_seat_page_runs(tmp_path: Path) -> None:
    """docs/human.md: each ```sh block runs in order in one folder; a block that plays a human
    seat is played to the end through its page's address."""
    text = (ROOT / "docs" / "human.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) >= 4
    played = 0
    for block in blocks:
        proc = subprocess.Popen(["bash", "-euo", "pipefail", "-c", block], cwd=tmp_path,
                                env=tourney_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        if re.search(r"tourney play .*\bhuman\b", block):
            out = finish(proc, choose=random.Random(played).choice)
            assert "stored in" in out
            played += 1
        else:
            out, err = proc.communicate(timeout=patience(120))
            assert proc.returncode == 0, (block, out, err)
    assert played == 3
    for folder in ("battleline", "battleline-rules=schotten-totten"):
        assert load_config(tmp_path / "results" / "human" / folder).kind == "human"
    assert load_config(tmp_path / "results" / "mine").game == "warchest"
    assert (tmp_path / "human.html").stat().st_size > 0


def test_interrupting_a_local_game_stores_nothing(tmp_path: Path) -> None:
    local = serve_local(game="battleline", variant={}, bots=[GREEDY], human=1,
                        store=tmp_path / "h", user="me", seed=3)
    stopper = threading.Timer(0.5, local.stop)
    stopper.start()
    session = local.wait(linger=0)
    stopper.join()
    assert session.cancelled and not session.stored
    assert load_games([tmp_path / "h"]).games.num_rows == 0
