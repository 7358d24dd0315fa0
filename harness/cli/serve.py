"""`tourney serve`: a competition server over a living league; `tourney serve-admin`: the
organiser's commands on its folder (also while it runs); `tourney submit`: an entrant's upload
from the command line. The work is :mod:`harness.serve`'s."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from harness.cli.options import (
    NO_LIMITS,
    ClusterOpt,
    LimitChoice,
    RequireOpt,
    SeedOpt,
    VariantOpt,
    WorkersOpt,
    fail,
    options,
)

if TYPE_CHECKING:
    from harness.serve.edge import EdgeLimits, Once

FolderArg = Annotated[Path, typer.Argument(help="The competition's folder.")]
NameArg = Annotated[str, typer.Argument(help="The entrant's name (letters, digits, - and _).")]
LOCAL = ("127.0.0.1", "localhost", "::1")
TOKEN_ENV = "TOURNEY_TOKEN"


DeadlineOpt = Annotated[str | None, typer.Option(
    "--deadline", help="The submission deadline, e.g. 2026-12-01T18:00Z (UTC unless an offset "
                       "is given); then the server plays the final ('none': no deadline).")]
FinalOpt = Annotated[str | None, typer.Option(
    "--final", help="The final after the deadline: swiss (default) or knockout.")]
FinalTopOpt = Annotated[int | None, typer.Option(
    "--final-top", min=2, help="The leaders at the deadline who play the final (default 8).")]
FinalRoundsOpt = Annotated[int | None, typer.Option(
    "--final-rounds", min=1, help="Swiss rounds of the final (default: log2 of its field).")]
FinalPairsOpt = Annotated[int | None, typer.Option(
    "--final-pairs", min=1, help="Duplicate pairs a meeting of the final (default 1).")]


def _final_body(deadline: str | None, final: str | None, top: int | None, rounds: int | None,
                pairs: int | None) -> dict[str, Any]:
    """The final's options given, as :meth:`harness.serve.final.Final.configure` takes them."""
    given = {"deadline": deadline, "format": final, "top": top, "rounds": rounds,
             "pairs": pairs}
    return {k: v for k, v in given.items() if v is not None}


@options()
def serve_cmd(
    folder: FolderArg,
    game: Annotated[str | None, typer.Option(
        "--game", "-g", help="The game, to start a new competition (a folder's game never "
                             "changes).")] = None,
    variant: VariantOpt = None,
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on; anything but 127.0.0.1 opens the server to the "
                       "network (put it behind a TLS proxy).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port (0: any free one).", min=0,
                                      max=65535)] = 8000,
    public_url: Annotated[str | None, typer.Option(
        "--public-url", help="The address entrants use (e.g. https://bots.example.org), for "
                             "invitation links.")] = None,
    workers: WorkersOpt = None,
    cluster: ClusterOpt = None,
    seed: SeedOpt = None,
    limits: LimitChoice = NO_LIMITS,
    require_isolation: RequireOpt = False,
    trusted_proxy: Annotated[list[str] | None, typer.Option(
        "--trusted-proxy", help="The address (or network, e.g. 10.0.0.0/8) of a reverse proxy "
                                "whose X-Forwarded-For names the client; repeat for more "
                                "(default: none, every client is the address it connects "
                                "from).")] = None,
    max_connections: Annotated[int, typer.Option(
        "--max-connections", min=16, help="Open connections at once; a new one beyond closes "
                                          "the oldest that has not sent its request.")] = 1000,
    header_timeout: Annotated[float, typer.Option(
        "--header-timeout", min=0.5, help="Seconds a connection has to send a request's "
                                          "headers before it is closed.")] = 10.0,
    body_timeout: Annotated[float, typer.Option(
        "--body-timeout", min=0.5, help="Seconds a request's body may stop arriving before "
                                        "the connection is closed.")] = 30.0,
    keep_alive: Annotated[int, typer.Option(
        "--keep-alive", min=1, help="Seconds an idle connection stays open between "
                                    "requests.")] = 5,
    deadline: DeadlineOpt = None,
    final: FinalOpt = None,
    final_top: FinalTopOpt = None,
    final_rounds: FinalRoundsOpt = None,
    final_pairs: FinalPairsOpt = None,
) -> None:
    """Run a competition: entrants upload bots, the living league plays them, everyone sees the
    leaderboard. Ctrl-C stops it; the same command continues it (nothing is lost, even after
    kill -9).

    Example: tourney serve results/contest --game battleline
    """
    from harness.serve import errors
    from harness.serve.app import create_app
    from harness.serve.competition import Competition
    from harness.serve.db import ServeError
    from harness.serve.edge import EdgeLimits, open_file_room
    from harness.serve.final import StageProcess
    from harness.serve.pidfile import ServerLock
    from harness.serve.proxies import ProxyError, trusted_networks
    from harness.serve.runner import ArenaProcess, Checker

    try:
        proxies = trusted_networks(trusted_proxy or [])
    except ProxyError as exc:
        fail(str(exc))
    edge, edge_note = open_file_room(EdgeLimits(max_connections=max_connections,
                                                header_timeout=header_timeout,
                                                body_timeout=body_timeout,
                                                keep_alive=keep_alive))
    plan = _final_body(deadline, final, final_top, final_rounds, final_pairs)
    config, organiser, paused = _open_competition(folder, game, variant, seed, limits,
                                                  require_isolation, plan)
    sock = _listen(host, port, edge.backlog)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = public_url or f"http://{shown}:{bound}"
    options = []
    if workers is not None:
        options += ["--workers", str(workers)]
    if cluster is not None:
        options += ["--cluster", cluster]
    server_lock = ServerLock(folder)
    try:
        server_lock.acquire(url)
    except ServeError as exc:
        fail(str(exc))
    arena = ArenaProcess(folder, options)
    checker = Checker(folder)
    competition = Competition(folder, arena=arena, checker=checker, public_url=url,
                              stage=StageProcess(folder, options))
    app = create_app(competition, secure_cookies=url.startswith("https://"),
                     trusted_proxies=proxies)
    errors.log_to_stderr()
    _announce(config, folder, url, organiser=organiser, host=host,
              listening=f"http://{shown}:{bound}" if public_url else "", proxies=proxies,
              edge_note=edge_note, paused=paused)
    _run(app, sock, edge, paused, competition=competition, arena=arena, checker=checker,
         lock=server_lock)


def _run(app: Any, sock: socket.socket, edge: Any, paused: bool, *, competition: Any,
         arena: Any, checker: Any, lock: Any) -> None:
    """Serve until Ctrl-C or SIGTERM: the league started unless paused or its final has begun;
    then the entry checks, the league (storing the games in hand) and the competition closed,
    and the folder's server lock let go."""
    banner = competition.final.banner()
    if banner:
        _say(banner["text"])
    if not paused and not competition.final.closed():
        arena.start()
    competition.check_waiting()
    server, repeats = _server(app, edge)
    try:
        server.run(sockets=[sock])
    finally:
        for line in repeats.pending():
            _say(f"repeated: {line}")
        # a second Ctrl-C must not cut the league's stop short (it would be left unstopped)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _say("stopping: the league stores the games in hand ...")
        app.state.site.close()  # games in progress with a person: not stored
        checker.close()
        arena.close()
        competition.close()
        lock.release()
    _say("stopped; the same command continues the competition")


def _say(line: str) -> None:
    typer.echo(line, err=True)


def _open_competition(folder: Path, game: str | None, variant: list[str] | None,
                      seed: int | None, limits: LimitChoice, require_isolation: bool,
                      plan: dict[str, Any]) -> tuple[Any, str | None, bool]:
    """The competition in ``folder``, started there when ``game`` is given, with its deadline
    and final when ``plan`` sets them: its arena configuration, its organiser token when it
    has just been made (None: made before), and whether play is paused. Everything given is
    checked before anything is made."""
    from harness.arena import living
    from harness.league.folder import ResultsFolder
    from harness.serve.db import CompetitionDB, ServeError
    from harness.serve.final import Final, FinalPlan, apply_plan

    fresh = not ResultsFolder(folder).holds_league()
    if fresh and game is None:
        fail(f"{folder} is not a competition yet; give --game GAME to start one there")
    if not fresh and (limits.any() or seed is not None or variant):
        fail("the limits, --seed and --variant of a competition are chosen when it starts; "
             "leave them out to continue it")
    if not fresh and plan:
        fail(f"the deadline and the final of a running competition change with tourney "
             f"serve-admin deadline {folder} (or on the dashboard); leave them out to continue "
             f"it")
    try:
        apply_plan(FinalPlan(), plan)  # checked before anything is made
    except ServeError as exc:
        fail(str(exc))
    if game is not None:
        living.create(folder, game, variants=variant or [], seed=seed, limits=limits.over(),
                      require_isolation=require_isolation)
    config = living.load_arena(folder)
    with CompetitionDB.open(folder, create=True) as db:
        organiser = db.set_organiser_token() if not db.has_organiser() else None
        paused = db.settings().paused
        if plan:
            try:
                Final(folder, db, threading.Lock()).configure(plan)
            except ServeError as exc:
                fail(str(exc))
    return config, organiser, paused


def _listen(host: str, port: int, backlog: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening: connections wait from now on, before
    uvicorn takes them."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        fail(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port")
    sock.listen(backlog)
    return sock


def _announce(config: Any, folder: Path, url: str, *, organiser: str | None, host: str,
              listening: str, proxies: list[str], edge_note: str, paused: bool) -> None:
    """What a starting server tells the organiser: where it serves, the organiser token the
    first time, and every warning about how it is exposed or confined."""
    isolation = config.isolation
    _say(f"competition {config.name}: {config.game} ({folder})")
    _say(f"serving on {url}  (leaderboard: {url}/, organiser: {url}/admin)")
    if listening:
        _say(f"listening on {listening} (for the proxy in front)")
    if organiser:
        _say(f"organiser token (shown once; keep it): {organiser}")
    else:
        _say("organiser token: the one printed when the competition started (`tourney "
             f"serve-admin organiser-token {folder}` makes a new one)")
    if host not in LOCAL:
        _say(f"warning: listening on {host}: anyone who reaches this machine can see the "
             f"leaderboard and try tokens; serve it only behind a TLS proxy (https), or tokens "
             f"and cookies travel in the clear")
    if proxies:
        _say(f"trusting X-Forwarded-For from {', '.join(proxies)} only")
    if edge_note:
        _say(edge_note)
    if isolation.get("missing"):
        _say(f"warning: entrants' bots run with weaker isolation here: missing "
             f"{'; '.join(isolation['missing'])}")
    if paused:
        _say("play is paused (resume it on the organiser page)")


def _server(app: Any, edge: EdgeLimits) -> tuple[Any, Once]:
    """uvicorn's server, stopped by Ctrl-C or SIGTERM like every tourney command: it finishes
    the requests in hand and returns (uvicorn's own handling raises the signal again when it
    is done, which would cut short the league's orderly stop). Its connections keep the edge's
    deadlines and cap (:mod:`harness.serve.edge`); it reads no forwarded header itself (the
    app does, from the trusted proxies only); a failure that repeats is logged once a minute
    (the filter returned)."""
    import uvicorn

    from harness.serve.edge import http_protocol, quiet_repeats

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            def stop(signum: int, frame: object) -> None:
                if self.should_exit:
                    self.force_exit = True
                self.should_exit = True

            previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    server = Server(uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=5,
        http=http_protocol(edge), proxy_headers=False, forwarded_allow_ips=[],
        limit_concurrency=edge.max_connections + edge.backlog, backlog=edge.backlog,
        timeout_keep_alive=edge.keep_alive, h11_max_incomplete_event_size=16 << 10))
    return server, quiet_repeats()


# ----------------------------------------------------------------------------- serve-admin


def _competition(folder: Path) -> Any:
    from harness.serve.competition import Competition

    return Competition(folder)


def admin_add_cmd(
    folder: FolderArg, name: NameArg,
    url: Annotated[str, typer.Option("--url", help="The server's address, for the invitation "
                                                   "link.")] = "",
) -> None:
    """Add an entrant and print their token (shown once) and invitation link.

    Example: tourney serve-admin add results/contest alice --url http://127.0.0.1:8000
    """
    comp = _competition(folder)
    comp.public_url = url.rstrip("/")
    made = comp.add_entrant(name)
    typer.echo(f"{made['name']}: token {made['token']}")
    if url:
        typer.echo(f"invitation link: {made['invite']}")


def admin_token_cmd(folder: FolderArg, name: NameArg) -> None:
    """Give an entrant a new token (the old one and their sessions stop working)."""
    made = _competition(folder).new_token(name)
    typer.echo(f"{made['name']}: token {made['token']}")


def admin_organiser_token_cmd(folder: FolderArg) -> None:
    """Make a new organiser token (the old one stops working, and every organiser session
    logged in with it ends)."""
    from harness.serve.db import CompetitionDB

    with CompetitionDB.open(folder) as db:
        typer.echo(f"organiser token: {db.set_organiser_token()}")


def admin_logout_all_cmd(folder: FolderArg) -> None:
    """End every session: everyone, the organiser too, must log in again (tokens keep
    working; `token NAME` replaces one that leaked).

    Example: tourney serve-admin logout-all results/contest
    """
    from harness.serve.db import CompetitionDB

    with CompetitionDB.open(folder) as db:
        ended = db.end_all_sessions()
    typer.echo(f"ended {ended} session{'' if ended == 1 else 's'}; everyone logs in again "
               f"with their token")


def admin_stop_cmd(folder: FolderArg) -> None:
    """Stop the server running on FOLDER, as Ctrl-C in its terminal would: it finishes the
    requests in hand, the league stores its games in hand, and the same `tourney serve`
    command continues it later.

    Example: tourney serve-admin stop results/contest
    """
    from harness.serve import pidfile

    found = pidfile.stop(folder)
    typer.echo(f"stopped the server of {folder} (pid {found.pid}"
               f"{', ' + found.url if found.url else ''})")


def admin_deadline_cmd(
    folder: FolderArg,
    deadline: Annotated[str | None, typer.Argument(
        help="The new deadline, e.g. 2026-12-01T18:00Z (UTC unless an offset is given), or "
             "'none'; leave it out to show the plan.")] = None,
    final: FinalOpt = None,
    final_top: FinalTopOpt = None,
    final_rounds: FinalRoundsOpt = None,
    final_pairs: FinalPairsOpt = None,
) -> None:
    """Show or change the submission deadline and the final the server plays after it (also
    while it runs; no longer once the final has begun).

    Example: tourney serve-admin deadline results/contest 2026-12-01T18:00Z --final knockout
    """
    from harness.serve.final import when

    comp = _competition(folder)
    body = _final_body(deadline, final, final_top, final_rounds, final_pairs)
    plan = comp.final.configure(body) if body else comp.final.plan()
    typer.echo(f"deadline: {when(plan.deadline) if plan.deadline is not None else 'none'}")
    rounds = "" if plan.format == "knockout" else \
        f", {plan.rounds if plan.rounds else 'log2 N'} rounds"
    typer.echo(f"final: {plan.format} among the top {plan.top}{rounds}, {plan.pairs} duplicate "
               f"pair{'s' if plan.pairs != 1 else ''} a meeting")
    typer.echo(f"state: {plan.state}{': ' + plan.error if plan.error else ''}")


def admin_retire_cmd(folder: FolderArg, name: NameArg) -> None:
    """Retire an entrant: no more logins or uploads; their bot stops playing (its games
    stay)."""
    _competition(folder).retire(name)
    typer.echo(f"{name} retired")


def admin_list_cmd(
    folder: FolderArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the entrants, their bot that plays and its status."""
    rows = _competition(folder).entrants()
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    if not rows:
        typer.echo("no entrants yet: tourney serve-admin FOLDER add NAME")
    for r in rows:
        status = "retired" if r["disabled"] else r["status"]
        typer.echo(f"{r['name']:<20} {r['bot'] or '-':<16} {status}"
                   f"{': ' + r['reason'] if r['reason'] else ''}")


def admin_settings_cmd(
    folder: FolderArg,
    per_day: Annotated[int | None, typer.Option(
        "--per-day", help="Bots an entrant may send in 24 hours.", min=1)] = None,
    total_mb: Annotated[int | None, typer.Option(
        "--total-mb", help="MB of uploads per entrant, in all.", min=1)] = None,
    upload_mb: Annotated[int | None, typer.Option(
        "--upload-mb", help="MB of one upload.", min=1, max=64)] = None,
    signup_code: Annotated[str | None, typer.Option(
        "--signup-code", help="Open sign-up to whoever knows this code (8 characters or "
                              "more).")] = None,
    no_signup: Annotated[bool, typer.Option("--no-signup", help="Close sign-up.")] = False,
    signups_per_hour: Annotated[int | None, typer.Option(
        "--signups-per-hour", help="Sign-ups the competition code admits in an hour.",
        min=1)] = None,
    log_mb_per_entrant: Annotated[int | None, typer.Option(
        "--log-mb-per-entrant", help="MB of bots' logs each entrant keeps (the oldest are "
                                     "removed first, older versions' before).", min=1)] = None,
    log_mb_total: Annotated[int | None, typer.Option(
        "--log-mb-total", help="MB of bots' logs the competition keeps.", min=1)] = None,
) -> None:
    """Show or change the limits and the sign-up."""
    body: dict[str, Any] = {}
    if per_day is not None:
        body["submissions_per_day"] = per_day
    if total_mb is not None:
        body["total_mb"] = total_mb
    if upload_mb is not None:
        body["upload_mb"] = upload_mb
    if signup_code is not None:
        body["signup_code"] = signup_code
        body["signup"] = "on"
    if no_signup:
        body["signup"] = "off"
    if signups_per_hour is not None:
        body["signups_per_hour"] = signups_per_hour
    if log_mb_per_entrant is not None:
        body["log_mb_per_entrant"] = log_mb_per_entrant
    if log_mb_total is not None:
        body["log_mb_total"] = log_mb_total
    settings = _competition(folder).update_settings(body)
    for key, value in settings.items():
        typer.echo(f"{key}: {value}")


# ----------------------------------------------------------------------------- submit


def _payload(bot: Path) -> tuple[str, bytes]:
    """A bot file as it is, or a bot directory zipped (its files as tourney counts them)."""
    import zipfile

    from harness.bots.spec import BotSpecError, directory_files

    if bot.is_dir():
        try:
            files = directory_files(bot)
        except BotSpecError as exc:
            fail(str(exc))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
            for rel, path in files:
                out.write(path, f"{bot.resolve().name}/{rel}")
        return f"{bot.resolve().name}.zip", buffer.getvalue()
    if not bot.is_file():
        fail(f"no bot file or directory {bot}; give the path of your bot")
    if bot.suffix not in (".py", ".zip"):
        fail(f"{bot} is not a .py file, a .zip or a bot directory")
    return bot.name, bot.read_bytes()


def submit_cmd(
    url: Annotated[str, typer.Argument(help="The competition's address, e.g. "
                                            "http://127.0.0.1:8000.")],
    bot: Annotated[Path, typer.Argument(help="Your bot: file.py, a bot directory, or a .zip "
                                             "of one.")],
    token: Annotated[str | None, typer.Option(
        "--token", help=f"Your token (default: ${TOKEN_ENV}, which keeps it out of your shell "
                        f"history).")] = None,
    wait: Annotated[bool, typer.Option(
        "--wait/--no-wait", help="Wait for the entry check and print its report.")] = True,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds to wait for the entry check.", min=1)] = 600.0,
) -> None:
    """Upload a bot to a competition and print its entry check (exit 1 if it failed).

    Example: TOURNEY_TOKEN=tny_... tourney submit http://127.0.0.1:8000 mybot.py
    """
    import httpx

    token = token or os.environ.get(TOKEN_ENV, "")
    if not token:
        fail(f"give your token with --token or ${TOKEN_ENV} (the organiser sent it to you)")
    name, data = _payload(bot)
    base = url.rstrip("/")
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=60.0) as client:
            made = _answer(client.post("/api/submissions", files={"bot": (name, data)}))
            typer.echo(f"sent {name} as {made['bot']} (sha256 {made['sha256'][:12]}); "
                       f"{'checking ...' if wait else 'the entry check runs on the server'}")
            if not wait:
                return
            end = time.monotonic() + timeout
            while True:
                sub = _answer(client.get(f"/api/submissions/{made['bot']}"))
                if sub["status"] != "validating":
                    break
                if time.monotonic() > end:
                    fail(f"the entry check of {made['bot']} did not end within {timeout:g} s; "
                         f"see your page on {base}/me")
                time.sleep(1.0)
    except httpx.HTTPError as exc:
        fail(f"cannot reach {base}: {exc}; check the address and that the server runs")
    if sub["report"]:
        typer.echo(sub["report"])
    if sub["status"] == "failed":
        typer.echo(f"{made['bot']} failed its entry check: {sub['reason']}", err=True)
        raise typer.Exit(1)
    typer.echo(f"{made['bot']} is {sub['status']}")


def _answer(response: Any) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = {}
    if response.status_code >= 400:
        message = body.get("error") if isinstance(body, dict) else None
        fail(f"the server refused ({response.status_code}): "
             f"{message or response.reason_phrase}")
    if not isinstance(body, dict):
        fail("the server's answer is not what tourney expects; is this a tourney server?")
    return body

