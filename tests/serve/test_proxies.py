"""Who a client is, and the limits on logins and sign-ups that hang on it (issue 45, point 4).

A client is the address it connects from; ``X-Forwarded-For`` counts only from a proxy the
organiser named with ``--trusted-proxy`` (loopback included: by default no proxy is trusted).
Only wrong tokens count against an address, and a competition code admits a limited number of
sign-ups an hour, whatever addresses they come from. Tested through the app as `tourney serve`
assembles it, and through the real command."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from harness.serve.app import create_app
from tests.serve.conftest import Site, start_server

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

LOOPBACK = ("127.0.0.1", 40000)


def client(site: Site, *proxies: str) -> TestClient:
    """The competition's app as `tourney serve --trusted-proxy ...` builds it, reached from
    loopback (a local TCP hop)."""
    return TestClient(create_app(site.competition, trusted_proxies=list(proxies)),
                      base_url="http://testserver", client=LOOPBACK)


@pytest.fixture
def open_signup(site: Site) -> Iterator[Site]:
    site.competition.update_settings({"signup_code": "club-2026-spring", "signup": "on",
                                      "signups_per_hour": 3})
    yield site


def wrong_logins(c: TestClient, count: int, *, rotate: bool) -> list[int]:
    return [c.post("/login", data={"token": f"tny_guess{i}"}, follow_redirects=False,
                   headers={"X-Forwarded-For": f"203.0.113.{i if rotate else 200}"}).status_code
            for i in range(count)]


def test_a_forwarded_address_from_loopback_is_ignored_by_default(site: Site) -> None:
    with client(site) as c:
        assert wrong_logins(c, 12, rotate=True) == [401] * 10 + [429] * 2


def test_a_trusted_proxy_names_the_client(site: Site) -> None:
    with client(site, "127.0.0.1") as c:
        assert wrong_logins(c, 12, rotate=True) == [401] * 12  # twelve clients, one try each
        assert wrong_logins(c, 12, rotate=False) == [401] * 10 + [429] * 2  # one client
    with client(site, "10.0.0.0/8") as c:  # loopback is not that proxy
        assert wrong_logins(c, 12, rotate=True) == [401] * 10 + [429] * 2


def test_valid_logins_never_use_up_the_limit(site: Site) -> None:
    alice = site.add("alice")
    with client(site) as c:
        for _ in range(20):
            r = c.post("/login", data={"token": alice}, follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"] == "/me"
        assert wrong_logins(c, 11, rotate=False) == [401] * 10 + [429]
        r = c.post("/login", data={"token": alice}, follow_redirects=False)
        assert r.status_code == 303  # nobody sharing the address can lock alice out
        assert c.get("/api/me", headers={"Authorization": "Bearer tny_nope"}).status_code == 429
        assert c.get("/api/me", headers={"Authorization": f"Bearer {alice}"}).status_code == 200


def test_a_code_admits_so_many_sign_ups_an_hour(open_signup: Site) -> None:
    site = open_signup
    with client(site, "127.0.0.1") as c:
        codes = [c.post("/signup", data={"name": f"pupil{i}", "code": "club-2026-spring"},
                        headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code
                 for i in range(5)]
        assert codes == [200] * 3 + [429] * 2, codes
        r = c.post("/signup", data={"name": "late", "code": "club-2026-spring"},
                   headers={"X-Forwarded-For": "198.51.100.99"})
        assert r.status_code == 429 and "competition code has admitted its sign-ups" in r.text
        # a new code is a new hour's worth
        site.competition.update_settings({"signup_code": "club-2026-summer"})
        r = c.post("/signup", data={"name": "late", "code": "club-2026-summer"},
                   headers={"X-Forwarded-For": "198.51.100.99"})
        assert r.status_code == 200 and "tny_" in r.text
    names = [e["name"] for e in site.competition.entrants()]
    assert sorted(names) == ["late", "pupil0", "pupil1", "pupil2"]


def test_wrong_codes_lock_out_the_address_not_the_code(open_signup: Site) -> None:
    site = open_signup
    with client(site, "127.0.0.1") as c:
        guesses = [c.post("/signup", data={"name": "mallory", "code": f"guess-{i:04d}"},
                          headers={"X-Forwarded-For": "192.0.2.66"}).status_code
                   for i in range(11)]
        assert guesses == [403] * 10 + [429]
        # the guesser's address waits even with the right code: codes can be guessed
        r = c.post("/signup", data={"name": "mallory", "code": "club-2026-spring"},
                   headers={"X-Forwarded-For": "192.0.2.66"})
        assert r.status_code == 429
        r = c.post("/signup", data={"name": "dora", "code": "club-2026-spring"},
                   headers={"X-Forwarded-For": "192.0.2.7"})
        assert r.status_code == 200


def cli_wrong_logins(url: str, count: int) -> list[int]:
    with httpx.Client(base_url=url, timeout=30) as c:
        return [c.post("/login", data={"token": f"tny_guess{i}"},
                       headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
                for i in range(count)]


def test_the_command_trusts_only_the_proxy_it_is_given(tmp_path: Path) -> None:
    served = start_server(tmp_path / "open", "--game", "battleline")
    try:
        assert cli_wrong_logins(served.url, 12) == [401] * 10 + [429] * 2
    finally:
        served.stop()
    served = start_server(tmp_path / "proxied", "--game", "battleline",
                          "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1")
    try:
        assert "trusting X-Forwarded-For from 127.0.0.1, ::1 only" in \
            served.output.read_text()
        assert cli_wrong_logins(served.url, 12) == [401] * 12
    finally:
        served.stop()
