"""Attacks on `tourney serve`: entrants are strangers on a network. Each protection the server
claims is attacked here through the real app: sessions and CSRF, another site's forms, uploads
larger than allowed (and lying about it), hostile zip archives, login floods, hostile text in
names, file names, bot output and failure reasons, and paths in URLs."""

from __future__ import annotations

import io
import re
import stat
import struct
import zipfile
from collections.abc import Iterator, Sequence

import pytest

from harness.arena.registry import Registry
from tests.serve.conftest import Site


def login(site: Site, token: str) -> str:
    """Log in through the form; returns the page's CSRF token."""
    r = site.client.post("/login", data={"token": token}, follow_redirects=False)
    assert r.status_code == 303, r.text
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    page = site.client.get(r.headers["location"])
    found = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert found, page.text
    return found.group(1)


def nothing_stored(site: Site) -> None:
    with Registry.open(site.folder) as registry:
        assert registry.versions() == []
    uploads = site.folder / "uploads"
    assert not uploads.exists() or not any(uploads.iterdir())
    bots = site.folder / "bots"
    assert not bots.exists() or not any(p for p in bots.rglob("*") if p.is_file())


def test_a_form_without_the_sessions_csrf_token_is_refused(site: Site) -> None:
    alice = site.add("alice")
    csrf = login(site, alice)
    bot = ("first.py", b"def act(o, l):\n    return l[0]\n")
    r = site.client.post("/me/submit", files={"bot": bot}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF" in r.text
    r = site.client.post("/me/submit", files={"bot": bot}, data={"csrf": "forged"},
                         follow_redirects=False)
    assert r.status_code == 403
    nothing_stored(site)
    r = site.client.post("/me/submit", files={"bot": bot}, data={"csrf": csrf},
                         follow_redirects=False)
    assert r.status_code == 303
    site.settle()
    page = site.client.get("/me")
    assert "first.py" in page.text and "status-active" in page.text


def test_a_change_from_another_site_is_refused(site: Site) -> None:
    org_csrf = login(site, site.organiser)
    r = site.client.post("/admin/entrants", data={"name": "mallory", "csrf": org_csrf},
                         headers={"Origin": "http://evil.example"}, follow_redirects=False)
    assert r.status_code == 403
    r = site.client.post("/admin/entrants", data={"name": "mallory", "csrf": org_csrf},
                         headers={"Origin": "null"}, follow_redirects=False)
    assert r.status_code == 403
    r = site.client.post("/admin/entrants", data={"name": "mallory"}, follow_redirects=False)
    assert r.status_code == 403  # same site, but no CSRF token
    assert site.competition.entrants() == []
    r = site.client.post("/admin/entrants", data={"name": "mallory", "csrf": org_csrf},
                         headers={"Origin": "http://testserver"})
    assert r.status_code == 200 and "tny_" in r.text  # the token page
    assert [e["name"] for e in site.competition.entrants()] == ["mallory"]


def test_an_oversized_upload_is_cut_off_while_it_is_read(site: Site) -> None:
    alice = site.add("alice")
    limit = 4 << 20
    sent = 0

    def body() -> Iterator[bytes]:  # no Content-Length: the server must count
        nonlocal sent
        yield b"--b\r\nContent-Disposition: form-data; name=\"bot\"; filename=\"x.py\"\r\n\r\n"
        for _ in range(200):  # 12.5 MB if read to the end
            sent += 1 << 16
            yield b"#" * (1 << 16)
        yield b"\r\n--b--\r\n"

    r = site.client.post("/api/submissions", content=body(), headers={
        **site.bearer(alice), "Content-Type": "multipart/form-data; boundary=b"})
    assert r.status_code == 413 and "4 MB" in r.json()["error"]
    # a claimed Content-Length over the limit is refused before the body is read
    r = site.client.post("/api/submissions", content=b"x" * 100, headers={
        **site.bearer(alice), "Content-Type": "multipart/form-data; boundary=b",
        "Content-Length": str(limit + (1 << 20))})
    assert r.status_code == 413
    # anything but an upload takes a small body only
    r = site.client.post("/api/admin/entrants", content=b"{" + b" " * (100 << 10) + b"}",
                         headers={**site.bearer(site.organiser),
                                  "Content-Type": "application/json"})
    assert r.status_code == 413
    nothing_stored(site)


def _zip(entries: Sequence[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in entries:
            out.writestr(info, data)
    return buffer.getvalue()


def _info(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


BOT = b"def act(o, l):\n    return l[0]\n"


def _lying() -> bytes:
    """A member that declares 40 bytes and holds 2 MB (its sizes patched in both headers)."""
    data = bytearray(_zip([("bot/bot.py", BOT + b"#" * (2 << 20))]))
    real = len(BOT) + (2 << 20)
    packed = struct.pack("<I", real)
    for at in [m.start() for m in re.finditer(re.escape(packed), bytes(data))]:
        data[at:at + 4] = struct.pack("<I", 40)
    return bytes(data)


def _encrypted() -> bytes:
    data = bytearray(_zip([("bot/bot.py", BOT)]))
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        at = data.find(sig)
        flag_at = at + (6 if sig == b"PK\x03\x04" else 8)
        data[flag_at] |= 1
    return bytes(data)


def _unknown_method() -> bytes:
    """A member stored with a compression method zipfile cannot decompress (98, PPMd)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as out:
        out.writestr("bot/bot.py", BOT)
    data = bytearray(buffer.getvalue())
    for sig, at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        where = data.find(sig) + at
        data[where:where + 2] = struct.pack("<H", 98)
    return bytes(data)


HOSTILE_ZIPS = {
    "a parent path": (_zip([("../evil.py", BOT), ("bot/bot.py", BOT)]), 422, "outside"),
    "an absolute path": (_zip([("/etc/cron.d/evil", BOT)]), 422, "absolute"),
    "a Windows path": (_zip([("bot\\..\\..\\evil.py", BOT)]), 422, "Windows"),
    "a symbolic link": (_zip([(_info("bot/link.py", stat.S_IFLNK | 0o777), b"/etc/passwd"),
                              ("bot/bot.py", BOT)]), 422, "symbolic link"),
    "a device file": (_zip([(_info("bot/dev", stat.S_IFCHR | 0o644), b""),
                            ("bot/bot.py", BOT)]), 422, "device"),
    "a decompression bomb": (_zip([("bot/bot.py", BOT), ("bot/zeros.txt", b"\0" * (40 << 20))]),
                             413, "decompression bomb"),
    # members of 1 MB each (below the bomb check's size), 70 MB in all
    "too much unpacked": (_zip([("bot/bot.py", BOT)] + [(f"bot/f{i}.txt", b"\0" * (1 << 20))
                                                        for i in range(70)]),
                          413, "unpacks to more than"),
    "too many files": (_zip([("bot/bot.py", BOT)] + [(f"bot/f{i}", b"") for i in range(2001)]),
                       413, "entries"),
    "a name twice": (_zip([("bot/bot.py", BOT), ("bot/BOT.py", BOT)]), 422, "twice"),
    "a file used as a folder": (_zip([("bot/x", b"1"), ("bot/x/y.py", BOT)]), 422,
                                "as a file and as a folder"),
    "a lying size": (_lying(), 422, "cannot be unpacked"),
    "an encrypted member": (_encrypted(), 422, "encrypted"),
    "an unknown compression method": (_unknown_method(), 422, "cannot be unpacked"),
    "a name with a template": (_zip([("bot/{{7*7}}.py", BOT)]), 422, "does not accept"),
    # (1,500 folders deep once answered 500 and wrote 2.3 MB of traceback to the log)
    "a member 1,500 folders deep": (_zip([("bot/bot.py", BOT),
                                          ("/".join(["d"] * 1500) + "/x.py", BOT)]),
                                    422, "a path of 3004 characters"),
    "a member 33 folders deep": (_zip([("bot/bot.py", BOT), ("/".join(["d"] * 33) + "/x.py",
                                                             BOT)]), 422, "over the 32 allowed"),
    "a path too long": (_zip([("bot/bot.py", BOT), ("/".join(["d" * 99] * 6), BOT)]), 422,
                        "a path of 599 characters, over the 512 allowed"),
}


@pytest.mark.parametrize("attack", sorted(HOSTILE_ZIPS))
def test_a_hostile_zip_is_refused_before_anything_is_written(site: Site, attack: str) -> None:
    data, status, words = HOSTILE_ZIPS[attack]
    alice = site.add("alice")
    r = site.upload(alice, "bot.zip", data)
    assert r.status_code == status, (attack, r.text)
    assert words in r.json()["error"], (attack, r.json())
    nothing_stored(site)
    assert not list(site.folder.parent.glob("evil*")) and not (site.folder / "evil.py").exists()


def test_a_good_zip_of_a_bot_directory_plays(site: Site) -> None:
    alice = site.add("alice")
    data = _zip([("mybot/bot.py", b"from helper import pick\n\ndef act(o, l):\n"
                                  b"    return pick(l)\n"),
                 ("mybot/helper.py", b"def pick(l):\n    return l[-1]\n"),
                 (_info("mybot/", stat.S_IFDIR | 0o755), b"")])
    r = site.upload(alice, "mybot.zip", data)
    assert r.status_code == 202, r.text
    site.settle()
    sub = site.client.get("/api/submissions/alice.v1", headers=site.bearer(alice)).json()
    assert sub["status"] == "active", sub
    kept = site.folder / "uploads" / f"{r.json()['sha256']}.zip"
    assert kept.read_bytes() == data  # stored by content hash


def test_logins_are_rate_limited(site: Site) -> None:
    alice = site.add("alice")
    codes = [site.client.post("/login", data={"token": f"tny_guess{i}"},
                              follow_redirects=False).status_code for i in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429]
    r = site.client.post("/login", data={"token": f"tny_guess{12}"}, follow_redirects=False)
    assert r.status_code == 429 and "Retry-After" in r.headers
    # the right token still logs in: a token cannot be guessed (256 bits), and refusing it would
    # let whoever shares the address (a classroom's, a proxy's) lock everyone else out
    r = site.client.post("/login", data={"token": alice}, follow_redirects=False)
    assert r.status_code == 303
    bearer = [site.client.get("/api/me", headers={"Authorization": f"Bearer tny_g{i}"}
                              ).status_code for i in range(3)]
    assert bearer == [429] * 3
    assert site.client.get("/api/me", headers=site.bearer(alice)).status_code == 200


def test_uploads_are_rate_limited(site: Site) -> None:
    alice = site.add("alice")
    codes = [site.upload(alice, f"b{i}.py", b"def act(o, l):\n    return l[%d %% len(l)]\n" % i
                         ).status_code for i in range(7)]
    assert codes == [202] * 6 + [429]
    site.settle()


def test_hostile_text_is_shown_as_text(site: Site) -> None:
    alice = site.add("alice")
    login(site, alice)
    evil = "<b onclick=alert(1)>{{7*7}}.py"
    bot = b"def act(o, l):\n    raise RuntimeError('<img src=x onerror=alert(2)>{{7*7}}')\n"
    r = site.upload(alice, evil, bot)
    assert r.status_code == 202, r.text
    site.settle()
    page = site.client.get("/me").text
    assert "<b onclick" not in page and "<img src=x" not in page
    assert "&lt;b onclick=alert(1)&gt;{{7*7}}.py" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert page.count("{{7*7}}") >= 2  # the name and the reason, not evaluated
    csp = site.client.get("/me").headers["content-security-policy"]
    script = next(part for part in csp.split(";") if "script-src" in part)
    assert script.strip() == "script-src 'self'"  # no inline script could run


def test_paths_in_urls_reach_nothing(site: Site) -> None:
    alice = site.add("alice")
    auth = site.bearer(alice)
    for path in ("/games/..%2F..%2Fleague.json", "/api/games/..%2Fleague.json",
                 "/api/games/%2E%2E/log", "/api/submissions/..%2Fbob.v1",
                 "/static/..%2Fdb.py", "/static/../competition.py"):
        r = site.client.get(path, headers=auth)
        assert r.status_code == 404, (path, r.status_code)
        assert "key" not in r.text


def test_the_leagues_secret_key_is_never_served(site: Site) -> None:
    import json

    key = json.loads((site.folder / "league.json").read_text())["key"]
    alice = site.add("alice")
    site.send(alice, "first.py")
    bob = site.add("bob")
    site.send(bob, "last.py")
    site.play(4)
    login(site, alice)
    game = site.client.get("/api/me/games", headers=site.bearer(alice)).json()["games"][0]
    for path in ("/", "/api/leaderboard", "/me", "/api/me", "/api/me/games",
                 f"/games/{game['game_id']}", f"/api/games/{game['game_id']}",
                 f"/api/games/{game['game_id']}/log"):
        assert key not in site.client.get(path).text, path


def test_an_error_of_the_servers_own_is_one_line_in_its_log(
        site: Site, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A bug of ours (here: the leaderboard fails) answers 500 with one line, and each failed
    request writes one line to the log, its traceback only the first time (a client repeating
    the request once wrote a 6 KB traceback a time)."""
    import logging

    def broken() -> None:
        raise RuntimeError("the disk is gone\nforged: a second line")

    monkeypatch.setattr(site.competition, "leaderboard", broken)
    with caplog.at_level(logging.ERROR, logger="tourney.serve"):
        for _ in range(5):
            r = site.client.get("/api/leaderboard")
            assert r.status_code == 500
            assert r.json() == {"error": "the server failed; the organiser can see why in its "
                                         "log"}
        page = site.client.get("/%0Aforged")
        assert page.status_code == 404  # not ours: no error
        page = site.client.get("/")
        assert page.status_code == 500 and "organiser can see why" in page.text
    lines = [r for r in caplog.records if r.name == "tourney.serve"]
    assert len(lines) == 6
    assert [r.exc_info is not None for r in lines] == [True] + [False] * 5
    for record in lines:
        text = record.getMessage()
        assert "\n" not in text and len(text) < 400, text
        assert "RuntimeError: the disk is gone\\nforged: a second line (at " in text
    assert lines[0].getMessage().startswith("GET /api/leaderboard failed")
    assert lines[-1].getMessage().startswith("GET / failed")
