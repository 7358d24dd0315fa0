"""A human seat: play a bot yourself in the browser, on the competition server or locally.

:class:`SeatWeb` holds the seat's request handlers; its routes are ordinary routes of the
competition server's one application under ``/play`` (:func:`harness.serve.app.create_app`), or
of a small server on 127.0.0.1 under a random token (``tourney play GAME human BOT``,
:func:`serve_local`). Under that prefix:

* ``GET /``: a form (bot, seat; the seed only where the human may choose the deal) and the
  caller's games;
* ``POST /new``: a game session (JSON ``{"bot", "seat"}`` answers ``{"id", "url"}``; a form is
  redirected to the game's page);
* ``GET /g/{id}``: the game's page, the replay viewer's board made interactive;
* ``GET /g/{id}/state``: what the human may know, as JSON: their own view of the position (the
  seat's observation; the bots' hands only as counts), the legal actions when it is their turn,
  the moves as every seat saw them (a hidden card stays hidden) and the result once over (with
  the deal's seed, secret until then);
* ``POST /g/{id}/move`` (``{"action": ...}``): the human's move, refused (400) unless it is
  their turn and the action is legal; ``POST /g/{id}/resign``;
* ``GET /g/{id}/replay``: the stored game in the replay viewer, once it is over.

Every change sends the session's CSRF token (the server's check, :class:`SeatSite`).

A session runs one game in a thread of its own through the referee (:func:`play_game`), exactly
as a league plays: the bots are opened from their specs (sandboxed when the spec says so) under
their limits, and the human's seat is an in-process bot (:class:`HumanSeat`) whose ``act`` waits
for the browser's move. The bots start late: with the human's first move, or when the human
looks at a game whose bot moves first; a game nobody plays holds no process. The human has no
clock, only an idle limit: with no move for ``idle_seconds`` the human forfeits; a first move
that does not come within ``first_move_seconds`` abandons the game (not stored). Resigning
forfeits too. On a competition server the deal comes from the league's secret key
(``HumanGames(key=...)``), not from the human. Every finished game is stored in the ``store``
folder (a results folder of kind ``human`` of its own, never an arena's) and replays with the
ordinary viewer; a game interrupted by the server stopping is not stored. However a game ends,
the referee closes the bots' processes.
"""

from __future__ import annotations

import functools
import re
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from harness.league.folder import ResultsFolder, load_config
from harness.records import BotRef, GameRecord, GameSpec, Limits, TourneyError

JSON = dict[str, Any]

KIND = "human"  # the league kind of a human games folder (league.json)
IDLE_SECONDS = 30 * 60.0  # the human forfeits after this long without a move
FIRST_MOVE_SECONDS = 3 * 60.0  # on a server, a game whose first move never comes is abandoned
PER_USER = 2  # live games per user
OVERALL = 8  # live games on the server
KEEP_SECONDS = 3600.0  # a finished game's page stays this long (its replay stays for good)
HUMAN_SPEC = "human"  # what league.json says of the human seat's spec
MAX_ACTION = 200  # characters of a move's text
RESIGNED = "resigned"  # why a human who resigned left

_HERE = Path(__file__).resolve().parent
_SEAT_SPEC = f"inproc:{_HERE / 'human.py'}:HumanSeat"  # the referee loads the human seat so


class HumanError(TourneyError):
    """A request the human seat refuses: ``status`` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class HumanLeft(Exception):
    """Raised in the human's ``act``: the human resigned, went idle, or the server stops."""


@dataclass(frozen=True)
class SeatRules:
    """How long a human may take and how many games may be in progress.

    ``idle_seconds``: with no move for this long the human forfeits (the game is stored);
    ``first_move_seconds``: a game whose human has not made a first move this long after their
    first turn began is abandoned (not stored) and its place freed; ``per_user`` and
    ``overall``: games in progress; ``keep_seconds``: a finished game's page stays this long."""

    idle_seconds: float = IDLE_SECONDS
    first_move_seconds: float = FIRST_MOVE_SECONDS
    per_user: int = PER_USER
    overall: int = OVERALL
    keep_seconds: float = KEEP_SECONDS


# ----------------------------------------------------------------------------- the seat


class HumanSeat:
    """The human's seat as the referee sees it: an in-process bot whose ``act`` waits for the
    browser. The referee creates it in the session's own thread, which carries the session
    (:class:`_GameThread`); anywhere else it refuses to load."""

    def __init__(self) -> None:
        link = getattr(threading.current_thread(), "human_session", None)
        if link is None:
            raise RuntimeError("the human seat plays only in a human game session")
        self.session = link

    def act(self, observation: Mapping[str, Any], legal_actions: list[str]) -> str:
        answer: str = self.session.decide(dict(observation), legal_actions)
        return answer


class _GameThread(threading.Thread):
    human_session: Session


# ----------------------------------------------------------------------------- sessions


@dataclass
class Session:
    """One human game: its seats, what the human may see of it, and the thread playing it."""

    id: str
    user: str
    game: str
    variant: dict[str, str]
    seed: int
    seats: tuple[BotRef, ...]
    human: int
    limits: Limits
    rules: SeatRules
    game_id: str = ""
    cond: threading.Condition = field(default_factory=threading.Condition)
    version: int = 0
    view: JSON | None = None
    legal: list[str] | None = None  # the human's legal actions while the game waits for them
    turn_started: float = 0.0  # monotonic time the human's current decision began
    first: bool = True  # the human has not moved yet
    started: bool = False  # the game's thread (and the bots) started
    pending: str | None = None  # the human's move, accepted and not yet taken by the game
    leaving: str = ""  # why the human's seat forfeits at its next decision
    cancelled: bool = False  # interrupted: not stored
    ended: str = ""  # why a game that is not stored ended (abandoned, the server stopped)
    history: list[list[Any]] = field(default_factory=list)  # [seat, public action, auto]
    anchor: int = 0  # history index just after the human's last own move
    record: GameRecord | None = None
    error: str = ""  # the game could not be played or stored
    stored: bool = False
    finished_at: float = 0.0  # monotonic
    done: threading.Event = field(default_factory=threading.Event)
    seen_result: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    @property
    def live(self) -> bool:
        return not self.done.is_set()

    def seat_view(self, observation: Mapping[str, Any]) -> JSON:
        """The human's view of a position, from their observation alone: the one every seat's
        view is made by (:meth:`games.protocol.GameInfo.seat_view`, the replay's too), from
        what the game declares private (their own hand, the bots' as counts)."""
        from games import registry

        return registry.get(self.game).info.seat_view(observation)

    # -- the game thread's side

    def decide(self, observation: JSON, legal: list[str]) -> str:
        """The human's decision (the :class:`HumanSeat`'s ``act``): publish the view and the
        legal actions, wait for a move; raise :class:`HumanLeft` when the human leaves."""
        with self.cond:
            self.view = self.seat_view(observation)
            if self.pending is None:  # (a first move made before the game started is taken)
                self.legal = list(legal)
                self.turn_started = time.monotonic()
            self.version += 1
            self.cond.notify_all()
            rules = self.rules
            # a first move that never comes abandons the game, where that limit is the shorter
            abandons = self.first and rules.first_move_seconds < rules.idle_seconds
            limit = rules.first_move_seconds if abandons else rules.idle_seconds
            while self.pending is None and not self.leaving:
                left = self.turn_started + limit - time.monotonic()
                if left <= 0:
                    if abandons:
                        self.abandon()
                    else:
                        self.leaving = f"left the game (no move for {_duration(limit)})"
                    break
                self.cond.wait(min(left, 1.0))
            action, self.pending, self.legal = self.pending, None, None
            self.version += 1
            if action is None:
                raise HumanLeft(self.leaving)
            return action

    def moved(self, state: Any, move: Any) -> None:
        """After every move (the referee's ``on_move``): the human's view and the public
        history (the human's own moves as played, the others' as the events show them)."""
        observation = state.observation(self.human)
        with self.cond:
            if move.seat == self.human:
                self.history.append([move.seat, move.action, False])
                self.anchor = len(self.history)
            self.history[self.anchor:] = [[e["seat"], e["action"], bool(e.get("auto"))]
                                          for e in observation.get("events", [])]
            self.view = self.seat_view(observation)
            self.version += 1
            self.cond.notify_all()

    # -- the web's side

    def submit(self, action: object) -> None:
        """Accept the human's move, or :class:`HumanError` (400) saying why not."""
        if not isinstance(action, str) or not action.strip():
            raise HumanError(400, 'give the move as an action string, e.g. {"action": "..."}')
        action = action.strip()
        shown = action if len(action) <= 60 else action[:60] + "..."
        with self.cond:
            if not self.live or self.leaving:
                raise HumanError(400, "the game is over; start a new one")
            if self.legal is None:
                raise HumanError(400, "it is not your turn: wait for the bot's move")
            if len(action) > MAX_ACTION or action not in self.legal:
                raise HumanError(400, f"{shown!r} is not a legal move now; choose one of the "
                                      f"{len(self.legal)} legal moves")
            self.pending, self.legal, self.first = action, None, False
            self.version += 1
            self.cond.notify_all()

    def abandon(self) -> None:
        """No first move came in time: the game ends and is not stored (call holding
        ``cond``)."""
        self.ended = (f"the game was abandoned: no first move within "
                      f"{_duration(self.rules.first_move_seconds)}; it is not stored")
        self.leaving = self.leaving or "abandoned the game"
        self.cancelled = True
        self.cond.notify_all()

    def leave(self, reason: str, *, cancel: bool = False) -> None:
        """The human's seat forfeits at its next decision (``cancel``: and nothing is stored)."""
        with self.cond:
            if not self.leaving:
                self.leaving = reason
            self.cancelled = self.cancelled or cancel
            self.cond.notify_all()

    def snapshot(self, base: str) -> JSON:
        """The human's part of the game as JSON (``GET /g/{id}/state``): never the true state."""
        with self.cond:
            out: JSON = {
                "id": self.id, "game": self.game, "variant": self.variant,
                "seats": [ref.name for ref in self.seats], "human": self.human,
                "version": self.version, "view": self.view,
                "your_turn": self.legal is not None, "legal": list(self.legal or []),
                "history": [list(h) for h in self.history],
                "over": not self.live, "result": None, "error": self.error,
            }
            if not self.live:
                out["result"] = self.result(base)
                self.seen_result.set()
            return out

    def result(self, base: str) -> JSON | None:
        """The end of the game, with its deal seed (secret while the game is played)."""
        record = self.record
        if record is None or self.cancelled:
            return {"text": self.error or self.ended or "the game was interrupted (the server "
                                                        "stopped) and is not stored",
                    "winners": [], "returns": [], "scores": [], "termination": "",
                    "reason": "", "replay": "", "seed": str(self.seed)}
        return {"text": record.result_line(), "winners": record.winners,
                "returns": record.returns, "scores": record.scores,
                "termination": record.termination.value, "reason": record.reason,
                "game_id": record.game_id, "seed": str(self.seed),
                "replay": f"{base}/g/{self.id}/replay" if self.stored else ""}


def _duration(seconds: float) -> str:
    """``1800`` -> "30 minutes", ``1`` -> "1 second"."""
    if seconds >= 60:
        value, unit = seconds / 60, "minute"
    else:
        value, unit = seconds, "second"
    return f"{value:g} {unit}{'' if value == 1 else 's'}"


class HumanGames:
    """The human games of one game and variant: sessions by id, their limits, and the results
    folder every finished game is stored in."""

    def __init__(self, *, game: str, variant: Mapping[str, str], store: Path,
                 limits: Limits | None = None, league: str = KIND,
                 rules: SeatRules | None = None, key: bytes | None = None) -> None:
        """``key``: deal every game from this secret key (a competition's league key): the
        human cannot choose the deal, and learns its seed when the game is over. Without it
        the human may choose the seed (``tourney play``)."""
        from games import registry
        from games.protocol import GameError

        try:
            engine, chosen = registry.choose(game, dict(variant))
        except GameError as exc:
            raise HumanError(400, str(exc.args[0] if exc.args else exc)) from None
        self.engine = engine
        self.game = engine.info.name
        self.variant = dict(chosen)
        self.players = engine.new_game(0, **self.variant).num_players
        self.store = store
        self.limits = limits or Limits()
        self.league = league
        self.rules = rules or SeatRules()
        self.key = key
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()
        self.store_lock = threading.Lock()

    # -- sessions

    @property
    def seeds_chosen(self) -> bool:
        """Whether the human may choose the deal (not on a server, which deals from its key)."""
        return self.key is None

    def create(self, user: str, bots: Sequence[BotRef], human: int,
               seed: int | None = None) -> Session:
        """A game: ``bots`` in the other seats in order, the human in seat ``human``. Its bots
        start with the human's first move, or when the human looks at a game whose bot moves
        first (:meth:`start`)."""
        from harness.league import schedule
        from harness.match.validation import unguessable_seed

        if seed is not None and not self.seeds_chosen:
            raise HumanError(400, "on this server the cards are dealt from the competition's "
                                  "secret key, and the seed is shown when the game is over; "
                                  "leave out the seed")
        if not 0 <= human < self.players:
            raise HumanError(400, f"seat {human} does not exist: {self.game} here has seats "
                                  f"0 to {self.players - 1}")
        if len(bots) != self.players - 1:
            raise HumanError(400, f"{self.game} here needs {self.players - 1} bot(s) beside "
                                  f"you, got {len(bots)}")
        if seed is None and self.key is None:
            seed = unguessable_seed()
        if seed is not None and not 0 <= seed < 1 << 62:
            raise HumanError(400, "the seed must be a whole number from 0 to 2^62 - 1")
        self.prune()
        self.check_room(user)
        seats = self._seats(user, bots, human)
        self.prepare(seats)
        with self.lock:
            self.check_room(user, locked=True)
            sid = secrets.token_hex(8)
            game_id = f"human-{sid}"
            if seed is None:
                assert self.key is not None
                seed = schedule.keyed_seed(self.key, "human-deal", game_id)
            session = Session(sid, user, self.game, self.variant, seed, seats, human,
                              self.limits, self.rules, game_id=game_id)
            # the deal as the human sees it (and their first moves, when they begin), until
            # the game's thread shows more
            dealt = self.engine.new_game(seed, **self.variant)
            session.view = session.seat_view(dealt.observation(human))
            if dealt.current_player == human:
                session.legal = dealt.legal_actions()
            session.turn_started = time.monotonic()
            self.sessions[sid] = session
        return session

    def start(self, session: Session) -> None:
        """Start the game's thread, which opens the bots (once; not for a game that ended)."""
        with self.lock, session.cond:
            if session.started or not session.live:
                return
            session.started = True
        thread = _GameThread(target=self._run, args=(session,), name=f"human-{session.id}",
                             daemon=True)
        thread.human_session = session
        session.thread = thread
        thread.start()

    def expire(self) -> None:
        """End the games not started whose human let the first-move limit pass: they hold a
        place and nothing else (their bots never started)."""
        now = time.monotonic()
        with self.lock:
            waiting = [s for s in self.sessions.values() if not s.started and s.live]
        for s in waiting:
            with s.cond:
                if s.started or not s.live or \
                        now - s.turn_started < self.rules.first_move_seconds:
                    continue
                s.abandon()
                self._finished(s)

    @staticmethod
    def _finished(session: Session) -> None:
        """Mark ``session`` over (call holding its ``cond``)."""
        session.legal = None
        session.finished_at = time.monotonic()
        session.done.set()
        session.version += 1
        session.cond.notify_all()

    def check_room(self, user: str, *, locked: bool = False) -> None:
        """:class:`HumanError` (429) when ``user`` or the server has no room for another game."""
        if not locked:
            self.expire()
            with self.lock:
                self.check_room(user, locked=True)
            return
        live = [s for s in self.sessions.values() if s.live]
        mine = [s for s in live if s.user == user]
        if len(mine) >= self.rules.per_user:
            raise HumanError(429, f"you already have {len(mine)} games in progress, the "
                                  f"limit; finish or resign one first")
        if len(live) >= self.rules.overall:
            raise HumanError(429, f"{len(live)} human games are in progress, the server's "
                                  f"limit; try again in a few minutes")

    def _seats(self, user: str, bots: Sequence[BotRef], human: int) -> tuple[BotRef, ...]:
        """The seats: the human's named ``human:<user>``; a bot stored earlier in the folder
        under its name with other code is named ``name@hash7``, a name twice ``name#seat``."""
        stored = self._stored_config()
        refs: list[BotRef] = []
        others = iter(bots)
        for seat in range(self.players):
            if seat == human:
                refs.append(BotRef(f"human:{user}", HUMAN_SPEC))
                continue
            ref = next(others)
            old = stored.bot(ref.name) if stored is not None else None
            if old is not None and old.sha256 and old.sha256 != ref.sha256:
                ref = BotRef(f"{ref.name}@{ref.sha256[:7] or 'unhashed'}", ref.spec, ref.sha256)
            if any(r.name == ref.name for r in refs):
                ref = BotRef(f"{ref.name}#{seat}", ref.spec, ref.sha256)
            refs.append(ref)
        return tuple(refs)

    def get(self, sid: str, user: str) -> Session:
        """The session ``sid`` of ``user``; 404 for anyone else's (as for no session)."""
        self.expire()
        with self.lock:
            session = self.sessions.get(sid)
        if session is None or not secrets.compare_digest(session.user, user):
            raise HumanError(404, "no such game (it may have ended more than an hour ago)")
        return session

    def of(self, user: str) -> list[Session]:
        with self.lock:
            return [s for s in self.sessions.values() if s.user == user]

    def prune(self) -> None:
        """End the games abandoned before their first move; forget finished games after
        ``keep_seconds``."""
        self.expire()
        now = time.monotonic()
        with self.lock:
            for sid, s in list(self.sessions.items()):
                if not s.live and now - s.finished_at > self.rules.keep_seconds:
                    del self.sessions[sid]

    def close(self, timeout: float = 30.0) -> None:
        """Interrupt every live game (not stored) and wait for their bots to be closed."""
        with self.lock:
            live = [s for s in self.sessions.values() if s.live]
        for s in live:
            s.leave("left the game (the server stopped)", cancel=True)
            with self.lock, s.cond:
                if not s.started and s.live:  # no thread to end it
                    s.started = True
                    self._finished(s)
        deadline = time.monotonic() + timeout
        for s in live:
            if s.thread is not None:
                s.thread.join(max(0.0, deadline - time.monotonic()))

    # -- playing

    def _run(self, session: Session) -> None:
        from harness.match.referee import play_game

        rules = self.rules
        human_limits = Limits(move_time=max(rules.idle_seconds, rules.first_move_seconds),
                              overage=0.0)
        spec = GameSpec(
            session.game_id, self.game, dict(self.variant), session.seed,
            tuple(BotRef(r.name, _SEAT_SPEC) if seat == session.human else r
                  for seat, r in enumerate(session.seats)),
            league=self.league, limits=self.limits,
            seat_limits=tuple(human_limits if seat == session.human else self.limits
                              for seat in range(self.players)))
        try:
            folder = ResultsFolder(self.store)
            record = play_game(spec, log_dir=folder.logs, on_move=session.moved,
                               hide=folder.cover())
            if record.offender == session.human and session.leaving:
                record.reason = f"seat {session.human} ({record.seats[session.human]}) " \
                                f"{session.leaving}"
                if session.leaving == RESIGNED:  # what it is, not the crash the referee saw
                    from harness.records import Termination

                    record.termination = Termination.RESIGNED
            session.record = record
            if not session.cancelled:
                self.save(record, session.seats)
                session.stored = True
        except Exception as exc:  # the harness failed: say so on the page, keep serving
            session.error = f"the game could not be played or stored: {exc}"
        finally:
            with session.cond:
                self._finished(session)

    # -- storing

    def _stored_config(self) -> Any:
        config = ResultsFolder(self.store).stored_config()
        if config is None:
            return None
        if config.kind != KIND:
            raise HumanError(500, f"{self.store} holds a {config.kind} league, not human "
                                  f"games; store human games in a folder of their own")
        return config

    def config(self, seats: Sequence[BotRef]) -> Any:
        """The league configuration of the folder with ``seats``' bots added."""
        from harness.league.config import GameChoice

        bots: list[BotRef] = []
        for ref in seats:
            if all(b.name != ref.name for b in bots):
                bots.append(ref)
        game = GameChoice(self.game, self.variant, self.engine.info.rules_version, self.players)
        return ResultsFolder(self.store).new_config(
            game, name=self.league, kind=KIND, games_per_pair=1, bots=bots,
            stored=self._stored_config(), limits=self.limits)

    def prepare(self, seats: Sequence[BotRef]) -> None:
        """Write the folder's configuration with ``seats``' bots before their game starts, so
        that a folder that cannot take its results fails now, before anyone plays."""
        from harness.league.config import StoreError
        from harness.league.store import ResultsStore

        try:
            with self.store_lock:
                ResultsStore.open(self.store, self.config(seats)).close()
        except StoreError as exc:
            raise HumanError(500, str(exc)) from None

    def save(self, record: GameRecord, seats: Sequence[BotRef]) -> None:
        from harness.league.store import ResultsStore

        with self.store_lock, ResultsStore.open(self.store, self.config(seats)) as store:
            store.add(record)
            store.flush()


# ----------------------------------------------------------------------------- the web pages


@dataclass(frozen=True)
class SeatSite:
    """What the human seat's pages take from the server they are part of.

    ``who(request)``: the player's name, or an error (not logged in); ``check(request,
    form_token)``: a change's CSRF check (``form_token``: the form's ``csrf`` field, None for a
    script, which sends the ``X-CSRF-Token`` header); ``csrf(request)``: the session's CSRF
    token, written into the page for its scripts; ``base``: where the seat's pages are
    (``/play``); ``assets``: where :func:`harness.serve.pages.script` serves the scripts;
    ``local``: the page of :func:`serve_local`, whose server stops when the game is over;
    ``banner()``: the competition's deadline line that its every page shows (None: none)."""

    who: Callable[[Request], str]
    check: Callable[[Request, str | None], None]
    csrf: Callable[[Request], str]
    base: str
    assets: str
    local: bool = False
    banner: Callable[[], Mapping[str, Any] | None] = lambda: None


def wants_json(request: Request) -> bool:
    """Whether a request to the human seat wants JSON (its API) rather than a page."""
    path = request.url.path
    return (path.endswith(("/state", "/move", "/resign"))
            or "json" in request.headers.get("content-type", "")
            or "json" in request.headers.get("accept", ""))


class SeatWeb:
    """The human seat's request handlers (the module docstring lists them), for the routes of
    :meth:`routes`, which a server puts into its own routing table."""

    def __init__(self, games: HumanGames, bots: Callable[[], Mapping[str, BotRef]],
                 site: SeatSite) -> None:
        self.games, self.bots, self.site = games, bots, site

    def routes(self) -> list[BaseRoute]:
        base = self.site.base
        return [
            Route(f"{base}/", self.index, methods=["GET"]),
            Route(f"{base}/new", self.new, methods=["POST"]),
            Route(f"{base}/g/{{sid}}", self.page, methods=["GET"]),
            Route(f"{base}/g/{{sid}}/state", self.state, methods=["GET"]),
            Route(f"{base}/g/{{sid}}/move", self.move, methods=["POST"]),
            Route(f"{base}/g/{{sid}}/resign", self.resign, methods=["POST"]),
            Route(f"{base}/g/{{sid}}/replay", self.replay, methods=["GET"]),
        ]

    # -- helpers

    def render(self, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        from harness.serve.pages import templates, viewer_headers

        context.setdefault("message", "")
        html = templates().get_template("human.html.j2").render(
            csrf=self.site.csrf(request), base=self.site.base, assets=self.site.assets,
            game_title=self.games.engine.info.title, css=_css(), deadline=self.site.banner(),
            **context)
        return HTMLResponse(html, status, headers=viewer_headers())

    async def failed(self, request: Request, exc: Exception) -> Response:
        """A :class:`HumanError` as JSON or as a page (the local server's error handler)."""
        assert isinstance(exc, HumanError)
        headers = {"Retry-After": "60"} if exc.status == 429 else {}
        if wants_json(request):
            return JSONResponse({"error": str(exc)}, exc.status,
                                headers={**headers, "Cache-Control": "no-store"})
        response = self.render(request, exc.status, view="message", message=str(exc))
        response.headers.update(headers)
        return response

    async def change(self, request: Request) -> dict[str, Any]:
        """The fields of a change (JSON or a form), once its CSRF token is checked."""
        if "json" in request.headers.get("content-type", ""):
            try:
                data = await request.json()
            except ValueError:
                raise HumanError(400, "the request's JSON does not parse") from None
            if not isinstance(data, dict):
                raise HumanError(400, "send a JSON object")
            self.site.check(request, None)
            return data
        try:
            async with request.form(max_files=0, max_fields=20) as form:
                fields = {k: v for k, v in form.items() if isinstance(v, str)}
        except Exception as exc:  # the form parser's refusals
            raise HumanError(400, f"the form could not be read: {exc}") from None
        self.site.check(request, fields.get("csrf", ""))
        return fields

    def session(self, request: Request) -> Session:
        """The caller's game of the request's address (404 for anyone else's)."""
        return self.games.get(request.path_params["sid"], self.site.who(request))

    def looked_at(self, session: Session) -> None:
        """The human looks at a game whose bot moves first: its bots start now."""
        if not session.started and session.legal is None:
            self.games.start(session)

    # -- pages and API

    def index(self, request: Request) -> Response:
        user = self.site.who(request)
        self.games.prune()
        mine = sorted(self.games.of(user), key=lambda s: s.live, reverse=True)
        listing = [{"url": f"{self.site.base}/g/{s.id}", "seats": _seats_text(s),
                    "live": s.live} for s in mine]
        rules = self.games.rules
        return self.render(request, view="form", bots=sorted(self.bots()),
                           players=self.games.players, games=listing, user=user,
                           variant=_variant_text(self.games.variant),
                           choose_seed=self.games.seeds_chosen,
                           idle=_duration(rules.idle_seconds),
                           first=_duration(rules.first_move_seconds),
                           abandons=rules.first_move_seconds < rules.idle_seconds)

    async def new(self, request: Request) -> Response:
        user = self.site.who(request)
        data = await self.change(request)
        offered = self.bots()
        names = data.get("bots")
        if names is None:
            names = [data.get("bot")] * (self.games.players - 1)
        if not isinstance(names, list) or not names:
            raise HumanError(400, "choose a bot to play")
        chosen: list[BotRef] = []
        for name in names:
            if not isinstance(name, str) or name not in offered:
                shown = str(name)[:60]
                raise HumanError(400, f"there is no bot {shown!r} to play; choose one of the "
                                      f"{len(offered)} listed")
            chosen.append(offered[name])
        seat = _whole(data.get("seat", 0), "seat")
        seed_text = data.get("seed")
        seed = None if seed_text in (None, "") else _whole(seed_text, "seed")
        session = await run_in_threadpool(self.games.create, user, chosen, seat, seed)
        url = f"{self.site.base}/g/{session.id}"
        if "json" in request.headers.get("content-type", ""):
            return JSONResponse({"id": session.id, "url": url}, 201)
        return RedirectResponse(url, 303)

    def page(self, request: Request) -> Response:
        session = self.session(request)
        self.looked_at(session)
        base = f"{self.site.base}/g/{session.id}"
        meta = {
            "game": session.game, "players": len(session.seats), "human": session.human,
            "seats": [ref.name for ref in session.seats],
            "board": _board(session.game, len(session.seats)),
            "state_url": f"{base}/state", "move_url": f"{base}/move",
            "resign_url": f"{base}/resign", "home_url": f"{self.site.base}/",
            "local": self.site.local,
        }
        return self.render(request, view="game", meta=meta, seats_text=_seats_text(session),
                           variant=_variant_text(session.variant))

    def state(self, request: Request) -> Response:
        session = self.session(request)
        self.looked_at(session)
        return JSONResponse(session.snapshot(self.site.base),
                            headers={"Cache-Control": "no-store"})

    async def move(self, request: Request) -> Response:
        session = self.session(request)
        data = await self.change(request)
        session.submit(data.get("action"))
        self.games.start(session)  # a first move starts the bots
        return JSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})

    async def resign(self, request: Request) -> Response:
        session = self.session(request)
        self.site.check(request, None)
        if not session.live:
            raise HumanError(400, "the game is over already")
        session.leave(RESIGNED)
        self.games.start(session)  # the referee stores the forfeit
        return JSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})

    def replay(self, request: Request) -> Response:
        from harness.figures.report import find_game, replay_html
        from harness.figures.report.data import Redactor
        from harness.serve.pages import viewer_headers

        session = self.session(request)
        if not session.stored or session.record is None:
            raise HumanError(404, "the replay is there once the game is over and stored")
        folder = self.games.store
        with self.games.store_lock:
            stored = find_game(folder, session.record.game_id)
            html = replay_html(stored, Redactor([folder], [load_config(folder)]),
                               scripts=f"{self.site.assets}/report")
        return HTMLResponse(html, headers=viewer_headers())


def _whole(value: object, what: str) -> int:
    text = str(value).strip()
    if not re.fullmatch(r"\d{1,19}", text):
        raise HumanError(400, f"the {what} must be a whole number, not {text[:30]!r}")
    return int(text)


def _seats_text(session: Session) -> str:
    return " · ".join(f"seat {i}: {ref.name}" for i, ref in enumerate(session.seats))


def _variant_text(variant: Mapping[str, str]) -> str:
    from harness.league.config import describe_variant

    return describe_variant(dict(variant))


def _board(game: str, players: int) -> Any:
    from harness.figures.report.frames import board_geometry

    return board_geometry(game, players)


@functools.cache
@functools.cache
def _css() -> str:
    """The replay viewer's stylesheet with the human seat's and the deadline's laid over it
    (read once)."""
    from harness.figures.report.render import asset

    static = _HERE / "static"
    return asset("style.css") + "".join((static / name).read_text(encoding="utf-8")
                                        for name in ("human.css", "deadline.css"))


# ----------------------------------------------------------------------------- locally


@dataclass
class LocalServer:
    """A human game served on this machine (:func:`serve_local`)."""

    url: str
    session: Session
    games: HumanGames
    server: Any
    thread: threading.Thread

    def wait(self, linger: float = 10.0) -> Session:
        """Until the game ends, then until the page showed the result (at most ``linger``
        seconds); stops the server. Ctrl-C interrupts the game (not stored) and stops it."""
        try:
            while not self.session.done.wait(0.25):
                pass
            self.session.seen_result.wait(linger)
        finally:
            self.stop()
        return self.session

    def stop(self) -> None:
        self.games.close()
        self.server.should_exit = True
        self.thread.join(10)


def local_app(games: HumanGames, bots: Sequence[BotRef], user: str, token: str) -> Starlette:
    """The application of :func:`serve_local`: the seat's pages under ``/TOKEN`` (the token is
    the secret: no login, no cookie), ``user`` playing."""
    from harness.serve.pages import script

    named = {ref.name: ref for ref in bots}
    prefix = f"/{token}"

    def nothing(request: Request, form_token: str | None) -> None:
        """No cookie a foreign page could ride on: the address's token is the secret."""

    site = SeatSite(who=lambda request: user, check=nothing, csrf=lambda request: "",
                    base=prefix, assets=f"{prefix}/static", local=True)
    web = SeatWeb(games, lambda: named, site)
    routes = [*web.routes(), Route(f"{prefix}/static/{{name:path}}", script)]
    return Starlette(routes=routes, exception_handlers={HumanError: web.failed})


def serve_local(*, game: str, variant: Mapping[str, str], bots: Sequence[BotRef], human: int,
                store: Path, user: str, seed: int | None = None, limits: Limits | None = None,
                host: str = "127.0.0.1", port: int = 0) -> LocalServer:
    """Start a human game against ``bots`` (the other seats, in order) on a local server: its
    page is ``url``, under a random token. Raises :class:`TourneyError` subclasses for a game
    that cannot be played or stored here."""
    import socket

    import uvicorn

    # one game, the person who asked for it: no first-move limit beyond the idle one
    games = HumanGames(game=game, variant=variant, store=store, limits=limits,
                       rules=SeatRules(first_move_seconds=IDLE_SECONDS, per_user=1, overall=1))
    token = secrets.token_urlsafe(24)
    app = local_app(games, bots, user, token)
    session = games.create(user, bots, human, seed)  # the folder is checked: fails early
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        games.close()
        raise HumanError(500, f"cannot serve on {host}:{port}: {exc.strerror}") from None
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off",
                                           access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name="tourney-human-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    if not server.started:
        games.close()
        server.should_exit = True
        raise HumanError(500, f"the local server did not start on {host}")
    bound = sock.getsockname()[1]
    url = f"http://{host}:{bound}/{token}/g/{session.id}"
    return LocalServer(url, session, games, server, thread)


def default_store(game: str, variant: Mapping[str, str]) -> Path:
    """Where ``tourney play GAME human BOT`` stores games by default: ``results/human/GAME``
    (with the variant's options that differ from the defaults: ``battleline-players=3``)."""
    from games import registry

    engine = registry.get(game)
    defaults = {v.key: v.default for v in engine.info.variants}
    extra = "-".join(f"{k}={v}" for k, v in sorted(variant.items()) if defaults.get(k) != v)
    return Path("results") / "human" / (engine.info.name + (f"-{extra}" if extra else ""))
