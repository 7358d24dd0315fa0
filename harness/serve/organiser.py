"""The organiser's dashboard, house bots and final, as routes of the server's one application
(:func:`harness.serve.app.create_app` puts them in its routing table), and the final's public
JSON.

| route | who | what |
|---|---|---|
| ``GET /admin/dashboard`` | organiser | the dashboard page (:mod:`harness.serve.dashboard`) |
| ``POST /admin/dashboard/house`` | organiser (form, CSRF) | add a house bot |
| ``POST /admin/dashboard/final`` | organiser (form, CSRF) | set the deadline and the final |
| ``GET /api/admin/dashboard`` | organiser | the dashboard's figures |
| ``POST /api/admin/house`` ``{name, spec}`` | organiser | add a house bot (201) |
| ``POST /api/admin/final`` ``{deadline, format, top, rounds, pairs}`` | organiser | the plan |
| ``GET /api/final`` | anyone | the deadline, the final's progress and its published table |

The application hands these routes its own login, CSRF check, page renderer and form readers
(:class:`Gate`), so there is still one of each.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from harness.serve.dashboard import Dashboard, disk_text
from harness.serve.db import ServeError
from harness.serve.final import when


@dataclass(frozen=True)
class Gate:
    """What the application lends these routes."""

    organiser: Callable[[Request], Any]  # the organiser's login, or 401 / 403
    check: Callable[[Request, Any, str | None], None]  # the CSRF check of a change
    page: Callable[..., HTMLResponse]  # a page of the one template environment
    form: Callable[[Request], Awaitable[dict[str, str]]]
    json: Callable[[Request], Awaitable[dict[str, Any]]]


def routes(dashboard: Dashboard, gate: Gate) -> list[BaseRoute]:
    """The routes, to go before the application's ``/admin/{action}`` catch-alls."""
    comp = dashboard.competition

    async def page(request: Request) -> Response:
        current = gate.organiser(request)
        figures = await run_in_threadpool(dashboard.figures)
        plan = comp.final.plan()
        return gate.page(request, "dashboard.html.j2", who=current, fig=figures, plan=plan,
                         deadline_text=_iso(plan.deadline), when=when, size=disk_text)

    async def change(request: Request) -> Response:
        current = gate.organiser(request)
        form = await gate.form(request)
        gate.check(request, current, form.get("csrf"))
        what = request.path_params["what"]
        if what not in ("house", "final"):
            raise ServeError(f"no form {what!r} on the dashboard", 404)
        if what == "house":
            await run_in_threadpool(dashboard.add_house, form.get("name", ""),
                                    form.get("spec", ""))
        else:
            await run_in_threadpool(comp.final.configure, form)
        return RedirectResponse("/admin/dashboard", 303)

    async def api_figures(request: Request) -> Response:
        gate.organiser(request)
        return JSONResponse(await run_in_threadpool(dashboard.figures))

    async def api_house(request: Request) -> Response:
        current = gate.organiser(request)
        body = await gate.json(request)
        gate.check(request, current, None)
        made = await run_in_threadpool(dashboard.add_house, str(body.get("name", "")),
                                       str(body.get("spec", "")))
        return JSONResponse(made, 201)

    async def api_final_plan(request: Request) -> Response:
        current = gate.organiser(request)
        body = await gate.json(request)
        gate.check(request, current, None)
        plan = await run_in_threadpool(comp.final.configure, body)
        return JSONResponse(asdict(plan))

    async def api_final(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(comp.final.public),
                            headers={"Cache-Control": "no-store"})

    return [
        Route("/admin/dashboard", page),
        Route("/admin/dashboard/{what:str}", change, methods=["POST"]),
        Route("/api/admin/dashboard", api_figures, methods=["GET"]),
        Route("/api/admin/house", api_house, methods=["POST"]),
        Route("/api/admin/final", api_final_plan, methods=["POST"]),
        Route("/api/final", api_final, methods=["GET"]),
    ]


def _iso(seconds: float | None) -> str:
    """A deadline as the form shows it (and takes it back): ``2026-12-01T18:00Z``."""
    if seconds is None:
        return ""
    return when(seconds).replace(" UTC", "Z").replace(" ", "T")
