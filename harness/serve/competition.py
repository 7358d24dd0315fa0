"""A competition folder open for business: what ``tourney serve``'s pages and API, and
``tourney serve-admin`` on the command line, do with a living league and its entrants.

The web layer (:mod:`harness.serve.app`) only reads requests, checks who sends them and turns
the answers into pages or JSON; everything it may do lives here, so the command line and the
server do it the same way.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.arena.registry import Registry
from harness.league.index import GameIndex
from harness.records import BotRef
from harness.serve.db import ORGANISER, Account, CompetitionDB, ServeError, Settings, Submission
from harness.serve.final import Final, FinalWatch, StageProcess
from harness.serve.logs import LogJanitor, Pruned, prune
from harness.serve.runner import ArenaProcess, Checker

if TYPE_CHECKING:
    from harness.figures.report.data import Redactor

LEADERBOARD_SECONDS = 1.0  # the leaderboard is computed at most this often
GAMES_SHOWN = 200  # an entrant page's newest games
INDEX_SECONDS = 5.0  # how often the server looks for batch files the index has not seen
REPLAYS_KEPT = 256  # replay pages kept ready (a stored game never changes; ~34 KB each)
BOARD_PROCESS_FILES = 64  # batch files from which the leaderboard is totalled in a helper
BOARD_NICENESS = 5  # the helper's priority below the server's (and above the league's 10)
DAY = 24 * 3600.0
#: The organiser's limits: (setting, lowest, highest).
LIMITS = (("submissions_per_day", 1, 10_000), ("total_mb", 1, 10_000), ("upload_mb", 1, 64),
          ("signups_per_hour", 1, 10_000), ("log_mb_per_entrant", 1, 1_000_000),
          ("log_mb_total", 1, 10_000_000))


def size_text(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f}".removesuffix(".0") + " MB"
    return f"{n >> 10} KB"


class Competition:
    """A competition folder open for business: its databases, its worker processes, and
    everything the pages, the API and ``tourney serve-admin`` do with them."""

    def __init__(self, folder: Path, *, arena: ArenaProcess | None = None,
                 checker: Checker | None = None, public_url: str = "",
                 stage: StageProcess | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        """``stage``: where the final is played when the deadline comes (a server's; without
        one, nothing watches the clock); ``clock``: the time the deadline is compared with."""
        from harness.arena.living import load_arena

        self.folder = folder
        self.config = load_arena(folder)
        self.db = CompetitionDB.open(folder)
        self.arena = arena
        self.checker = checker
        self.public_url = public_url.rstrip("/")
        self.lock = threading.Lock()  # one connection to each database, one user at a time
        # the leaderboard: when it was made, the table, and what it was made from
        self._board: tuple[float, dict[str, Any], tuple[int, ...]] | None = None
        self._board_pool: ProcessPoolExecutor | None = None
        self._board_pool_lock = threading.Lock()
        self.board_process_files = BOARD_PROCESS_FILES
        self._redactor: Redactor | None = None
        self._uploading: dict[str, threading.Lock] = {}
        self._board_lock = threading.Lock()
        # the index of the stored games: built (or caught up) from the store now, kept by the
        # league as it writes, looked over again here at most every INDEX_SECONDS
        self.index = GameIndex.open(folder)
        self._index_checked = time.monotonic()
        self._index_lock = threading.Lock()
        self._replays: OrderedDict[str, str] = OrderedDict()  # the newest replay pages
        # a server whose league plays keeps the bots' logs within their budgets
        self._janitor = LogJanitor(self.prune_logs) if arena is not None else None
        self._pruning = threading.Lock()
        # the submission deadline and the final the server plays after it
        self.final = Final(folder, self.db, self.lock, clock)
        self.watch = None if stage is None else FinalWatch(
            self.final, stage, stop_league=self._stop_league,
            seeding=lambda: board_rows(self.folder))
        if self.watch is not None:
            self.watch.start()

    def close(self) -> None:
        if self.watch is not None:
            self.watch.close()
        if self._janitor is not None:
            self._janitor.stop()
        if self._board_pool is not None:
            self._board_pool.shutdown(wait=True, cancel_futures=True)
            self._board_pool = None
        self.db.close()
        self.index.close()

    def prune_logs(self) -> Pruned:
        """Remove the oldest logs over the organiser's budgets (:mod:`harness.serve.logs`)."""
        settings = self.settings()
        with self._pruning:
            return prune(self.folder, self._games(), settings.log_mb_per_entrant << 20,
                         settings.log_mb_total << 20)

    def _games(self) -> GameIndex:
        """The index, caught up with batch files no process has indexed yet (a league of an
        older tourney, say) at most every INDEX_SECONDS, by one request at a time."""
        if time.monotonic() - self._index_checked >= INDEX_SECONDS and \
                self._index_lock.acquire(blocking=False):
            try:
                self._index_checked = time.monotonic()
                self.index.catch_up()
            finally:
                self._index_lock.release()
        return self.index

    def _entrant_lock(self, entrant: str) -> threading.Lock:
        with self.lock:
            return self._uploading.setdefault(entrant, threading.Lock())

    def playable(self) -> dict[str, BotRef]:
        """The bots a person may play against now (every active version)."""
        with self.registry() as registry:
            return {v.bot: BotRef(v.bot, v.spec, v.sha256)
                    for v in registry.versions(status="active")}

    def registry(self) -> Registry:
        return Registry.open(self.folder)

    # -- reading

    def leaderboard(self) -> dict[str, Any]:
        """The public table, computed at most once a second however many ask, and only when
        the games or the field changed. While one request computes it, the others get the
        last one at once rather than waiting in line (which held every worker thread, and
        every other page with them, while a large league was totalled)."""
        board = self._board
        if board is not None and time.monotonic() - board[0] < LEADERBOARD_SECONDS:
            return board[1]
        if board is None:
            self._board_lock.acquire()
        elif not self._board_lock.acquire(blocking=False):
            return board[1]
        try:
            board = self._board
            if board is not None and time.monotonic() - board[0] < LEADERBOARD_SECONDS:
                return board[1]
            seen = self._board_stamp()
            if board is not None and board[2] == seen:
                fresh = {**board[1], "updated": time.time()}
                self._board = (time.monotonic(), fresh, seen)
                return fresh
            made = {
                "game": self.config.game, "variant": self.config.variant,
                "paused": self.settings().paused, "updated": time.time(),
                "entrants": self._board_rows(),
            }
            self._board = (time.monotonic(), made, seen)
            return made
        finally:
            self._board_lock.release()

    def _board_rows(self) -> list[dict[str, Any]]:
        """The leaderboard's lines. A large league (:data:`BOARD_PROCESS_FILES` batch files
        or more) is totalled in a helper process, so that the server's own requests never
        wait for the interpreter while a million games are summed; a small one here."""
        large = len(os.listdir(self.folder / "games")) >= self.board_process_files
        if large:
            with self._board_pool_lock:
                if self._board_pool is None:
                    self._board_pool = ProcessPoolExecutor(
                        1, mp_context=multiprocessing.get_context("spawn"),
                        initializer=_second_in_line)
                pool = self._board_pool
            try:
                return pool.submit(board_rows, self.folder).result()
            except BrokenProcessPool:
                with self._board_pool_lock:
                    self._board_pool = None  # made again next time; this once, here
        return board_rows(self.folder)

    def _board_stamp(self) -> tuple[int, ...]:
        """What the leaderboard depends on, cheaply: the games folder (a batch added or
        merged), the registry's files (a version added or its status changed), the settings."""
        from harness.arena.registry import DB_FILE as REGISTRY

        out = []
        for path in (self.folder / "games", self.folder / REGISTRY,
                     self.folder / f"{REGISTRY}-wal"):
            try:
                out.append(path.stat().st_mtime_ns)
            except OSError:
                out.append(0)
        out.append(int(self.settings().paused))
        return tuple(out)

    def settings(self) -> Settings:
        with self.lock:
            return self.db.settings()

    def versions_of(self, entrant: str) -> list[dict[str, Any]]:
        """An entrant's submissions, newest first, each with its status and check report."""
        with self.lock:
            subs = {s.bot: s for s in self.db.submissions(entrant)}
        out = []
        redact = self.redactor()
        with self.registry() as registry:
            for v in registry.entrant_versions(entrant):
                sub = subs.get(v.bot)
                out.append({
                    "bot": v.bot, "version": v.version, "status": v.status,
                    "reason": redact.text(v.reason), "report": redact.text(registry.report(v.bot)),
                    "added": v.added, "changed": v.changed, "sha256": v.sha256,
                    "filename": sub.filename if sub else "", "size": sub.size if sub else 0,
                })
        return out[::-1]

    def games_of(self, entrant: str | None, limit: int = GAMES_SHOWN) -> list[dict[str, Any]]:
        """The newest stored games of an entrant's versions (every game: ``entrant`` None),
        newest first, each with when it finished and the entrant's result (``win``, ``draw``,
        ``loss`` or ``void``), from the index: no batch file is read."""
        rows = self._games().games_of(entrant, limit)
        return [{"game_id": r["game_id"], "bots": r["bots"],
                 "winner": r["winner"] if r["rated"] else "void",
                 "termination": r["termination"], "reason": r["reason"],
                 "decisions": r["decisions"], "score": r["score"],
                 "finished": r["finished"],
                 "result": result_of(r, entrant) if entrant is not None else ""} for r in rows]

    def game_row(self, game_id: str, account: Account) -> dict[str, Any]:
        """What the index holds of a stored game (its bots, result and reason), if
        ``account`` may see it (404 otherwise: no hint it exists)."""
        row = self._games().summary(game_id)
        if row is None or not (account.role == ORGANISER or plays(row, account.name)):
            raise ServeError("no such game of yours", 404)
        return row

    def public_row(self, game_id: str) -> dict[str, Any]:
        """What the index holds of a stored game anyone may watch (every game of the league:
        its moves and replay are public, its bots' logs are not)."""
        row = self._games().summary(game_id)
        if row is None:
            raise ServeError("no such game", 404)
        return row

    def stored_game(self, game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The full row and the moves of a stored game (public): one row group of one batch
        file, found through the index."""
        self.public_row(game_id)
        found = self.index.read_game(game_id)
        if found is None:
            raise ServeError("no such game", 404)
        return found

    def redactor(self) -> Redactor:
        """What hides the organiser's paths (the folder, tourney's installation, the home
        directory) from what entrants read: reasons, check reports, replays, logs."""
        from harness.figures.report.data import Redactor

        if self._redactor is None:
            self._redactor = Redactor([self.folder], [self.config])
        return self._redactor

    def replay_html(self, game_id: str, scripts: str | None = None) -> str:
        """The replay viewer of a stored game (public), without the organiser's paths
        (``scripts``: where the page loads its scripts from, instead of inlining them)."""
        from harness.figures.report import StoredGame, replay_html

        self.public_row(game_id)
        with self._board_lock:
            html = self._replays.get(game_id)
        if html is None:
            row, moves = self.stored_game(game_id)
            html = replay_html(StoredGame(row, self.folder, moves), self.redactor(), scripts)
            with self._board_lock:  # a stored game never changes: its viewer is kept a while
                self._replays[game_id] = html
                while len(self._replays) > REPLAYS_KEPT:
                    self._replays.popitem(last=False)
        return html

    def game_json(self, game_id: str) -> dict[str, Any]:
        """A stored game (public), with its moves, as the API gives it."""
        row, moves = self.stored_game(game_id)
        keep = ("game_id", "game", "variant", "seed", "bots", "winner", "rated", "termination",
                "reason", "decisions", "score", "duration")
        out: dict[str, Any] = {k: row[k] for k in keep if k in row}
        out["moves"] = [{"ply": m["ply"], "seat": m["seat"], "action": m["action"],
                         "think_time": m["think_time"]} for m in moves]
        out["replay"] = f"/games/{row['game_id']}"
        out["log"] = f"/api/games/{row['game_id']}/log"
        parsed: dict[str, Any] = json.loads(json.dumps(out, default=str))
        return parsed

    def log_of(self, row: dict[str, Any], account: Account) -> str:
        """The captured output of the seats ``account`` may read (their own bots')."""
        parts = []
        for seat, bot in enumerate(row["bots"]):
            if not (account.role == ORGANISER or bot.startswith(account.name + ".v")):
                continue
            path = self.folder / "logs" / f"{row['game_id']}.seat{seat}.log"
            if path.is_file():
                text = path.read_text(errors="replace")
            else:
                why = self.index.pruned(row["game_id"], seat)
                text = f"(removed: {why})" if why else "(no output)"
            parts.append(f"--- seat {seat}: {bot} ---\n{text}")
        return self.redactor().text("\n".join(parts))

    # -- changing

    def submit(self, entrant: str, filename: str, data: bytes) -> dict[str, Any]:
        """An entrant's upload: checked, unpacked, added as a new version, its check started."""
        from harness.arena import entries
        from harness.arena.registry import ArenaError
        from harness.serve import uploads

        # one upload of an entrant at a time (its quota, its version number), while other
        # requests go on: the registry has a connection of its own
        self.final.check_upload()
        with self._entrant_lock(entrant), tempfile.TemporaryDirectory(prefix="upload-") as tmp:
            settings = self.settings()
            count, total = self.usage(entrant)
            if count >= settings.submissions_per_day:
                raise ServeError(f"you have sent {count} bots in the last 24 hours, the most "
                                 f"the organiser allows; try again tomorrow", 429)
            if total + len(data) > settings.total_mb << 20:
                raise ServeError(f"this upload would take your uploads to "
                                 f"{size_text(total + len(data))}, over the {settings.total_mb}"
                                 f" MB allowed each entrant", 413)
            upload = uploads.unpack(data, filename, Path(tmp))
            with self.registry() as registry:
                try:
                    if registry.entrant(entrant) is None:
                        version = entries.add(registry, entrant, str(upload.path),
                                              source="upload")
                    else:
                        version = entries.update(registry, entrant, str(upload.path))
                except ArenaError as exc:
                    message = str(exc).replace(str(upload.path), filename or "the upload")
                    message = message.replace("; nothing was added", "").replace(
                        " (nothing was added)", "")
                    status = 409 if "same code" in message else 422
                    raise ServeError(message, status) from None
                uploads.keep(self.folder, upload, data)
                with self.lock:
                    self.db.add_submission(Submission(entrant, version.bot,
                                                      clean_name(filename), upload.size,
                                                      upload.sha256, time.time()))
        if self.checker is not None:
            self.checker.submit(version.bot)
        return {"bot": version.bot, "version": version.version, "status": version.status,
                "sha256": upload.sha256, "size": upload.size}

    def invite(self, token: str) -> str:
        """The invitation link of a token: the token rides in the fragment, which browsers
        never send to a server (nor into its logs)."""
        return f"{self.public_url}/login#{token}"

    def check_waiting(self) -> None:
        """Start the entry checks of versions still waiting (after a restart)."""
        if self.checker is None:
            return
        with self.registry() as registry:
            for version in registry.versions(status="validating"):
                self.checker.submit(version.bot)

    def _stop_league(self) -> None:
        """Entries closed: the league plays no more (its games in hand are stored)."""
        if self.arena is not None:
            self.arena.stop()
        self._board = None

    def set_paused(self, paused: bool) -> None:
        if not paused and self.final.closed():
            raise ServeError("entries are closed: the league's standings at the deadline seed "
                             "the final, so the league does not play again", 409)
        with self.lock:
            settings = self.db.settings()
            settings.paused = paused
            self.db.save_settings(settings)
        if self.arena is not None:
            if paused:
                threading.Thread(target=self.arena.stop, daemon=True).start()
            else:
                self.arena.start()
        self._board = None



    def usage(self, entrant: str) -> tuple[int, int]:
        """(uploads in the last 24 hours, bytes of every upload) of an entrant."""
        with self.lock:
            return self.db.usage(entrant, time.time() - DAY)

    # -- the organiser

    def entrants(self) -> list[dict[str, Any]]:
        """Every entrant with the version that plays (or its newest) and its status."""
        with self.lock:
            accounts = self.db.entrants()
        with self.registry() as registry:
            latest = registry.latest()
        out = []
        for account in accounts:
            v = latest.get(account.name)
            out.append({"name": account.name, "created": account.created,
                        "disabled": account.disabled or "",
                        "bot": v.bot if v else "", "status": v.status if v else "no bot yet",
                        "reason": v.reason if v else ""})
        return out

    def add_entrant(self, name: str) -> dict[str, str]:
        """A new entrant: (name, token, invitation link); the token is shown this once."""
        with self.registry() as registry:
            if registry.entrant(name) is not None:
                raise ServeError(f"{name!r} is already an entrant of the league (added from the "
                                 f"command line); choose another name", 409)
        with self.lock:
            token = self.db.add_entrant(name)
        return {"name": name, "token": token, "invite": self.invite(token)}

    def new_token(self, name: str) -> dict[str, str]:
        with self.lock:
            token = self.db.new_entrant_token(name)
        return {"name": name, "token": token, "invite": self.invite(token)}

    def retire(self, name: str) -> dict[str, Any]:
        """An entrant leaves: no more logins or uploads, and their bot stops playing (its games
        and its line in the history stay)."""
        from harness.arena.registry import ArenaError

        with self.lock:
            account = self.db.account(name)
            if account is None or account.role == ORGANISER:
                raise ServeError(f"no entrant {name!r}", 404)
            if account.disabled:
                raise ServeError(f"{name!r} was already retired on {account.disabled}", 409)
            self.db.disable(name)
        with self.registry() as registry:
            if registry.entrant(name) is not None:
                with contextlib.suppress(ArenaError):  # retired from the command line already
                    registry.retire(name)
        self._board = None
        return {"retired": name}

    def update_settings(self, body: dict[str, Any]) -> dict[str, Any]:
        """Change the limits or the sign-up (form values as text, or JSON)."""
        with self.lock:
            settings = self.db.settings()
            for key, low, high in LIMITS:
                if key in body and str(body[key]).strip() != "":
                    try:
                        value = int(str(body[key]))
                    except ValueError:
                        raise ServeError(f"{key} must be a whole number", 422) from None
                    if not low <= value <= high:
                        raise ServeError(f"{key} must be between {low} and {high}", 422)
                    setattr(settings, key, value)
            code = str(body.get("signup_code") or "").strip()
            if code and len(code) < 8:
                raise ServeError("a competition code needs at least 8 characters", 422)
            if "signup" in body:
                settings.signup = str(body["signup"]).lower() in ("1", "true", "on", "yes")
            if settings.signup and not code and not self.db.has_signup_code():
                raise ServeError("open sign-up needs a competition code (8 characters or more) "
                                 "that entrants type to sign up", 422)
            if code:
                self.db.set_signup_code(code)
            self.db.save_settings(settings)
        if any(key.startswith("log_mb") and str(body[key]).strip() for key in body):
            self.prune_logs()  # a lower budget holds at once
        return asdict(settings)

    def download(self) -> Iterator[bytes]:
        """The league folder as a zip, written as it is sent (:mod:`harness.serve.download`):
        games, moves, logs, the databases and league.json, without the league's secret key,
        the sessions, the sign-up code's hash or the organiser's paths."""
        from harness.serve import download

        return download.stream(self.folder, self.redactor())


def _second_in_line() -> None:
    """The leaderboard's helper yields the cores to the server's requests."""
    with contextlib.suppress(OSError):
        os.nice(BOARD_NICENESS)


def board_rows(folder: Path) -> list[dict[str, Any]]:
    """The leaderboard's lines of a competition folder (run in the server or its helper)."""
    from harness.arena import standings

    with Registry.open(folder) as registry:
        rows = standings.standings(folder, registry, view="latest")
    return [{
        "rank": r.rank, "entrant": r.entrant, "version": r.version, "status": r.status,
        "rating": None if r.rating is None else round(r.rating, 1),
        "interval": None if r.sd is None else round(standings.Z95 * r.sd, 1),
        "games": r.games,
    } for r in rows]


def result_of(row: dict[str, Any], entrant: str) -> str:
    """The entrant's result in a game of the index: ``win``, ``draw``, ``loss`` or ``void``
    (a team's winner is named ``a+b``)."""
    if not row["rated"]:
        return "void"
    winner = row["winner"]
    if winner is None:
        return "draw"
    return "win" if any(w.startswith(entrant + ".v") for w in winner.split("+")) else "loss"


def plays(row: dict[str, Any], entrant: str) -> bool:
    """Whether one of the entrant's versions sits at the game's table."""
    return any(b.startswith(entrant + ".v") for b in row["bots"])


def clean_name(filename: str) -> str:
    """An uploaded file's name as it is kept (shown escaped; never used as a path)."""
    name = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    return "".join(c for c in name if c.isprintable())[:100] or "upload"
