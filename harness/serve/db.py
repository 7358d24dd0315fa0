"""The competition's own database (``serve.sqlite`` beside the living league's ``arena.sqlite``):
who may log in, their sessions, what they uploaded, and the organiser's settings.

The living league (:mod:`harness.arena.registry`) stays the one record of entrants' versions and
their statuses, and the Parquet store the one record of games; this database adds only what a
server on a network needs on top:

* **tokens**: an entrant's (or the organiser's) secret, made by :func:`secrets.token_urlsafe`
  (256 bits) and stored as its SHA-256 only. A token of that strength needs no slow password hash:
  nobody can search 2**256 values, and a leaked database gives no token back. A token is found
  by its hash and compared with :func:`hmac.compare_digest`;
* **sessions**: a browser's login, a random id (stored hashed) in an HttpOnly, SameSite cookie,
  with a CSRF token of its own that every form and script must send back;
* **submissions**: each upload that became a version: its file name, size and content hash (the
  upload itself is kept under ``uploads/SHA256.EXT``), for the per-day and size limits;
* **settings**: the limits, the sign-up code (hashed), whether play is paused.

The schema carries a version (``PRAGMA user_version``); :data:`MIGRATIONS` brings an older file up
to date when it is opened, in one transaction.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from harness.records import TourneyError

DB_FILE = "serve.sqlite"
UPLOADS_DIR = "uploads"
SESSION_SECONDS = 7 * 24 * 3600.0
TOKEN_PREFIX = "tny_"

#: Each step brings the schema from its index to the next version.
MIGRATIONS = (
    """
    CREATE TABLE accounts (
        name TEXT PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('entrant', 'organiser')),
        token_hash TEXT NOT NULL UNIQUE,
        created TEXT NOT NULL,
        disabled TEXT
    );
    CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        account TEXT NOT NULL REFERENCES accounts(name),
        csrf TEXT NOT NULL,
        expires REAL NOT NULL
    );
    CREATE TABLE submissions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        entrant TEXT NOT NULL REFERENCES accounts(name),
        bot TEXT NOT NULL UNIQUE,
        filename TEXT NOT NULL,
        size INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        at REAL NOT NULL
    );
    CREATE INDEX submissions_entrant ON submissions (entrant, at);
    CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
)
ORGANISER = "organiser"  # the organiser's account name (no entrant may take it)


class ServeError(TourneyError):
    """What the competition server refuses, with the HTTP status that fits."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Settings:
    """What the organiser may change while the competition runs."""

    submissions_per_day: int = 20  # uploads an entrant may make in 24 hours
    total_mb: int = 50  # the sum of an entrant's uploads
    upload_mb: int = 4  # one upload (a file or a zip), enforced while it is read
    signup: bool = False  # whoever knows the competition code may sign up
    signups_per_hour: int = 30  # sign-ups one competition code admits in an hour
    paused: bool = False  # the living league is stopped (uploads are still checked)
    log_mb_per_entrant: int = 200  # the bots' logs each entrant keeps (oldest removed first)
    log_mb_total: int = 2000  # the bots' logs the competition keeps

    @classmethod
    def from_json(cls, text: str) -> Settings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in json.loads(text).items() if k in known})


@dataclass(frozen=True)
class Account:
    name: str
    role: str  # "entrant" or "organiser"
    created: str
    disabled: str | None


@dataclass(frozen=True)
class Session:
    account: Account
    csrf: str


@dataclass(frozen=True)
class Submission:
    entrant: str
    bot: str  # the rated version, ENTRANT.vN
    filename: str
    size: int
    sha256: str
    at: float


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class CompetitionDB:
    """The database of one competition folder (one connection; open one per thread)."""

    def __init__(self, folder: Path, connection: sqlite3.Connection) -> None:
        self.folder = folder
        self._db = connection

    @classmethod
    def open(cls, folder: Path, *, create: bool = False) -> CompetitionDB:
        path = folder / DB_FILE
        if not create and not path.is_file():
            raise ServeError(f"{folder} is not a competition (no {DB_FILE}); start one with "
                             f"tourney serve {folder} --game GAME")
        try:
            db = sqlite3.connect(path, timeout=30.0, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            _migrate(db)
        except sqlite3.Error as exc:
            raise ServeError(f"cannot open {path}: {exc}; restore it from a backup") from None
        return cls(folder, db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> CompetitionDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        from harness.arena.registry import write_transaction

        return write_transaction(self._db)

    # ------------------------------------------------------------------ accounts

    def set_organiser_token(self) -> str:
        """A new organiser token (the old one stops working, and so do the organiser's
        sessions, which a leaked token may have opened); returned once, stored hashed."""
        token = new_token()
        with self._write() as db:
            db.execute("INSERT INTO accounts (name, role, token_hash, created) VALUES (?, "
                       "'organiser', ?, ?) ON CONFLICT (name) DO UPDATE SET token_hash = "
                       "excluded.token_hash", (ORGANISER, hash_token(token), _now()))
            db.execute("DELETE FROM sessions WHERE account = ?", (ORGANISER,))
        return token

    def has_organiser(self) -> bool:
        return self.account(ORGANISER) is not None

    def add_entrant(self, name: str) -> str:
        """A new entrant; returns its token (shown once)."""
        from harness.arena.registry import ArenaError, check_entrant_name

        try:
            check_entrant_name(name)
        except ArenaError as exc:
            raise ServeError(str(exc), 422) from None
        if name.lower() == ORGANISER:
            raise ServeError(f"{name!r} is reserved; choose another name", 409)
        token = new_token()
        with self._write() as db:
            if db.execute("SELECT 1 FROM accounts WHERE lower(name) = lower(?)",
                          (name,)).fetchone():
                raise ServeError(f"entrant {name!r} already exists; choose another name", 409)
            db.execute("INSERT INTO accounts (name, role, token_hash, created) VALUES (?, "
                       "'entrant', ?, ?)", (name, hash_token(token), _now()))
        return token

    def new_entrant_token(self, name: str) -> str:
        """A new token for an entrant who lost theirs (the old one stops working, and so do
        their sessions)."""
        token = new_token()
        with self._write() as db:
            cur = db.execute("UPDATE accounts SET token_hash = ? WHERE name = ? AND role = "
                             "'entrant'", (hash_token(token), name))
            if cur.rowcount == 0:
                raise ServeError(f"no entrant {name!r}", 404)
            db.execute("DELETE FROM sessions WHERE account = ?", (name,))
        return token

    def disable(self, name: str) -> None:
        """An entrant may no longer log in or upload (their games stay)."""
        with self._write() as db:
            db.execute("UPDATE accounts SET disabled = ? WHERE name = ? AND disabled IS NULL",
                       (_now(), name))
            db.execute("DELETE FROM sessions WHERE account = ?", (name,))

    def account(self, name: str) -> Account | None:
        row = self._db.execute("SELECT name, role, created, disabled FROM accounts WHERE name = "
                               "?", (name,)).fetchone()
        return None if row is None else Account(*row)

    def entrants(self) -> list[Account]:
        return [Account(*r) for r in self._db.execute(
            "SELECT name, role, created, disabled FROM accounts WHERE role = 'entrant' ORDER BY "
            "rowid")]

    def login(self, token: str) -> Account | None:
        """The account a token belongs to (None: no such token, or disabled)."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        wanted = hash_token(token)
        row = self._db.execute("SELECT name, role, created, disabled, token_hash FROM accounts "
                               "WHERE token_hash = ?", (wanted,)).fetchone()
        if row is None or not hmac.compare_digest(row[4], wanted) or row[3]:
            return None
        return Account(*row[:4])

    # ------------------------------------------------------------------ sessions

    def new_session(self, account: Account) -> tuple[str, str]:
        """(the cookie's session id, its CSRF token)."""
        sid, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        clock = time.time()
        with self._write() as db:
            db.execute("DELETE FROM sessions WHERE expires < ?", (clock,))
            db.execute("INSERT INTO sessions (id_hash, account, csrf, expires) VALUES (?, ?, ?, "
                       "?)", (hash_token(sid), account.name, csrf, clock + SESSION_SECONDS))
        return sid, csrf

    def session(self, sid: str) -> Session | None:
        if not sid or len(sid) > 200:
            return None
        row = self._db.execute("SELECT account, csrf, expires FROM sessions WHERE id_hash = ?",
                               (hash_token(sid),)).fetchone()
        if row is None or row[2] < time.time():
            return None
        account = self.account(row[0])
        if account is None or account.disabled:
            return None
        return Session(account, row[1])

    def end_session(self, sid: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM sessions WHERE id_hash = ?", (hash_token(sid),))

    def end_all_sessions(self) -> int:
        """Log everyone out (the organiser too); returns how many sessions were open. Tokens
        keep working: everyone logs in again with theirs."""
        with self._write() as db:
            cur = db.execute("DELETE FROM sessions WHERE expires >= ?", (time.time(),))
            db.execute("DELETE FROM sessions")
        return max(cur.rowcount, 0)

    # ------------------------------------------------------------------ submissions

    def add_submission(self, sub: Submission) -> None:
        with self._write() as db:
            db.execute("INSERT INTO submissions (entrant, bot, filename, size, sha256, at) "
                       "VALUES (?, ?, ?, ?, ?, ?)", (sub.entrant, sub.bot, sub.filename,
                                                     sub.size, sub.sha256, sub.at))

    def submissions(self, entrant: str) -> list[Submission]:
        return [Submission(*r) for r in self._db.execute(
            "SELECT entrant, bot, filename, size, sha256, at FROM submissions WHERE entrant = ? "
            "ORDER BY id", (entrant,))]

    def usage(self, entrant: str, since: float) -> tuple[int, int]:
        """(uploads since ``since``, bytes of every upload) of an entrant."""
        recent = self._db.execute("SELECT count(*) FROM submissions WHERE entrant = ? AND at >= "
                                  "?", (entrant, since)).fetchone()[0]
        total = self._db.execute("SELECT coalesce(sum(size), 0) FROM submissions WHERE entrant "
                                 "= ?", (entrant,)).fetchone()[0]
        return int(recent), int(total)

    # ------------------------------------------------------------------ settings

    def settings(self) -> Settings:
        row = self._db.execute("SELECT value FROM settings WHERE key = 'settings'").fetchone()
        return Settings.from_json(row[0]) if row else Settings()

    def save_settings(self, settings: Settings) -> None:
        with self._write() as db:
            db.execute("INSERT INTO settings (key, value) VALUES ('settings', ?) ON CONFLICT "
                       "(key) DO UPDATE SET value = excluded.value",
                       (json.dumps(asdict(settings)),))

    def value(self, key: str) -> str | None:
        """A stored value of the competition's own (a module's record, e.g. the final's)."""
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_value(self, key: str, text: str) -> None:
        with self._write() as db:
            db.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO "
                       "UPDATE SET value = excluded.value", (key, text))

    def set_signup_code(self, code: str | None) -> None:
        with self._write() as db:
            if code is None:
                db.execute("DELETE FROM settings WHERE key = 'signup_code'")
            else:
                db.execute("INSERT INTO settings (key, value) VALUES ('signup_code', ?) ON "
                           "CONFLICT (key) DO UPDATE SET value = excluded.value",
                           (hash_token(code),))

    def has_signup_code(self) -> bool:
        return self._db.execute("SELECT 1 FROM settings WHERE key = 'signup_code'"
                                ).fetchone() is not None

    def signup_code_ok(self, code: str) -> bool:
        row = self._db.execute("SELECT value FROM settings WHERE key = 'signup_code'"
                               ).fetchone()
        return row is not None and hmac.compare_digest(row[0], hash_token(code))


def _migrate(db: sqlite3.Connection) -> None:
    have = int(db.execute("PRAGMA user_version").fetchone()[0])
    if have > len(MIGRATIONS):
        raise sqlite3.DatabaseError(f"the database is of a newer tourney (schema {have}); "
                                    f"upgrade tourney")
    if have == len(MIGRATIONS):
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        have = int(db.execute("PRAGMA user_version").fetchone()[0])  # another process won
        for step in MIGRATIONS[have:]:
            for statement in step.split(";"):
                if statement.strip():
                    db.execute(statement)
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
