"""Who is in a living league: entrants, the versions of their code, and each version's status,
kept in an embedded SQLite database (``arena.sqlite`` in the arena's folder).

The running arena and the commands that change the field (``tourney arena add``, ``update``,
``retire``, ``reinstate``) are different processes; SQLite's locking (write-ahead log, a busy
timeout) lets them write at the same time without losing anything. The games themselves are in
the folder's Parquet store (:mod:`harness.league.store`), the one source of truth for results.

* An **entrant** is the organiser's name for a participant (``alice``): letters, digits, ``-``
  and ``_``; never what a bot directory's manifest calls itself.
* A **version** is one exact piece of code of an entrant, rated on its own under the bot name
  ``ENTRANT.vN`` (``alice.v2``); its files are copied into ``bots/ENTRANT/vN/`` when it arrives,
  so later edits of the original change nothing. A changed file is a new version, never mixed
  with the old one's games.
* A version's **status**: ``validating`` (waiting for the entry check), ``active`` (rated games),
  ``failed`` (the entry check refused it; the reason is kept), ``replaced`` (a newer version
  passed its check; the old one's games stay stored), ``suspended`` (it kept forfeiting after it
  was admitted; ``reinstate`` lets it play again), ``retired`` (its entrant left; its games and
  place in the history stay).
* A version's **entry check** is claimed by the process that runs it (the running arena, or
  ``tourney serve`` the moment an entrant uploads), so no two run it at once; a claim older than
  :data:`CLAIM_SECONDS` is taken over (its process died). The check's report is kept.
* An **assignment** is a duplicate pair the matchmaker chose: written before its games are
  played, so a restart plays exactly the pairs whose games are not stored yet, with the same ids
  and deals.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.records import TourneyError

DB_FILE = "arena.sqlite"
BOTS_DIR = "bots"
INBOX_DIR = "inbox"
STATUSES = ("validating", "active", "failed", "replaced", "suspended", "retired")
CLAIM_SECONDS = 600.0  # an entry check claimed longer ago than this is taken over
_ENTRANT = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entrants (
    name TEXT PRIMARY KEY,
    added TEXT NOT NULL,
    retired TEXT,
    source TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    bot TEXT PRIMARY KEY,
    entrant TEXT NOT NULL REFERENCES entrants(name),
    version INTEGER NOT NULL,
    spec TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    added TEXT NOT NULL,
    changed TEXT NOT NULL,
    UNIQUE (entrant, version)
);
CREATE TABLE IF NOT EXISTS assignments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    deal INTEGER NOT NULL,
    created TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS assignments_pair ON assignments (a, b);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS checks (
    bot TEXT PRIMARY KEY REFERENCES versions(bot),
    claimed TEXT NOT NULL,
    report TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    entrant TEXT NOT NULL,
    bot TEXT NOT NULL,
    what TEXT NOT NULL
);
"""


class ArenaError(TourneyError):
    """A living league that cannot do what was asked; one clear line for the user."""


@contextlib.contextmanager
def write_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One transaction that takes the write lock at once (no lost update between processes);
    rolled back whole on any error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def now() -> str:
    """The time as the registry stores it (UTC, ISO 8601, seconds)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def check_entrant_name(name: str) -> None:
    """Refuse a name that could not be an entrant's (it names folders and rated bots)."""
    if not _ENTRANT.match(name):
        raise ArenaError(f"entrant name {name!r} is not allowed: use 1 to 40 letters, digits, "
                         f"'-' or '_', starting with a letter (e.g. alice or team-7)")


def bot_name(entrant: str, version: int) -> str:
    """The rated name of an entrant's version: ``alice.v2``."""
    return f"{entrant}.v{version}"


@dataclass(frozen=True)
class Version:
    bot: str  # the rated name, ENTRANT.vN
    entrant: str
    version: int
    spec: str  # the copy's spec (a path inside the arena folder, a built-in, or cmd:)
    sha256: str
    status: str
    reason: str
    added: str
    changed: str


@dataclass(frozen=True)
class Assignment:
    seq: int
    a: str
    b: str
    deal: int  # the deal-set index of the pairing a-b (its games are 2*deal and 2*deal+1)


class Registry:
    """The arena's database, open in one process. Use :meth:`open` or :meth:`create`."""

    def __init__(self, folder: Path, connection: sqlite3.Connection) -> None:
        self.folder = folder
        self._db = connection

    @classmethod
    def create(cls, folder: Path) -> Registry:
        """A new (or the existing) registry of ``folder``."""
        try:
            folder.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(folder / DB_FILE, timeout=30.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ArenaError(f"cannot create the arena's database in {folder}: {exc}; choose a "
                             f"folder you may write") from None
        return cls(folder, db)

    @classmethod
    def open(cls, folder: Path) -> Registry:
        """The registry of an existing living league folder."""
        path = folder / DB_FILE
        if not path.is_file():
            raise ArenaError(f"{folder} is not a living league (no {DB_FILE}); start one with "
                             f"tourney arena run {folder} --game GAME")
        try:
            db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("SELECT count(*) FROM versions").fetchone()
            db.executescript(_SCHEMA)  # tables added since the folder was made
        except sqlite3.Error as exc:
            raise ArenaError(f"cannot read {path}: {exc}; restore it from a backup") from None
        return cls(folder, db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return write_transaction(self._db)

    # ------------------------------------------------------------------ reading

    def versions(self, *, status: str | None = None) -> list[Version]:
        """Every version (of ``status`` only, if given), oldest first."""
        sql = "SELECT bot, entrant, version, spec, sha256, status, reason, added, changed " \
              "FROM versions"
        rows = (self._db.execute(sql + " WHERE status = ? ORDER BY rowid", (status,))
                if status else self._db.execute(sql + " ORDER BY rowid"))
        return [Version(*row) for row in rows]

    def version(self, bot: str) -> Version | None:
        found = [v for v in self.versions() if v.bot == bot]
        return found[0] if found else None

    def entrant_versions(self, entrant: str) -> list[Version]:
        return [v for v in self.versions() if v.entrant == entrant]

    def entrant(self, name: str) -> tuple[str, str | None, str] | None:
        """(added, retired, source) of an entrant, or None."""
        row = self._db.execute("SELECT added, retired, source FROM entrants WHERE name = ?",
                               (name,)).fetchone()
        return None if row is None else (row[0], row[1], row[2])

    def entrants(self) -> list[tuple[str, str, str | None, str]]:
        """(name, added, retired, source) of every entrant, in the order they came."""
        return [tuple(r) for r in self._db.execute(
            "SELECT name, added, retired, source FROM entrants ORDER BY rowid")]

    def latest(self) -> dict[str, Version]:
        """Each entrant's version in the standings: its active (or suspended) one, else its
        newest."""
        out: dict[str, Version] = {}
        for v in self.versions():
            held = out.get(v.entrant)
            if held is None or held.status not in ("active", "suspended") or \
                    v.status in ("active", "suspended"):
                out[v.entrant] = v
        return out

    def events(self, limit: int = 50) -> list[tuple[str, str, str, str]]:
        """The newest events (time, entrant, bot, what), newest last."""
        rows = self._db.execute("SELECT at, entrant, bot, what FROM events ORDER BY seq DESC "
                                "LIMIT ?", (limit,)).fetchall()
        return [tuple(r) for r in reversed(rows)]

    # ------------------------------------------------------------------ changing the field

    def add_entrant(self, name: str, source: str) -> None:
        check_entrant_name(name)
        with self._write() as db:
            known = db.execute("SELECT retired FROM entrants WHERE name = ?", (name,)).fetchone()
            if known is not None:
                if known[0]:
                    raise ArenaError(f"entrant {name!r} was retired from {self.folder} (its games "
                                     f"stay in the history); choose another name")
                raise ArenaError(f"entrant {name!r} is already in {self.folder}; send a new "
                                 f"version with: tourney arena update {self.folder} {name} SPEC")
            db.execute("INSERT INTO entrants (name, added, retired, source) VALUES (?, ?, NULL, "
                       "?)", (name, now(), source))
            db.execute("INSERT INTO events (at, entrant, bot, what) VALUES (?, ?, '', ?)",
                       (now(), name, f"joined ({source})"))

    def next_version(self, entrant: str) -> int:
        row = self._db.execute("SELECT max(version) FROM versions WHERE entrant = ?",
                               (entrant,)).fetchone()
        return int(row[0] or 0) + 1

    def add_version(self, entrant: str, version: int, spec: str, sha256: str) -> Version:
        """Record a new version, waiting for its entry check."""
        bot = bot_name(entrant, version)
        stamp = now()
        with self._write() as db:
            db.execute("INSERT INTO versions (bot, entrant, version, spec, sha256, status, reason, "
                       "added, changed) VALUES (?, ?, ?, ?, ?, 'validating', '', ?, ?)",
                       (bot, entrant, version, spec, sha256, stamp, stamp))
            db.execute("INSERT INTO events (at, entrant, bot, what) VALUES (?, ?, ?, ?)",
                       (stamp, entrant, bot, f"version {version} arrived (sha256 {sha256[:12]})"))
        found = self.version(bot)
        assert found is not None
        return found

    def set_status(self, bot: str, status: str, reason: str = "") -> None:
        """Move a version to ``status`` (with the reason, for failed and suspended ones); an
        admitted version replaces its entrant's previous active or suspended one."""
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        stamp = now()
        with self._write() as db:
            row = db.execute("SELECT entrant FROM versions WHERE bot = ?", (bot,)).fetchone()
            if row is None:
                raise ArenaError(f"no bot {bot!r} in {self.folder}")
            entrant = row[0]
            if status == "active":
                db.execute("UPDATE versions SET status = 'replaced', reason = ?, changed = ? "
                           "WHERE entrant = ? AND bot != ? AND status IN ('active', "
                           "'suspended')", (f"replaced by {bot}", stamp, entrant, bot))
            db.execute("UPDATE versions SET status = ?, reason = ?, changed = ? WHERE bot = ?",
                       (status, reason, stamp, bot))
            what = status + (f": {reason}" if reason else "")
            db.execute("INSERT INTO events (at, entrant, bot, what) VALUES (?, ?, ?, ?)",
                       (stamp, entrant, bot, what))

    def retire(self, entrant: str) -> list[str]:
        """An entrant leaves: its versions still waiting or playing are retired (their games
        stay). Returns the versions retired."""
        with self._write() as db:
            row = db.execute("SELECT retired FROM entrants WHERE name = ?", (entrant,)).fetchone()
            if row is None:
                raise ArenaError(f"no entrant {entrant!r} in {self.folder}; `tourney arena "
                                 f"status {self.folder}` lists them")
            if row[0]:
                raise ArenaError(f"entrant {entrant!r} was already retired on {row[0]}")
            stamp = now()
            bots = [r[0] for r in db.execute(
                "SELECT bot FROM versions WHERE entrant = ? AND status IN ('validating', "
                "'active', 'suspended')", (entrant,))]
            db.execute("UPDATE versions SET status = 'retired', reason = 'entrant retired', "
                       "changed = ? WHERE entrant = ? AND status IN ('validating', 'active', "
                       "'suspended')", (stamp, entrant))
            db.execute("UPDATE entrants SET retired = ? WHERE name = ?", (stamp, entrant))
            db.execute("INSERT INTO events (at, entrant, bot, what) VALUES (?, ?, '', 'retired')",
                       (stamp, entrant))
        return bots

    def require_active_entrant(self, entrant: str) -> None:
        """Refuse an entrant that is unknown or retired (for update, reinstate)."""
        info = self.entrant(entrant)
        if info is None:
            raise ArenaError(f"no entrant {entrant!r} in {self.folder}; add it with: tourney "
                             f"arena add {self.folder} {entrant} SPEC")
        if info[1]:
            raise ArenaError(f"entrant {entrant!r} was retired from {self.folder} on {info[1]}; "
                             f"a retired entrant takes no new versions (add it under another "
                             f"name)")

    # ------------------------------------------------------------------ assignments

    def assign(self, pairs: list[tuple[str, str]]) -> list[Assignment]:
        """Record the duplicate pairs chosen to play next, each under the next deal index of its
        pairing; they are played (again, after a crash) until their games are stored."""
        out = []
        stamp = now()
        with self._write() as db:
            for a, b in pairs:
                lo, hi = (a, b) if a <= b else (b, a)
                row = db.execute("SELECT max(deal) FROM assignments WHERE a = ? AND b = ?",
                                 (lo, hi)).fetchone()
                deal = 0 if row[0] is None else int(row[0]) + 1
                cur = db.execute("INSERT INTO assignments (a, b, deal, created) VALUES "
                                 "(?, ?, ?, ?)", (lo, hi, deal, stamp))
                out.append(Assignment(int(cur.lastrowid or 0), a, b, deal))
        return out

    def assignments_since(self, seq: int) -> list[Assignment]:
        """The assignments after ``seq`` (0: all), oldest first."""
        rows = self._db.execute("SELECT seq, a, b, deal FROM assignments WHERE seq > ? ORDER BY "
                                "seq", (seq,))
        return [Assignment(*row) for row in rows]

    def assignment_count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM assignments").fetchone()[0])

    def last_seq(self) -> int:
        """The newest assignment's number (0: none yet)."""
        return int(self._db.execute("SELECT max(seq) FROM assignments").fetchone()[0] or 0)

    def complete_through(self) -> int:
        """Every assignment up to this number had all its games stored at the last start."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'complete_through'"
                               ).fetchone()
        return int(row[0]) if row else 0

    def set_complete_through(self, seq: int) -> None:
        with self._write() as db:
            db.execute("INSERT INTO meta (key, value) VALUES ('complete_through', ?) ON "
                       "CONFLICT (key) DO UPDATE SET value = excluded.value", (str(seq),))

    # ------------------------------------------------------------------ entry checks

    def claim_check(self, bot: str, stale: float = CLAIM_SECONDS) -> bool:
        """Claim the entry check of a version waiting for one: False when it is not waiting,
        or another process claimed it less than ``stale`` seconds ago."""
        clock = time.time()
        with self._write() as db:
            row = db.execute("SELECT status FROM versions WHERE bot = ?", (bot,)).fetchone()
            if row is None or row[0] != "validating":
                return False
            held = db.execute("SELECT claimed FROM checks WHERE bot = ?", (bot,)).fetchone()
            if held is not None and clock - float(held[0]) < stale:
                return False
            db.execute("INSERT INTO checks (bot, claimed, report) VALUES (?, ?, '') ON CONFLICT "
                       "(bot) DO UPDATE SET claimed = excluded.claimed", (bot, repr(clock)))
        return True

    def set_report(self, bot: str, lines: list[str]) -> None:
        """Keep the entry check's report (what ``tourney validate`` would print)."""
        with self._write() as db:
            db.execute("INSERT INTO checks (bot, claimed, report) VALUES (?, ?, ?) ON CONFLICT "
                       "(bot) DO UPDATE SET report = excluded.report",
                       (bot, repr(time.time()), "\n".join(lines)))

    def report(self, bot: str) -> str:
        """The entry check's report of a version ('' before its check ended)."""
        row = self._db.execute("SELECT report FROM checks WHERE bot = ?", (bot,)).fetchone()
        return str(row[0]) if row else ""

    def note(self, entrant: str, bot: str, what: str) -> None:
        """An event worth showing (an inbox file refused, a restart)."""
        with self._write() as db:
            db.execute("INSERT INTO events (at, entrant, bot, what) VALUES (?, ?, ?, ?)",
                       (now(), entrant, bot, what))


def public_reason(status: str, reason: str) -> str:
    """What anyone may read of why a version has its status: a refusal's reason (its entry
    check's findings, which may quote the entrant's code) is the entrant's own; a suspension,
    a replacement or a retirement is said as it is."""
    if status == "failed":
        return "refused by its entry check" if reason else ""
    return reason
