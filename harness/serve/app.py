"""The competition server's web application (Starlette): pages and a JSON API over a living
league folder.

Who may see what:

* anyone: the leaderboard (one line per entrant, ``GET /`` and ``GET /api/leaderboard``),
  each entrant's public page (``GET /entrants/NAME``, ``GET /api/entrants/NAME``) and every
  stored game's replay and moves (:mod:`harness.serve.public`);
* an entrant (logged in with their token, or ``Authorization: Bearer TOKEN``): their own page,
  submissions, entry-check reports, games and their own bots' logs, never another entrant's
  code, logs, refusal reasons or check reports;
* the organiser: every entrant, adding entrants and tokens, retiring, pausing, limits, the
  league folder as a zip (without the league's secret key);
* anyone logged in: the human seat under ``/play`` (:mod:`harness.serve.human`), whose routes
  are ordinary routes of this one application: one routing table, one template environment,
  one state (:class:`Site`), one CSRF check.

A browser's session is a cookie (HttpOnly, SameSite=Strict); every form and script that changes
something sends the session's CSRF token back, and a request from another origin is refused.
Logins, sign-ups and uploads are rate-limited per client. An upload's size is enforced while its
body is read (:class:`BodyLimit`), never after.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from harness.serve import organiser, pages, proxies
from harness.serve.competition import GAMES_SHOWN, Competition, size_text
from harness.serve.dashboard import Dashboard
from harness.serve.db import ORGANISER, Account, ServeError
from harness.serve.errors import ErrorBook, QuietErrors
from harness.serve.human import HumanError, HumanGames, SeatRules, SeatSite, SeatWeb
from harness.serve.human import wants_json as seat_wants_json
from harness.serve.public import Public
from harness.serve.reads import READ_SECONDS, READS, ClientGone, Reads

COOKIE = "tourney_session"
CSRF_HEADER = "x-csrf-token"
SMALL_BODY = 64 << 10  # the largest body of anything but an upload
SESSION_SECONDS = 7 * 24 * 3600


# ----------------------------------------------------------------------------- limits


class RateLimit:
    """At most ``count`` events per ``seconds`` for each key (a client address, an entrant)."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count, self.seconds = count, seconds
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str, count: int | None = None) -> float:
        """Record an event; 0.0 when allowed, else the seconds to wait (``count``: this
        limit's count for once, e.g. a setting the organiser changes)."""
        return self._check(key, count, record=True)

    def full(self, key: str, count: int | None = None) -> float:
        """The seconds to wait before the next event of ``key`` is allowed (0.0: now), without
        recording one."""
        return self._check(key, count, record=False)

    def _check(self, key: str, count: int | None, *, record: bool) -> float:
        clock = time.monotonic()
        limit = self.count if count is None else count
        with self._lock:
            if len(self._seen) > 10_000:  # forget idle keys
                self._seen = {k: q for k, q in self._seen.items()
                              if q and q[-1] > clock - self.seconds}
            seen = self._seen.setdefault(key, deque())
            while seen and seen[0] <= clock - self.seconds:
                seen.popleft()
            if len(seen) >= limit:
                return max(seen[0] + self.seconds - clock, 0.001)
            if record:
                seen.append(clock)
            return 0.0


class BodyLimit:
    """ASGI middleware: a request body larger than its route allows is refused with 413 while
    it is read (the Content-Length it claims is checked first; a body that lies is cut off)."""

    def __init__(self, app: ASGIApp, limit: Callable[[str], tuple[int, int]]) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, shown = self.limit(scope["path"])
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    claimed = int(value)
                except ValueError:
                    claimed = -1
                if claimed < 0 or claimed > limit:
                    await _too_large(scope, send, shown)
                    return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(413, _too_large_text(shown))
            return message

        await self.app(scope, counted, send)


def _too_large_text(limit: int) -> str:
    return (f"the request is larger than the {size_text(limit)} allowed here; upload a "
            f"smaller file (the organiser sets the limit)")


async def _too_large(scope: Scope, send: Send, limit: int) -> None:
    api = scope["path"].startswith("/api/")
    text = _too_large_text(limit)
    response: Response = JSONResponse({"error": text}, 413) if api else \
        PlainTextResponse(text, 413)
    async def nothing() -> Message:
        return {"type": "http.disconnect"}
    await response(scope, nothing, send)


# ----------------------------------------------------------------------------- the site


@dataclass
class Who:
    account: Account
    csrf: str | None  # the session's CSRF token; None when authorised by a bearer token

    @property
    def organiser(self) -> bool:
        return self.account.role == ORGANISER


class Site:
    """What the routes share: the competition, the page templates, the rate limits and the
    human seat's games (the application's one state, ``app.state.site``)."""

    def __init__(self, competition: Competition, *, secure_cookies: bool = False,
                 seat: SeatRules | None = None) -> None:
        config = competition.config
        self.competition = competition
        self.secure_cookies = secure_cookies
        # wrong tokens per client a minute (a right one always logs in: tokens cannot be
        # guessed, and a limit on every login would let one client lock out its neighbours)
        self.logins = RateLimit(10, 60.0)
        self.signup_failures = RateLimit(10, 60.0)  # wrong codes per client a minute
        self.signups = RateLimit(30, 3600.0)  # sign-ups per competition code an hour
        self.uploads = RateLimit(6, 60.0)  # uploads per entrant a minute (and a daily quota)
        # the routes that read games, per account (harness.serve.reads)
        self.reads = Reads(RateLimit(READS, READ_SECONDS))
        self.env = pages.templates()
        self.public = Public(competition)  # what anyone may see (harness.serve.public)
        # people's games against the bots: dealt from the league's secret key, stored apart
        self.human = HumanGames(game=config.game, variant=config.variant,
                                store=competition.folder / "human", limits=config.limits,
                                rules=seat, key=config.key_bytes)

    def close(self) -> None:
        """Interrupt the human games in progress (they are not stored)."""
        self.human.close()


def site_of(request: Request) -> Site:
    site: Site = request.app.state.site
    return site


# ----------------------------------------------------------------------------- requests


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def _wants_json(request: Request) -> bool:
    path = request.url.path
    return path.startswith("/api/") or (path.startswith(SEAT + "/") and
                                        seat_wants_json(request))


def who(request: Request) -> Who | None:
    """The account a request is authorised as: a bearer token, or a session cookie."""
    site = site_of(request)
    db, lock = site.competition.db, site.competition.lock
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer":
            raise HTTPException(401, "use Authorization: Bearer TOKEN")
        with lock:
            account = db.login(token.strip())
        if account is None:
            wait = site.logins.hit(_client(request))
            raise HTTPException(429 if wait else 401, "that token is not valid (ask the "
                                "organiser for a new one)")
        return Who(account, None)
    sid = request.cookies.get(COOKIE, "")
    if not sid:
        return None
    with lock:
        session = db.session(sid)
    return None if session is None else Who(session.account, session.csrf)


def csrf_of(request: Request) -> str:
    """The CSRF token of the request's session ('' without one)."""
    found = who(request)
    return found.csrf or "" if found is not None else ""


def need(request: Request, *, organiser: bool = False) -> Who:
    found = who(request)
    if found is None:
        raise HTTPException(401, "log in first: your token is on the invitation the organiser "
                                 "sent you")
    if organiser and not found.organiser:
        raise HTTPException(403, "only the organiser may do that")
    if not organiser and found.organiser and request.url.path.startswith("/api/me"):
        raise HTTPException(403, "the organiser has no entrant page; use /api/admin")
    return found


def check_csrf(request: Request, who_: Who, form_token: str | None = None) -> None:
    """A change made through a session must carry the session's CSRF token."""
    if who_.csrf is None:
        return  # a bearer token: no cookie a foreign page could ride on
    sent = form_token if form_token is not None else request.headers.get(CSRF_HEADER, "")
    if not sent or not hmac.compare_digest(sent, who_.csrf):
        raise HTTPException(403, "the form is out of date or came from another site (CSRF "
                                 "token missing or wrong); reload the page and try again")


class SameOrigin:
    """ASGI middleware: a change (POST, ...) whose Origin header names another site is refused,
    whatever else it carries."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            headers = dict(scope.get("headers", []))
            origin = headers.get(b"origin", b"").decode("latin-1")
            host = headers.get(b"host", b"").decode("latin-1")
            if origin and (origin == "null" or origin.split("://", 1)[-1] != host):
                response = PlainTextResponse("a change from another site is refused", 403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    site = site_of(request)
    found = context.pop("who", None)
    html = site.env.get_template(template).render(
        title=site.competition.config.name, game=site.competition.config.game, who=found,
        csrf=found.csrf if found else "", deadline=site.competition.final.banner(), **context)
    return HTMLResponse(html, status, headers=_page_headers())


def _page_headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": "default-src 'self'; script-src 'self'; "
                                   "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                                   "frame-ancestors 'none'; form-action 'self'",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
    }


async def on_gone(request: Request, exc: Exception) -> Response:
    """The client went away before its answer was ready: nobody reads this one."""
    return Response(status_code=499)


async def on_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, ServeError | HumanError):
        status, message = exc.status, str(exc)
    elif isinstance(exc, HTTPException):
        status, message = exc.status_code, str(exc.detail)
    else:  # pragma: no cover - a bug of ours
        status, message = 500, "the server failed; the organiser can see why in its log"
    headers = dict(getattr(exc, "headers", None) or {})
    if status == 429:
        headers.setdefault("Retry-After", "60")
    if _wants_json(request):
        return JSONResponse({"error": message}, status, headers=headers)
    if status == 401 and request.method == "GET":
        return RedirectResponse("/login", 303)
    try:
        current = who(request)
    except HTTPException:
        current = None
    response = page(request, "message.html.j2", status, heading=_heading(status),
                    message=message, who=current, back=_back(request))
    response.headers.update(headers)
    return response


def _back(request: Request) -> str:
    """Where an error page's Back link goes without a script: the page of this site the
    request came from (its Referer), else the leaderboard."""
    referer = request.headers.get("referer", "")
    origin = f"{request.url.scheme}://{request.url.netloc}"
    if referer.startswith(origin + "/"):
        path = referer[len(origin):]
        if path.startswith("/") and not path.startswith("//"):
            return path
    return "/"


def _heading(status: int) -> str:
    return {400: "Bad request", 401: "Please log in", 403: "Not allowed", 404: "Not found",
            409: "Already there", 413: "Too large", 415: "Wrong kind of file",
            422: "Refused", 429: "Too many attempts"}.get(status, "Error")


async def read_upload(request: Request) -> tuple[str, bytes, str | None]:
    """(file name, bytes, the form's CSRF token) of a multipart upload with field ``bot``."""
    try:
        async with request.form(max_files=1, max_fields=4, max_part_size=64 << 10) as form:
            field = form.get("bot")
            token = form.get("csrf")
            if not isinstance(field, UploadFile):
                raise ServeError("send the bot as the form field 'bot' (a file)", 400)
            data = await field.read()
            return field.filename or "", data, token if isinstance(token, str) else None
    except HTTPException:
        raise
    except ServeError:
        raise
    except Exception as exc:  # the multipart parser's refusals
        raise ServeError(f"the upload could not be read as a form: {exc}", 400) from None


async def read_form(request: Request) -> dict[str, str]:
    try:
        async with request.form(max_files=0, max_fields=20) as form:
            return {k: v for k, v in form.items() if isinstance(v, str)}
    except HTTPException:
        raise
    except Exception as exc:
        raise ServeError(f"the form could not be read: {exc}", 400) from None


async def read_json(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body() or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise ServeError("send a JSON object", 400) from None
    if not isinstance(body, dict):
        raise ServeError("send a JSON object", 400)
    return body


# ----------------------------------------------------------------------------- pages


async def leaderboard_page(request: Request) -> Response:
    site = site_of(request)
    board = await run_in_threadpool(site.public.leaderboard)
    final = await run_in_threadpool(site.competition.final.public)
    return page(request, "leaderboard.html.j2", board=board, final=final, who=who(request))


def _reader(request: Request) -> str:
    """Whom a public read counts against: the account, else the client's address."""
    current = who(request)
    return current.account.name if current is not None else "@" + _client(request)


async def entrant_public_page(request: Request) -> Response:
    site = site_of(request)
    name = request.path_params["name"]
    found = await site.reads.run(request, _reader(request), site.public.entrant, name)
    return page(request, "public_entrant.html.j2", who=who(request), entrant=found)


async def api_entrant(request: Request) -> Response:
    site = site_of(request)
    found = await site.reads.run(request, _reader(request), site.public.entrant,
                                 request.path_params["name"])
    return JSONResponse(found, headers={"Cache-Control": "no-store"})


async def login_page(request: Request) -> Response:
    comp = site_of(request).competition
    return page(request, "login.html.j2", signup=comp.settings().signup, who=who(request))


def _set_session(request: Request, response: Response, account: Account) -> None:
    site = site_of(request)
    with site.competition.lock:
        sid, _csrf = site.competition.db.new_session(account)
    response.set_cookie(COOKIE, sid, max_age=SESSION_SECONDS, httponly=True, samesite="strict",
                        secure=site.secure_cookies, path="/")


async def login(request: Request) -> Response:
    site = site_of(request)
    comp = site.competition
    form = await read_form(request)
    with comp.lock:
        account = comp.db.login(form.get("token", "").strip())
    if account is None:  # only failures count
        if site.logins.hit(_client(request)):
            raise HTTPException(429, "too many wrong tokens from your address; wait a minute")
        raise HTTPException(401, "that token is not valid; copy it again from the invitation, "
                                 "or ask the organiser for a new one")
    response = RedirectResponse("/admin" if account.role == ORGANISER else "/me", 303)
    _set_session(request, response, account)
    return response


async def logout(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request)
    form = await read_form(request)
    check_csrf(request, current, form.get("csrf"))
    with comp.lock:
        comp.db.end_session(request.cookies.get(COOKIE, ""))
    response = RedirectResponse("/", 303)
    response.delete_cookie(COOKIE, path="/")
    return response


async def signup(request: Request) -> Response:
    site = site_of(request)
    comp = site.competition
    if not comp.settings().signup:
        raise HTTPException(404, "this competition has no open sign-up; ask the organiser")
    client = _client(request)
    if site.signup_failures.full(client):  # a code can be guessed: refused before it is tried
        raise HTTPException(429, "too many wrong competition codes from your address; wait a "
                                 "minute")
    form = await read_form(request)
    code = form.get("code", "")
    with comp.lock:
        ok = comp.db.signup_code_ok(code)
    if not ok:
        site.signup_failures.hit(client)
        raise HTTPException(403, "the competition code is wrong; ask the organiser for it")
    per_code = hashlib.sha256(code.encode()).hexdigest()
    wait = site.signups.full(per_code, comp.settings().signups_per_hour)
    if wait:
        raise HTTPException(429, f"this competition code has admitted its sign-ups for the "
                                 f"hour; try again in {math.ceil(wait / 60)} min, or ask the "
                                 f"organiser")
    made = await run_in_threadpool(comp.add_entrant, form.get("name", "").strip())
    site.signups.hit(per_code, comp.settings().signups_per_hour)
    with comp.lock:
        account = comp.db.account(made["name"])
    assert account is not None
    response = page(request, "token.html.j2", name=made["name"], token=made["token"],
                    invite="", who=None)
    _set_session(request, response, account)
    return response


async def me_page(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request)
    if current.organiser:
        return RedirectResponse("/admin", 303)
    name = current.account.name
    versions = await run_in_threadpool(comp.versions_of, name)
    games = await site_of(request).reads.run(request, name, comp.games_of, name)
    count, total = comp.usage(name)
    return page(request, "entrant.html.j2", who=current, name=name, versions=versions,
                games=games, settings=comp.settings(), count=count, total=size_text(total),
                checking=any(v["status"] == "validating" for v in versions))


async def _upload(request: Request) -> dict[str, Any]:
    site = site_of(request)
    current = need(request)
    if current.organiser:
        raise HTTPException(403, "the organiser adds bots with tourney arena add, not uploads")
    filename, data, token = await read_upload(request)
    check_csrf(request, current, token)
    wait = site.uploads.hit(current.account.name)
    if wait:
        raise HTTPException(429, f"too many uploads in a minute; wait {wait:.0f} s")
    made: dict[str, Any] = await run_in_threadpool(site.competition.submit,
                                                   current.account.name, filename, data)
    return made


async def me_submit(request: Request) -> Response:
    await _upload(request)
    return RedirectResponse("/me", 303)


async def replay_page(request: Request) -> Response:
    comp = site_of(request).competition
    html = await site_of(request).reads.run(request, _reader(request), comp.replay_html,
                                            request.path_params["game_id"], REPORT_SCRIPTS)
    return HTMLResponse(html, headers=pages.viewer_headers())


async def log_page(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request)

    def read() -> str:
        row = comp.game_row(request.path_params["game_id"], current.account)
        return comp.log_of(row, current.account)

    text = await site_of(request).reads.run(request, current.account.name, read)
    return PlainTextResponse(text, headers={"X-Content-Type-Options": "nosniff",
                                            "Content-Security-Policy": "default-src 'none'",
                                            "Cache-Control": "no-store"})


async def admin_page(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request, organiser=True)
    entrants = await run_in_threadpool(comp.entrants)
    return page(request, "organiser.html.j2", who=current, entrants=entrants,
                settings=comp.settings(), running=bool(comp.arena and comp.arena.running))


def _admin(comp: Competition, action: str, body: dict[str, Any]) -> dict[str, Any]:
    name = str(body.get("name", "")).strip()
    if action == "entrants":
        return comp.add_entrant(name)
    if action == "token":
        return comp.new_token(name)
    if action == "retire":
        return comp.retire(name)
    if action in ("pause", "resume"):
        comp.set_paused(action == "pause")
        return {"paused": action == "pause"}
    if action == "settings":
        return comp.update_settings(body)
    raise ServeError(f"unknown action {action!r}; see docs/serve.md for the API", 404)


async def admin_action(request: Request) -> Response:
    """The organiser page's forms: add an entrant, new token, retire, pause/resume, limits."""
    comp = site_of(request).competition
    current = need(request, organiser=True)
    form = await read_form(request)
    check_csrf(request, current, form.get("csrf"))
    result = await run_in_threadpool(_admin, comp, request.path_params["action"], form)
    if "token" in result:
        return page(request, "token.html.j2", who=current, name=result["name"],
                    token=result["token"], invite=result["invite"])
    return RedirectResponse("/admin", 303)


async def download(request: Request) -> Response:
    comp = site_of(request).competition
    need(request, organiser=True)
    return StreamingResponse(comp.download(), media_type="application/zip", headers={
        "Content-Disposition": f'attachment; filename="{comp.config.name}.zip"'})


# ----------------------------------------------------------------------------- the API


async def api_leaderboard(request: Request) -> Response:
    return JSONResponse(await run_in_threadpool(site_of(request).public.leaderboard),
                        headers={"Cache-Control": "no-store"})


async def api_me(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request)
    name = current.account.name
    settings = comp.settings()
    count, total = comp.usage(name)
    versions = await run_in_threadpool(comp.versions_of, name)
    return JSONResponse({"entrant": name, "submissions": versions, "limits": {
        "submissions_per_day": settings.submissions_per_day, "used_today": count,
        "total_mb": settings.total_mb, "used_bytes": total, "upload_mb": settings.upload_mb}})


async def api_submit(request: Request) -> Response:
    made = await _upload(request)
    return JSONResponse(made, 202, headers={"Location": f"/api/submissions/{made['bot']}"})


async def api_submission(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request)
    bot = request.path_params["bot"]
    for v in await run_in_threadpool(comp.versions_of, current.account.name):
        if v["bot"] == bot:
            return JSONResponse(v)
    raise HTTPException(404, f"you have no submission {bot!r}")


async def api_my_games(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request)
    try:
        limit = min(max(int(request.query_params.get("limit", GAMES_SHOWN)), 1), 5000)
    except ValueError:
        raise ServeError("limit must be a whole number", 400) from None
    games = await site_of(request).reads.run(request, current.account.name, comp.games_of,
                                             current.account.name, limit)
    return JSONResponse({"games": games})


async def api_game(request: Request) -> Response:
    comp = site_of(request).competition
    game = await site_of(request).reads.run(request, _reader(request), comp.game_json,
                                            request.path_params["game_id"])
    return JSONResponse(game)


async def api_admin(request: Request) -> Response:
    comp = site_of(request).competition
    current = need(request, organiser=True)
    body = await read_json(request)
    check_csrf(request, current)
    result = await run_in_threadpool(_admin, comp, request.path_params["action"], body)
    return JSONResponse(result, 201 if request.path_params["action"] == "entrants" else 200)


async def api_admin_entrants(request: Request) -> Response:
    comp = site_of(request).competition
    need(request, organiser=True)
    return JSONResponse({"entrants": await run_in_threadpool(comp.entrants)})


async def api_admin_settings(request: Request) -> Response:
    comp = site_of(request).competition
    need(request, organiser=True)
    return JSONResponse(asdict(comp.settings()))


async def health(request: Request) -> Response:
    return PlainTextResponse("ok")


async def favicon(request: Request) -> Response:
    return Response(status_code=204)  # no icon (and no 404 in every page's console)


# ----------------------------------------------------------------------------- the app

UPLOAD_PATHS = ("/me/submit", "/api/submissions")
SEAT = "/play"  # the human seat's pages
REPORT_SCRIPTS = "/static/report"  # the replay viewer's scripts (pages.script)


def _seat_web(site: Site) -> SeatWeb:
    """The human seat's handlers, with this site's login and CSRF check."""
    def player(request: Request) -> str:
        return need(request).account.name

    def check(request: Request, form_token: str | None) -> None:
        check_csrf(request, need(request), form_token)

    return SeatWeb(site.human, site.competition.playable, SeatSite(
        who=player, check=check, csrf=csrf_of, base=SEAT, assets="/static",
        banner=site.competition.final.banner))


def create_app(competition: Competition, *, secure_cookies: bool = False,
               seat: SeatRules | None = None, trusted_proxies: Sequence[str] = ()) -> Starlette:
    """The Starlette application of a competition, as ``tourney serve`` runs it: the pages, the
    API and the human seat (``seat``: its limits, :class:`SeatRules` by default;
    ``trusted_proxies``: the reverse proxies whose X-Forwarded-For names the client,
    :mod:`harness.serve.proxies`). Its ``state.site`` is the :class:`Site`; ``close()`` it on
    shutdown."""
    site = Site(competition, secure_cookies=secure_cookies, seat=seat)
    errors = ErrorBook()  # the server's own errors, for the organiser's dashboard

    def limit(path: str) -> tuple[int, int]:
        """(the bytes a request body may have, the size its refusal names)."""
        if path in UPLOAD_PATHS:  # the file, and room for the form around it
            upload = competition.settings().upload_mb << 20
            return upload + (64 << 10), upload
        return SMALL_BODY, SMALL_BODY

    routes: list[BaseRoute] = [
        Route("/", leaderboard_page),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/signup", signup, methods=["POST"]),
        Route("/me", me_page),
        Route("/me/submit", me_submit, methods=["POST"]),
        Route("/entrants/{name}", entrant_public_page),
        Route("/games/{game_id}", replay_page),
        Route("/games/{game_id}/log", log_page),
        Route("/admin", admin_page),
        Route("/admin/download", download),
        *organiser.routes(Dashboard(competition, errors), organiser.Gate(
            organiser=lambda request: need(request, organiser=True), check=check_csrf,
            page=page, form=read_form, json=read_json)),
        Route("/admin/{action}", admin_action, methods=["POST"]),
        Route("/api/leaderboard", api_leaderboard),
        Route("/api/entrants/{name}", api_entrant),
        Route("/api/me", api_me),
        Route("/api/me/games", api_my_games),
        Route("/api/submissions", api_submit, methods=["POST"]),
        Route("/api/submissions/{bot}", api_submission),
        Route("/api/games/{game_id}", api_game),
        Route("/api/games/{game_id}/log", log_page),
        Route("/api/admin/entrants", api_admin_entrants, methods=["GET"]),
        Route("/api/admin/settings", api_admin_settings, methods=["GET"]),
        Route("/api/admin/download", download),
        Route("/api/admin/{action}", api_admin, methods=["POST"]),
        Route("/health", health),
        Route("/favicon.ico", favicon),
        *_seat_web(site).routes(),
        Route(REPORT_SCRIPTS + "/{name}", pages.report_script),
        Mount("/static", StaticFiles(packages=[("harness.serve", "static")]), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(QuietErrors, book=errors), *proxies.middleware(trusted_proxies),
                    Middleware(SameOrigin), Middleware(BodyLimit, limit=limit)],
        exception_handlers={HTTPException: on_error, ServeError: on_error,
                            HumanError: on_error, ClientGone: on_gone},
    )
    app.state.site = site
    return app
