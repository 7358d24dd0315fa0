"""The human seat (harness/serve/human.py) on the competition server, driven through the
application exactly as `tourney serve` assembles it (tests/serve/conftest.py's make_site),
logged in through the real login: a person plays an entrant's bot, sees only their own view,
can make only legal moves in turn, sends the session's CSRF token with every change, does not
choose the deal, and the game is stored apart; a game nobody plays costs no bot process and is
abandoned after the first-move limit. Then the local server of `tourney play GAME human BOT`
and docs/human.md's examples."""

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from games import registry
from harness.bots import sandbox
from harness.figures.report import find_game, replay_html
from harness.figures.report.frames import replay_frames
from harness.league import schedule
from harness.league.folder import load_config
from harness.league.store import load_games
from harness.records import BotRef, Termination
from harness.serve.human import (
    HumanGames,
    SeatRules,
    default_store,
    serve_local,
)
from tests.patience import patience
from tests.serve.conftest import Site, close_site, make_site

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note that it will prefer another client
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
GREEDY = BotRef("greedy", "greedy")
BOT = "bob.v1"  # the entrant's bot people play in these tests


@dataclass
class Player:
    """A person logged in to the competition through its login page, in a browser of their
    own: their client and their session's CSRF token."""

    name: str
    client: TestClient
    csrf: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-CSRF-Token": self.csrf}

    def get(self, path: str) -> Any:
        return self.client.get(path)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        """A change as the page's script sends it: JSON with the session's CSRF header."""
        return self.client.post(path, json=body if body is not None else {},
                                headers=self.headers, **kwargs)

    def state(self, sid: str) -> dict[str, Any]:
        r = self.get(f"/play/g/{sid}/state")
        assert r.status_code == 200, r.text
        found: dict[str, Any] = r.json()
        return found


@dataclass
class Seat:
    """A competition with an entrant's bot to play (``bob.v1``), and ways to log people in."""

    site: Site
    clients: list[TestClient]

    def player(self, name: str) -> Player:
        token = self.site.add(name)
        client = self.site.browser()
        self.clients.append(client)
        return Player(name, client, self.site.login(token, client))

    @property
    def folder(self) -> Path:
        return self.site.folder / "human"


def open_seat(folder: Path, bot: str = "first.py", game: str = "battleline",
              rules: SeatRules | None = None, variants: tuple[str, ...] = ()) -> Seat:
    site = make_site(folder, game=game, seat=rules, variants=variants)
    made = site.send(site.add("bob"), bot)
    assert made["bot"] == BOT
    return Seat(site, [])


@pytest.fixture
def make_seat(tmp_path: Path) -> Iterator[Callable[..., Seat]]:
    """Competitions with a bot to play; every game is interrupted at the end."""
    made: list[Seat] = []

    def make(**kwargs: Any) -> Seat:
        seat = open_seat(tmp_path / f"contest{len(made)}", **kwargs)
        made.append(seat)
        return seat

    yield make
    for seat in made:
        for client in seat.clients:
            client.close()
        close_site(seat.site)


def new_game(player: Player, **body: Any) -> str:
    r = player.post("/play/new", {"bot": BOT, "seat": 0, **body})
    assert r.status_code == 201, r.text
    sid: str = r.json()["id"]
    assert r.json()["url"] == f"/play/g/{sid}"
    return sid


def play_out(player: Player, sid: str, choose: Callable[[list[str]], str] = lambda legal:
             legal[0], seen: list[dict[str, Any]] | None = None, limit: float = 60
             ) -> dict[str, Any]:
    """Play the human's moves until the game is over; returns the final state."""
    deadline = time.monotonic() + patience(limit)
    while time.monotonic() < deadline:
        state = player.state(sid)
        if seen is not None:
            seen.append(state)
        if state["over"]:
            return state
        if state["your_turn"]:
            r = player.post(f"/play/g/{sid}/move", {"action": choose(state["legal"])})
            assert r.status_code == 200, r.text
        else:
            time.sleep(0.005)
    raise AssertionError("the game did not end")


def wait_for(player: Player, sid: str, test: Callable[[dict[str, Any]], bool],
             limit: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + patience(limit)
    while time.monotonic() < deadline:
        state = player.state(sid)
        if test(state):
            return state
        time.sleep(0.01)
    raise AssertionError("the state never came")


def running_children() -> set[int]:
    """This process's sandboxed bots that are running (started, not yet closed): the human
    seat plays in this process, and its bots' processes come from its start-up server."""
    return sandbox.running_bots()


def wait_children(test: Callable[[set[int]], bool], limit: float = 20) -> set[int]:
    deadline = time.monotonic() + patience(limit)
    while time.monotonic() < deadline:
        found = running_children()
        if test(found):
            return found
        time.sleep(0.05)
    raise AssertionError(f"the bots' processes never came to that: {running_children()}")


def csp_scripts(response: Any) -> str:
    policy: str = response.headers["content-security-policy"]
    scripts = re.search(r"script-src ([^;]*)", policy)
    assert scripts is not None, policy
    return scripts.group(1)


# ----------------------------------------------------------------------------- the server


def test_the_human_seat_answers_on_the_server_as_tourney_serve_builds_it(
        make_seat: Callable[..., Seat]) -> None:
    """The /play pages through the assembled app (they answered 500 to everyone when the seat
    was a mounted application of its own)."""
    seat = make_seat()
    anonymous = seat.site.browser()
    seat.clients.append(anonymous)
    r = anonymous.get("/play/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"
    r = anonymous.get("/play/g/0123456789abcdef/state")
    assert r.status_code == 401 and "log in first" in r.json()["error"]
    alice = seat.player("alice")
    r = alice.get("/play")  # the address without its slash leads there too
    assert r.status_code == 200 and r.url.path == "/play/"
    form = alice.get("/play/")
    assert form.status_code == 200 and f'<option value="{BOT}">' in form.text
    assert f'<meta name="csrf-token" content="{alice.csrf}">' in form.text
    assert 'name="seed"' not in form.text  # the server deals
    assert "dealt by the server" in form.text
    assert "first move" in form.text and "within 3 minutes" in " ".join(form.text.split())
    # no inline script: the page's scripts come from the site, by address
    assert "unsafe-inline" not in csp_scripts(form) and "'self'" in csp_scripts(form)
    sid = new_game(alice, seat=1)
    page = alice.get(f"/play/g/{sid}")
    assert page.status_code == 200 and "unsafe-inline" not in csp_scripts(page)
    scripts = re.findall(r"<script([^>]*)>", page.text)
    assert scripts and all(re.search(r'src="/static/[\w/]+\.js"', s) or "application/json" in s
                           for s in scripts), scripts
    for src in re.findall(r'<script src="([^"]+)"', page.text):
        assert alice.get(src).status_code == 200, src
    meta = json.loads(re.search(r'id="human-data">(.*?)</script>', page.text, re.S)
                      .group(1))  # type: ignore[union-attr]
    assert meta["state_url"] == f"/play/g/{sid}/state"
    assert alice.get(meta["state_url"]).json()["seats"] == [BOT, "human:alice"]
    assert f'href="/play/g/{sid}"' in alice.get("/play/").text


def test_a_human_plays_a_bot_to_the_end_and_the_game_is_stored_apart(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    alice = seat.player("alice")
    sid = new_game(alice, seat=1)
    final = play_out(alice, sid, choose=random.Random(2).choice)
    result = final["result"]
    assert final["over"] and not final["your_turn"] and final["legal"] == []
    assert final["seats"] == [BOT, "human:alice"] and final["human"] == 1
    # (the deal is the server's: a game may also end with nobody able to move)
    assert result["termination"] in ("normal", "stalemate") and result["text"]
    assert result["replay"] == f"/play/g/{sid}/replay"

    config = load_config(seat.folder)
    assert config.kind == "human" and config.game == "battleline"
    assert [b.name for b in config.bots] == [BOT, "human:alice"]
    stored = find_game(seat.folder, result["game_id"])
    assert stored.row["bots"] == [BOT, "human:alice"] and stored.row["league"] == "human"
    # the human's moves are the stored moves of seat 1, as played
    mine = [m["action"] for m in stored.moves if m["seat"] == 1]
    assert mine == [a for s, a, auto in final["history"] if s == 1 and not auto]
    # the replay: the ordinary viewer, its scripts from the site (no inline script)
    page = alice.get(f"/play/g/{sid}/replay")
    assert page.status_code == 200 and result["game_id"] in page.text
    assert csp_scripts(page) == "'self'"
    assert '<script src="/static/report/replay.js">' in page.text
    assert "human:alice" in replay_html(stored)


def test_the_server_deals_from_the_leagues_key_and_shows_the_seed_at_the_end(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    alice = seat.player("alice")
    r = alice.post("/play/new", {"bot": BOT, "seat": 0, "seed": 7})
    assert r.status_code == 400 and "dealt from the competition's secret key" in r.json()["error"]
    key = seat.site.competition.config.key_bytes
    assert key is not None
    seeds = []
    for _ in range(2):
        sid = new_game(alice, seat=0)
        during = alice.state(sid)
        page = alice.get(f"/play/g/{sid}")
        final = play_out(alice, sid)
        game_id = final["result"]["game_id"]
        seed = find_game(seat.folder, game_id).row["seed"]
        assert seed == schedule.keyed_seed(key, "human-deal", game_id)
        assert final["result"]["seed"] == str(seed)  # revealed once over (as text: 62 bits)
        assert during["result"] is None and str(seed) not in json.dumps(during)
        assert str(seed) not in page.text
        seeds.append(seed)
    assert seeds[0] != seeds[1]


def test_the_state_shows_the_humans_view_never_the_bots_hand(
        make_seat: Callable[..., Seat]) -> None:
    """Every state the human got during a game of Battle Line, checked against the true
    position at that decision: no card of the bot's hand the human may not know appears."""
    seat = make_seat(bot="random_pick.py")
    alice = seat.player("alice")
    sid = new_game(alice, seat=0)
    seen: list[dict[str, Any]] = []
    rng = random.Random(3)
    final = play_out(alice, sid, choose=rng.choice, seen=seen)
    stored = find_game(seat.folder, final["result"]["game_id"])
    moves = [m["action"] for m in stored.moves]
    engine = registry.get("battleline")
    checked = 0
    for state in seen:
        view = state["view"]
        if view is None or state["over"]:
            continue
        truth = engine.new_game(stored.row["seed"])
        for action in moves[:view["decisions"]]:
            truth.apply(action)
        mine = truth.observation(0)
        assert view == engine.info.seat_view(mine)  # exactly the human's observation
        assert isinstance(view["hands"][1], int) and view["hands"][0] == mine["hand"]
        hidden = set(truth.observation(1)["hand"]) - set(mine["opponent_known"])
        text = json.dumps(state)
        # (a card's name, not the name of a key such as a flag's "mud")
        leaked = [card for card in hidden if re.search(rf'\b{card}\b(?!":)', text)]
        assert not leaked, (view["decisions"], leaked)
        checked += 1
    assert checked >= 20


def test_war_chest_is_playable_and_the_bots_face_down_coins_stay_hidden(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat(game="warchest", bot="random_pick.py")
    alice = seat.player("alice")
    sid = new_game(alice, seat=1)
    seen: list[dict[str, Any]] = []
    final = play_out(alice, sid, choose=random.Random(1).choice, seen=seen, limit=120)
    assert final["result"]["termination"] in ("normal", "stalemate", "move_cap")
    for state in seen:
        view = state["view"]
        if view is not None:
            assert isinstance(view["hands"][0], int) and isinstance(view["facedowns"][0], int)
            assert isinstance(view["hands"][1], dict)  # coin -> count
            assert "hand" not in view and "facedown" not in view
    stored = find_game(seat.folder, final["result"]["game_id"])
    face_down = ("initiative", "recruit", "pass")
    bots_hidden = [m["action"] for m in stored.moves
                   if m["seat"] == 0 and m["action"].split()[1:2] and
                   m["action"].split()[1] in face_down]
    assert bots_hidden, "the bot made no face-down payment in this game"
    public = [a for s, a, _ in final["history"] if s == 0]
    assert all(not any(a == h for a in public) for h in bots_hidden)
    assert sum(a.startswith("? ") for a in public) == len(bots_hidden)


# ----------------------------------------------------------------------------- moves


def test_a_move_is_refused_unless_it_is_legal_and_the_humans_turn(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    alice = seat.player("alice")
    # the bot moves first, and has not started: nobody looked at the game yet
    sid = new_game(alice, seat=1)
    move = f"/play/g/{sid}/move"
    r = alice.post(move, {"action": "play r1 1"})
    assert r.status_code == 400 and "not your turn" in r.json()["error"]
    state = wait_for(alice, sid, lambda s: s["your_turn"])
    r = alice.post(move, {"action": "play x99 12"})
    assert r.status_code == 400 and "'play x99 12' is not a legal move now" in r.json()["error"]
    r = alice.post(move, {"nothing": 1})
    assert r.status_code == 400 and "action string" in r.json()["error"]
    r = alice.post(move, {"action": state["legal"][0]})
    assert r.status_code == 200
    drawing = wait_for(alice, sid, lambda s: s["your_turn"])  # then the human draws
    assert all(a.startswith("draw ") for a in drawing["legal"])
    # a form post works too, with the form's CSRF field
    r = alice.client.post(move, data={"action": drawing["legal"][0], "csrf": alice.csrf})
    assert r.status_code == 200, r.text


def test_every_change_needs_the_sessions_csrf_token(make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    alice = seat.player("alice")
    body = {"bot": BOT, "seat": 0}
    for headers in ({}, {"X-CSRF-Token": "forged"}):
        r = alice.client.post("/play/new", json=body, headers=headers)
        assert r.status_code == 403 and "CSRF" in r.json()["error"], r.text
    r = alice.client.post("/play/new", data={"bot": BOT, "seat": "0"},
                          follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text and "<html" in r.text
    r = alice.client.post("/play/new", data={**body, "csrf": alice.csrf},
                          follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/play/g/")
    sid = r.headers["location"].rsplit("/", 1)[1]
    state = alice.state(sid)
    assert state["your_turn"]
    for path, data in ((f"/play/g/{sid}/move", {"action": state["legal"][0]}),
                       (f"/play/g/{sid}/resign", {})):
        r = alice.client.post(path, json=data)
        assert r.status_code == 403 and "CSRF" in r.json()["error"]
        r = alice.client.post(path, json=data, headers={**alice.headers,
                                                        "Origin": "https://evil.example"})
        assert r.status_code == 403
    assert alice.state(sid)["your_turn"] and not alice.state(sid)["over"]  # nothing changed
    # a script with the entrant's token (no cookie to ride on) needs no CSRF token
    token = seat.site.add("dave")
    r = seat.site.client.post("/play/new", json=body, headers=seat.site.bearer(token))
    assert r.status_code == 201, r.text


def test_a_resigned_game_is_stored_as_a_resignation(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    alice = seat.player("alice")
    sid = new_game(alice, seat=1)
    wait_for(alice, sid, lambda s: s["your_turn"])
    assert alice.post(f"/play/g/{sid}/resign").status_code == 200
    final = wait_for(alice, sid, lambda s: s["over"])
    assert final["result"]["winners"] == [0]
    assert final["result"]["reason"] == "seat 1 (human:alice) resigned"
    r = alice.post(f"/play/g/{sid}/move", {"action": "done"})
    assert r.status_code == 400 and "the game is over" in r.json()["error"]
    row = find_game(seat.folder, final["result"]["game_id"]).row
    # stored as what it is, a resignation (a loss for the human), not as a crash of a bot
    assert row["termination"] == Termination.RESIGNED.value == "resigned"
    assert row["reason"].endswith("resigned") and row["offender"] == 1 and row["rated"]
    assert final["result"]["termination"] == "resigned"
    assert "resigns" in final["result"]["text"] and "forfeits" not in final["result"]["text"]


def test_an_idle_human_forfeits_and_the_sandboxed_bot_is_closed(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat(rules=SeatRules(idle_seconds=1.0))
    before = running_children()
    alice = seat.player("alice")
    sid = new_game(alice, seat=1)
    state = wait_for(alice, sid, lambda s: s["your_turn"], limit=30)
    assert running_children() - before, "the sandboxed bot runs in a process of its own"
    assert alice.post(f"/play/g/{sid}/move", {"action": state["legal"][0]}).status_code == 200
    final = wait_for(alice, sid, lambda s: s["over"], limit=30)
    assert final["result"]["reason"] == "seat 1 (human:alice) left the game (no move for " \
                                        "1 second)"
    assert final["result"]["replay"]  # stored
    wait_children(lambda now: not now - before)


# ----------------------------------------------------------------------------- games nobody plays


def test_the_bot_starts_only_with_the_first_move_or_when_it_must_move_first(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    before = running_children()
    alice = seat.player("alice")
    mine = new_game(alice, seat=0)  # the human moves first
    theirs = new_game(alice, seat=1)  # the bot moves first
    state = alice.state(mine)
    assert state["your_turn"] and state["legal"]  # the deal and the first moves, no bot yet
    assert alice.get(f"/play/g/{mine}").status_code == 200
    assert not running_children() - before, "a bot started before anyone moved"
    assert alice.post(f"/play/g/{mine}/move", {"action": state["legal"][0]}).status_code == 200
    one = wait_children(lambda now: len(now - before) >= 1)
    assert alice.get(f"/play/g/{theirs}").status_code == 200  # its page opened: the bot plays
    wait_children(lambda now: len(now - before) > len(one - before))
    assert wait_for(alice, theirs, lambda s: s["your_turn"])["view"]["decisions"] > 0


def test_a_game_without_a_first_move_is_abandoned_and_frees_its_place(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat(rules=SeatRules(first_move_seconds=1.0, per_user=1))
    before = running_children()
    alice = seat.player("alice")
    untouched = new_game(alice, seat=0)  # never looked at, never played: no bot ever starts
    r = alice.post("/play/new", {"bot": BOT, "seat": 0})
    assert r.status_code == 429 and "1 games in progress" in r.json()["error"]
    final = wait_for(alice, untouched, lambda s: s["over"])
    assert "abandoned: no first move within 1 second" in final["result"]["text"]
    assert not final["result"]["replay"]
    assert not running_children() - before
    looked = new_game(alice, seat=1)  # the place is free again; its bot moves first
    wait_for(alice, looked, lambda s: s["your_turn"])
    assert running_children() - before
    final = wait_for(alice, looked, lambda s: s["over"])
    assert "abandoned" in final["result"]["text"] and not final["result"]["replay"]
    wait_children(lambda now: not now - before)  # its bot closed
    assert not (seat.folder / "games").exists() or \
        load_games([seat.folder]).games.num_rows == 0  # nothing stored
    new_game(alice, seat=0)


# ----------------------------------------------------------------------------- who may do what


def test_a_game_is_its_owners_alone_and_anonymous_users_are_refused(
        make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    alice, carol = seat.player("alice"), seat.player("carol")
    sid = new_game(alice, seat=0)
    for path in (f"/play/g/{sid}", f"/play/g/{sid}/state", f"/play/g/{sid}/replay"):
        assert carol.get(path).status_code == 404
    r = carol.post(f"/play/g/{sid}/move", {"action": "pass"})
    assert r.status_code == 404 and "no such game" in r.json()["error"]
    assert carol.post(f"/play/g/{sid}/resign").status_code == 404
    anonymous = seat.site.browser()
    seat.clients.append(anonymous)
    assert anonymous.get(f"/play/g/{sid}/state").status_code == 401
    r = anonymous.post("/play/new", json={"bot": BOT, "seat": 0})
    assert r.status_code == 401 and "log in" in r.json()["error"]
    assert alice.get("/play/g/0123456789abcdef/state").status_code == 404
    assert not alice.state(sid)["over"]


def test_live_games_are_limited_per_user_and_overall(make_seat: Callable[..., Seat]) -> None:
    seat = make_seat(rules=SeatRules(per_user=2, overall=3))
    alice, bob, carol = seat.player("alice"), seat.player("bobby"), seat.player("carol")
    new_game(alice, seat=1)
    new_game(alice, seat=1)
    r = alice.post("/play/new", {"bot": BOT, "seat": 1})
    assert r.status_code == 429 and "2 games in progress" in r.json()["error"]
    assert r.headers["retry-after"]
    bobs = new_game(bob, seat=1)
    r = carol.post("/play/new", {"bot": BOT, "seat": 1})
    assert r.status_code == 429 and "the server's limit" in r.json()["error"]
    bob.post(f"/play/g/{bobs}/resign")
    wait_for(bob, bobs, lambda s: s["over"])
    new_game(carol, seat=1)


def test_bad_requests_for_a_new_game_say_what_is_wrong(make_seat: Callable[..., Seat]) -> None:
    seat = make_seat()
    alice = seat.player("alice")
    cases = [({"bot": "nobody", "seat": 0}, "there is no bot 'nobody'"),
             ({"bot": BOT, "seat": 5}, "seat 5 does not exist"),
             ({"bot": BOT, "seat": "x"}, "the seat must be a whole number"),
             ({"bot": BOT, "seat": 0, "seed": "-3"}, "the seed must be a whole number"),
             ({"bot": BOT, "seat": 0, "seed": 3}, "leave out the seed")]
    for body, message in cases:
        r = alice.post("/play/new", body)
        assert r.status_code == 400 and message in r.json()["error"], (body, r.text)
    page = alice.client.post("/play/new", data={"bot": "nobody", "seat": "0",
                                                "csrf": alice.csrf})
    assert page.status_code == 400 and "there is no bot" in page.text
    assert "<html" in page.text and "Log out alice" in page.text  # the site's own page


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
    from harness.figures.report.frames import json_patch

    state = engine.new_game(21)
    frames = [rebuilt.views[1 + s]["first"] for s in range(state.num_players)]
    for k, action in enumerate([*actions, None]):
        for seat in range(state.num_players):
            assert engine.info.seat_view(state.observation(seat)) == frames[seat]
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
        games.start(first)
        assert first.done.wait(patience(20))
        again = games.create("alice", [BotRef("mine", "greedy", "b" * 64)], 0, seed=1)
        assert [r.name for r in again.seats] == ["human:alice", "mine@bbbbbbb"]
        again.leave("resigned")
        games.start(again)
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


def test_three_player_battle_line_seats_the_bot_twice(tmp_path: Path) -> None:
    local = serve_local(game="battleline", variant={"players": "3"}, bots=[GREEDY, GREEDY],
                        human=2, store=tmp_path / "h", user="me", seed=3)
    try:
        final = drive(local.url, limit=120)
    finally:
        local.wait(linger=patience(5))
    assert final["seats"] == ["greedy", "greedy#1", "human:me"]
    assert final["view"]["hands"][2] and all(isinstance(final["view"]["hands"][s], int)
                                             for s in (0, 1))


def test_interrupting_a_local_game_stores_nothing(tmp_path: Path) -> None:
    local = serve_local(game="battleline", variant={}, bots=[GREEDY], human=1,
                        store=tmp_path / "h", user="me", seed=3)
    stopper = threading.Timer(0.5, local.stop)
    stopper.start()
    session = local.wait(linger=0)
    stopper.join()
    assert session.cancelled and not session.stored
    assert load_games([tmp_path / "h"]).games.num_rows == 0
