"""What every page of the server shares: the one template environment, the pages' security
headers (Content-Security-Policy: no inline script anywhere) and the scripts served by address.

The competition's pages, its human seat and the local server of ``tourney play GAME human BOT``
render from :func:`templates`. A page runs only scripts served from the site itself
(``script-src 'self'``): the site's own under ``/static``, and the replay viewer's (written for
the offline report, :mod:`harness.figures.report`), which :func:`script` serves from
``/static/report/``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2
from starlette.requests import Request
from starlette.responses import Response

_HERE = Path(__file__).resolve().parent

#: The scripts :func:`script` serves, by the name under its route.
SCRIPTS = ("human.js", "report/replay.js", "report/common.js")

#: The policy of a page drawn with the replay viewer's stylesheet inlined (the replay viewer and
#: the human seat): its scripts only from this site, no other source at all.
VIEWER_POLICY = ("default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; "
                 "img-src data:; connect-src 'self'; form-action 'self'; "
                 "frame-ancestors 'none'; base-uri 'none'")


@functools.cache
def templates() -> jinja2.Environment:
    """The one template environment: autoescaped, and a missing variable is an error."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("harness.serve", "templates"), autoescape=True,
        undefined=jinja2.StrictUndefined)
    env.filters["when"] = when
    return env


def when(seconds: float | None) -> str:
    """A unix time as pages show it, in UTC to the minute ("–": none)."""
    import datetime

    if seconds is None:
        return "–"
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M")


def viewer_headers() -> dict[str, str]:
    """The headers of a page in the viewer's style (see :data:`VIEWER_POLICY`)."""
    return {
        "Content-Security-Policy": VIEWER_POLICY,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }


@functools.cache
def _source(name: str) -> str:
    if name.startswith("report/"):
        from harness.figures.report.render import asset

        return asset(name.removeprefix("report/"))
    return (_HERE / "static" / name).read_text(encoding="utf-8")


async def script(request: Request) -> Response:
    """``GET …/{name}``: one of :data:`SCRIPTS` (404 for any other name)."""
    return _script(request.path_params["name"])


async def report_script(request: Request) -> Response:
    """``GET /static/report/{name}``: one of the replay viewer's :data:`SCRIPTS`."""
    return _script("report/" + request.path_params["name"])


def _script(name: str) -> Response:
    if name not in SCRIPTS:
        return Response("no such script", 404, media_type="text/plain")
    return Response(_source(name), media_type="text/javascript", headers={
        "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})
