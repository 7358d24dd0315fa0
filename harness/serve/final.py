"""A competition's deadline and its final stage, run by the server.

The organiser sets a submission deadline (``tourney serve --deadline``, ``serve-admin
deadline``, the dashboard) and how the final is played (Swiss or knockout among the leaders,
as ``tourney arena final`` plays it). From the deadline on:

1. uploads are refused with one line that says so, and every page shows that entries closed;
2. the server stops the living league, and keeps its leaderboard at that moment (the seeding);
3. a child process plays the stage (:func:`run_final`, :mod:`harness.arena.stage`) in
   ``FOLDER/final``; the leaderboard shows its rounds as they are played;
4. when the stage ends, its table is written once to ``final/standings.json`` with the seeding
   beside it, and from then on that file is what the pages show: the published result.

The plan and its state (``open`` -> ``playing`` -> ``done``, or ``failed`` with the reason) are a
record of the competition's database. Every question about time asks :attr:`Final.clock`, which
tests replace: nobody waits for a deadline to test one.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.serve.db import CompetitionDB, ServeError
from harness.serve.runner import ARENA_LOG, child_command, wait_or_kill

RECORD = "final"  # its key in the competition's database
SEEDING = "final-seeding"  # the leaderboard at the deadline
FINAL_DIR = "final"
STANDINGS_FILE = "standings.json"
OPEN, PLAYING, DONE, FAILED = "open", "playing", "done", "failed"
FORMATS = ("swiss", "knockout")
WATCH_SECONDS = 1.0  # how often the server looks at the clock
RETRY_SECONDS = 30.0  # a stage process that died is started again after this long
PROGRESS_SECONDS = 1.0  # the stage's progress is read at most this often


@dataclass
class FinalPlan:
    deadline: float | None = None  # seconds since the epoch; None: no deadline
    format: str = "swiss"
    top: int = 8  # the leaders who play the final
    rounds: int | None = None  # Swiss rounds (None: log2 of the field)
    pairs: int = 1  # duplicate pairs a meeting
    state: str = OPEN
    began: float | None = None
    ended: float | None = None
    error: str = ""

    @classmethod
    def from_json(cls, text: str | None) -> FinalPlan:
        if not text:
            return cls()
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in json.loads(text).items() if k in known})


def when(seconds: float) -> str:
    """A moment as people read it, in UTC: ``2026-12-01 18:00 UTC``."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def left(seconds: float) -> str:
    """A duration, to the minute: ``3 d 4 h``, ``2 h 5 min``, ``4 min``."""
    minutes = max(int(seconds // 60), 0)
    days, hours, mins = minutes // 1440, minutes // 60 % 24, minutes % 60
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {mins} min"
    return f"{mins} min" if mins else "under a minute"


def parse_deadline(text: str) -> float | None:
    """``2026-12-01T18:00Z``, ``2026-12-01 18:00`` (UTC), with an offset, or ``none``."""
    text = text.strip()
    if text.lower() in ("", "none", "off"):
        return None
    try:
        moment = datetime.fromisoformat(text.replace(" UTC", "Z"))
    except ValueError:
        raise ServeError(f"cannot read the deadline {text!r}; write it as 2026-12-01T18:00Z "
                         f"(UTC), with an offset such as +01:00, or none", 422) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def apply_plan(plan: FinalPlan, body: dict[str, Any]) -> FinalPlan:
    """The organiser's changes (form text or JSON: ``deadline``, ``format``, ``top``,
    ``rounds``, ``pairs``) laid over ``plan``, each checked (422 with one line)."""
    if "deadline" in body:
        plan.deadline = parse_deadline(str(body["deadline"] or ""))
    fmt = str(body.get("format") or plan.format).strip().lower()
    if fmt not in FORMATS:
        raise ServeError(f"the final's format is swiss or knockout, not {fmt!r}", 422)
    plan.format = fmt
    for key, low in (("top", 2), ("rounds", 1), ("pairs", 1)):
        raw = str(body.get(key) if body.get(key) is not None else "").strip()
        if raw == "":
            continue
        try:
            value = int(raw)
        except ValueError:
            raise ServeError(f"{key} must be a whole number", 422) from None
        if not low <= value <= 1000:
            raise ServeError(f"{key} must be between {low} and 1000", 422)
        setattr(plan, key, value)
    return plan


class Final:
    """The deadline and the final of one competition (its record in ``serve.sqlite``)."""

    def __init__(self, folder: Path, db: CompetitionDB, lock: threading.Lock,
                 clock: Callable[[], float] = time.time) -> None:
        self.folder = folder
        self.db = db
        self.lock = lock
        self.clock = clock
        self._shown: tuple[float, dict[str, Any]] | None = None

    @property
    def out(self) -> Path:
        return self.folder / FINAL_DIR

    def plan(self) -> FinalPlan:
        with self.lock:
            return FinalPlan.from_json(self.db.value(RECORD))

    def _save(self, plan: FinalPlan) -> None:
        with self.lock:
            self.db.set_value(RECORD, json.dumps(asdict(plan)))
        self._shown = None

    def closed(self) -> bool:
        """Whether entries are closed: the deadline has come."""
        plan = self.plan()
        return plan.state != OPEN or (plan.deadline is not None and
                                      self.clock() >= plan.deadline)

    def check_upload(self) -> None:
        plan = self.plan()
        if self.closed():
            at = f" at {when(plan.deadline)}" if plan.deadline is not None else ""
            raise ServeError(f"entries closed{at}, the submission deadline; no more bots are "
                             f"taken (the final is played among the leaders)", 403)

    def configure(self, body: dict[str, Any]) -> FinalPlan:
        """The organiser's changes (form text or JSON): ``deadline``, ``format``, ``top``,
        ``rounds``, ``pairs``; refused once the final has begun (a failed one may be set
        again)."""
        plan = self.plan()
        if plan.state in (PLAYING, DONE):
            raise ServeError(f"the final has begun ({plan.state}); its deadline and format can "
                             f"no longer change", 409)
        apply_plan(plan, body)
        if plan.state == FAILED:
            plan.state, plan.error, plan.began = OPEN, "", None
        self._save(plan)
        return plan

    # -- the stage's life (the server's watch and the stage's process)

    # -- the stage's life (the server's watch and the stage's process)

    def begin(self, seeding: list[dict[str, Any]]) -> None:
        """Entries closed: keep the leaderboard of this moment, and let the stage play."""
        plan = self.plan()
        with self.lock:
            self.db.set_value(SEEDING, json.dumps(seeding))
        plan.state, plan.began = PLAYING, self.clock()
        self._save(plan)

    def seeding(self) -> list[dict[str, Any]]:
        with self.lock:
            text = self.db.value(SEEDING)
        rows: list[dict[str, Any]] = json.loads(text) if text else []
        return rows

    def finish(self, table: list[dict[str, Any]]) -> None:
        """The stage's last table, published: written once, never changed."""
        from harness.league.folder import write_json_atomic

        plan = self.plan()
        plan.state, plan.ended = DONE, self.clock()
        write_json_atomic(self.out / STANDINGS_FILE, {
            "format": plan.format, "deadline": plan.deadline, "began": plan.began,
            "ended": plan.ended, "standings": table, "seeding": self.seeding()})
        (self.out / STANDINGS_FILE).chmod(0o644)  # public, unlike league.json
        self._save(plan)

    def fail(self, reason: str) -> None:
        plan = self.plan()
        plan.state, plan.error = FAILED, reason
        self._save(plan)

    # -- what the pages show

    def banner(self) -> dict[str, Any] | None:
        """The line every page shows (None: no deadline, no final)."""
        plan = self.plan()
        if plan.deadline is None and plan.state == OPEN:
            return None
        at = when(plan.deadline) if plan.deadline is not None else "now"
        if plan.state == DONE:
            text = f"Entries closed {at}. The final is over: its standings are published."
        elif plan.state == FAILED:
            text = f"Entries closed {at}. The final could not be played: {plan.error}"
        elif self.closed():
            text = f"Entries closed {at}. The final ({plan.format}) is being played."
        else:
            assert plan.deadline is not None
            text = (f"Submission deadline {at} (in {left(plan.deadline - self.clock())}); "
                    f"then a {plan.format} final among the top {plan.top}.")
        return {"text": text, "state": plan.state, "closed": self.closed(),
                "deadline": plan.deadline}

    def public(self) -> dict[str, Any]:
        """The final as the leaderboard shows it: the plan, and the stage's rounds and table
        as they stand (the published file once it is over). Read at most once a second."""
        shown = self._shown
        if shown is not None and time.monotonic() - shown[0] < PROGRESS_SECONDS and \
                shown[1]["state"] in (OPEN, PLAYING):
            return shown[1]
        plan = self.plan()
        out: dict[str, Any] = {
            "state": plan.state, "deadline": plan.deadline, "format": plan.format,
            "top": plan.top, "closed": self.closed(), "error": plan.error,
            "standings": [], "meetings": [], "games": 0, "published": False}
        if plan.state == DONE and (self.out / STANDINGS_FILE).is_file():
            published = json.loads((self.out / STANDINGS_FILE).read_text())
            out.update(standings=published["standings"], published=True)
        if plan.state in (PLAYING, DONE, FAILED):
            out.update(self._progress(out["published"]))
        self._shown = (time.monotonic(), out)
        return out

    def _progress(self, published: bool) -> dict[str, Any]:
        from harness.arena import stage
        from harness.arena.registry import ArenaError

        try:
            found = stage.progress(self.folder, self.out)
        except ArenaError:
            found = None
        if found is None:
            return {}
        made: dict[str, Any] = {
            "meetings": [{"round": m.round, "tiebreak": tie, "a": m.a, "b": m.b,
                          "points_a": m.points_a, "games": m.games}
                         for m, tie in zip(found.played, found.tiebreaks, strict=True)],
            "games": found.games, "rounds": found.stage.rounds}
        if not published:
            made["standings"] = table_rows(found.standings)
        return made


def table_rows(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """A stage's :class:`~harness.arena.final.Standing` lines as JSON."""
    return [{"rank": r.rank, "bot": r.name, "seed": r.seed, "match_points": r.match_points,
             "game_points": r.game_points, "games": r.games, "tiebreak": r.tiebreak}
            for r in rows]


class StageProcess:
    """The final stage played in a child process of the server (one at a time)."""

    def __init__(self, folder: Path, options: Sequence[str] = ()) -> None:
        self.folder = folder
        self.options = list(options)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.started = 0.0

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        with self._lock:
            if self.running:
                return
            self.started = time.monotonic()
            with open(self.folder / ARENA_LOG, "ab") as log:
                self._proc = subprocess.Popen(
                    child_command("final", str(self.folder), *self.options),
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)

    def close(self, timeout: float = 60.0) -> None:
        """Stop the stage (it resumes at the next start: every meeting is recorded first)."""
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            wait_or_kill(proc, timeout)


class FinalWatch:
    """The server's eye on the clock: at the deadline it stops the league, keeps its
    leaderboard and starts the stage; while the stage should play, it keeps it playing."""

    def __init__(self, final: Final, stage: StageProcess, *, stop_league: Callable[[], None],
                 seeding: Callable[[], list[dict[str, Any]]],
                 seconds: float = WATCH_SECONDS) -> None:
        self.final = final
        self.stage = stage
        self.stop_league = stop_league
        self.seeding = seeding
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(seconds,), daemon=True,
                                        name="final-watch")

    def start(self) -> None:
        self._thread.start()

    def tick(self) -> None:
        plan = self.final.plan()
        if plan.state == OPEN and self.final.closed():
            self.stop_league()
            self.final.begin(self.seeding())
            self.stage.start()
        elif plan.state == PLAYING and not self.stage.running and (
                not self.stage.started or time.monotonic() - self.stage.started > RETRY_SECONDS):
            self.stage.start()  # after a restart of the server, or a stage that died

    def _run(self, seconds: float) -> None:
        while not self._stop.wait(seconds):
            try:
                self.tick()
            except Exception as exc:  # the watch must outlive one bad tick
                print(f"error: the final's watch: {exc}", file=sys.stderr, flush=True)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.stage.close()


def run_final(folder: Path, options: Sequence[str] = ()) -> int:
    """The stage's child process: play the final the plan describes, to its end (or on from
    where it stopped), then publish its table."""
    import argparse

    from harness.arena import living, stage
    from harness.arena.registry import ArenaError
    from harness.league.service import make_executor

    parser = argparse.ArgumentParser(prog="harness.serve.child final")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--cluster")
    args = parser.parse_args(list(options))
    signal.signal(signal.SIGTERM, _interrupt)  # the server stops it: the executor is closed
    with CompetitionDB.open(folder) as db:
        final = Final(folder, db, threading.Lock())
        plan = final.plan()
        if plan.state != PLAYING:
            return 0
        try:
            config = living.load_arena(folder)
            executor = make_executor(args.workers, final.out, args.cluster, None,
                                     bool(config.isolation.get("required")))
            rows = stage.play(folder, final.out, executor, fmt=plan.format, top=plan.top,
                              rounds=plan.rounds, pairs=plan.pairs,
                              say=lambda line: print(f"final: {line}", file=sys.stderr,
                                                     flush=True))
        except ArenaError as exc:
            from harness.figures.report.data import Redactor

            final.fail(Redactor([folder], []).text(str(exc)))  # shown in public
            print(f"final: {exc}", file=sys.stderr, flush=True)
            return 2
        except KeyboardInterrupt:
            print("final: stopped; it goes on at the next start", file=sys.stderr, flush=True)
            return 130
        final.finish(table_rows(rows))
    print(f"final: done, standings in {final.out / STANDINGS_FILE}", file=sys.stderr, flush=True)
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
