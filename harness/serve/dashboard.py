"""The organiser's dashboard: how the competition is doing, on one page (``/admin/dashboard``)
and as JSON (``/api/admin/dashboard``), in the spirit of fishtest's: games played and their
rate, the league's workers, the queue of entry checks, recent forfeits and suspensions, the
server's own errors and the disk the folder takes. And the house bots: built-in baselines the
organiser adds to the field from the page.

Every figure is read from what the league already keeps (the index of games, the registry, the
games' ``finished_at``), never counted from every game; the folder's size is walked at most
every :data:`DISK_SECONDS`.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.records import Termination
from harness.serve.db import ServeError

if TYPE_CHECKING:
    from harness.serve.competition import Competition
    from harness.serve.errors import ErrorBook

RATE_WINDOWS = ((600.0, "last 10 minutes"), (3600.0, "last hour"))
DISK_SECONDS = 30.0  # the folder's size is walked at most this often
SHOWN = 10  # forfeits, suspensions and errors listed
FORFEITS = tuple(t.value for t in Termination if t.is_forfeit)
#: The folder's parts, as the dashboard names them.
PARTS = (("games", "games"), ("moves", "moves"), ("logs", "bots' logs"),
         ("bots", "bots' code"), ("uploads", "uploads"), ("final", "the final"),
         ("human", "people's games"))
HOUSE_SOURCE = "house"


def disk_text(n: int) -> str:
    """Bytes as the dashboard shows them: ``720 KB``, ``3.1 MB``, ``71.8 GB``."""
    from harness.serve.competition import size_text

    if n >= 1 << 30:
        return f"{n / (1 << 30):.1f}".removesuffix(".0") + " GB"
    return size_text(n)


def _size(path: Path) -> int:
    """Bytes of a file, or of every file under a folder."""
    if path.is_file():
        return path.stat().st_size
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue  # removed meanwhile (a merged batch, a pruned log)
    return total


class Dashboard:
    """The figures of one competition (the server keeps one; it caches the disk walk)."""

    def __init__(self, competition: Competition, errors: ErrorBook) -> None:
        self.competition = competition
        self.errors = errors
        self._disk: tuple[float, dict[str, Any]] | None = None
        self._lock = threading.Lock()

    def figures(self) -> dict[str, Any]:
        comp = self.competition
        games = comp.index
        return {
            "games": {"stored": games.count(), "rates": self.rates()},
            "league": self.league(),
            "checks": self.checks(),
            "forfeits": [{"game_id": g["game_id"], "bots": g["bots"],
                          "termination": g["termination"], "reason": g["reason"]}
                         for g in games.newest_ending(FORFEITS, SHOWN)],
            "suspended": self.suspended(),
            "errors": {"count": self.errors.count, "recent": [
                {"at": at, "line": line} for at, line in self.errors.newest()[:SHOWN]]},
            "disk": self.disk(),
            "final": comp.final.public(),
            "house": self.house(),
        }

    def rates(self) -> list[dict[str, Any]]:
        """Games finished in each window, and per minute: read from the ``finished_at`` of the
        batch files written within the longest window (a few files, one column)."""
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        longest = max(w for w, _ in RATE_WINDOWS)
        now = time.time()
        stamps = []
        for name, (_size, mtime, _games) in self.competition.index.live_files().items():
            if mtime / 1e9 < now - longest:
                continue
            try:
                column = pq.read_table(self.competition.folder / "games" / name,
                                       columns=["finished_at"]).column("finished_at")
            except (OSError, ValueError):
                continue  # merged away meanwhile
            stamps.append(pc.cast(column, "int64"))
        out = []
        for window, label in RATE_WINDOWS:
            since = int((now - window) * 1000)
            count = sum(int(pc.sum(pc.greater_equal(s, since)).as_py() or 0) for s in stamps)
            out.append({"window": label, "games": count,
                        "per_minute": round(count / (window / 60), 1)})
        return out

    def league(self) -> dict[str, Any]:
        """Whether the league plays, with how many workers, and how often it was restarted."""
        from harness.match.placement import cpu_count

        comp = self.competition
        arena = comp.arena
        workers: int | str = cpu_count()
        if arena is not None and "--workers" in arena.options:
            workers = int(arena.options[arena.options.index("--workers") + 1]) or "in-process"
        if arena is not None and "--cluster" in arena.options:
            workers = "a Dask cluster"
        plan = comp.final.plan()
        if comp.final.closed():
            state = f"entries closed; the final is {plan.state}"
        elif comp.settings().paused:
            state = "paused"
        else:
            state = "playing" if arena is not None and arena.running else "not playing"
        return {"state": state, "workers": workers,
                "restarts": arena.restarts if arena is not None else 0}

    def checks(self) -> list[dict[str, Any]]:
        """The versions waiting for their entry check, oldest first."""
        with self.competition.registry() as registry:
            waiting = registry.versions(status="validating")
        return [{"bot": v.bot, "since": v.added} for v in sorted(waiting, key=lambda v: v.added)]

    def suspended(self) -> list[dict[str, Any]]:
        with self.competition.registry() as registry:
            found = registry.versions(status="suspended")
        found.sort(key=lambda v: v.changed, reverse=True)
        redact = self.competition.redactor()
        return [{"bot": v.bot, "since": v.changed, "reason": redact.text(v.reason)}
                for v in found[:SHOWN]]

    def disk(self) -> dict[str, Any]:
        """Bytes of each part of the folder and of it all, and the space left on its disk."""
        with self._lock:
            if self._disk is not None and time.monotonic() - self._disk[0] < DISK_SECONDS:
                return self._disk[1]
        folder = self.competition.folder
        parts = [{"part": label, "bytes": _size(folder / name)} for name, label in PARTS
                 if (folder / name).exists()]
        total = _size(folder)
        usage = shutil.disk_usage(folder)
        made = {"parts": parts, "total": total, "free": usage.free, "device": usage.total}
        with self._lock:
            self._disk = (time.monotonic(), made)
        return made

    def house(self) -> list[dict[str, Any]]:
        """The house bots (baselines the organiser added) and their status."""
        with self.competition.registry() as registry:
            names = {name for name, _added, _retired, source in registry.entrants()
                     if source == HOUSE_SOURCE}
            latest = registry.latest()
        return [{"name": n, "bot": latest[n].bot if n in latest else "",
                 "spec": latest[n].spec if n in latest else "",
                 "status": latest[n].status if n in latest else "retired"}
                for n in sorted(names)]

    def add_house(self, name: str, spec: str) -> dict[str, Any]:
        """A built-in bot joins the field as a house bot (an entrant with no account)."""
        from harness.arena import entries
        from harness.arena.registry import ArenaError
        from harness.bots.spec import BUILTINS, BotSpecError, parse_spec

        comp = self.competition
        name, spec = name.strip(), spec.strip()
        try:
            parsed = parse_spec(spec)
        except BotSpecError as exc:
            raise ServeError(f"{exc}; a house bot is a built-in: {', '.join(BUILTINS)}, with "
                             f"options such as mcts:iters=200", 422) from None
        if not parsed.builtin or parsed.forced:
            raise ServeError(f"a house bot is a built-in ({', '.join(BUILTINS)}, with options "
                             f"such as mcts:iters=200), not {spec!r}; other bots join with "
                             f"tourney arena add or as entrants", 422)
        with comp.lock:
            taken = comp.db.account(name) is not None or name.lower() == "organiser"
        if taken:
            raise ServeError(f"{name!r} is an entrant's name already; choose another", 409)
        if comp.final.closed():
            raise ServeError("entries are closed: no bot joins after the deadline", 409)
        with comp.registry() as registry:
            try:
                version = entries.add(registry, name, parsed.builtin_text, source=HOUSE_SOURCE)
            except ArenaError as exc:
                raise ServeError(str(exc).replace("; nothing was added", ""),
                                 409 if "already" in str(exc) or "retired" in str(exc)
                                 else 422) from None
        if comp.checker is not None:
            comp.checker.submit(version.bot)
        comp._board = None
        return {"name": name, "bot": version.bot, "spec": parsed.builtin_text,
                "status": version.status}
