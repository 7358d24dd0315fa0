"""The organiser's download of a competition: the league folder as a zip, written while it is
sent (never whole in memory), for the record.

It holds the games and moves, the bots' logs, the databases and ``league.json``, and leaves
out what must not travel with it:

* the league's secret key (``league.json`` is written without it);
* the entrants' code and uploads, the inbox, the human seat's files, hidden files (the index of
  the games and the caches, which the folder makes again);
* the browser sessions and the sign-up code's hash (``serve.sqlite`` is copied with SQLite's
  backup, those rows deleted and the copy vacuumed, so nothing of them is left in free pages);
* the organiser's absolute paths (the folder, tourney's installation, the home directory, the
  bots' files), written as labels such as ``<results folder>`` in every text file, in every
  text column of the databases, and in the games files' text columns (a crash's reason).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from harness.league.folder import ResultsFolder

if TYPE_CHECKING:
    from harness.figures.report.data import Redactor

CHUNK = 1 << 20  # bytes read at a time from a file sent as it is
TEXT = (".log", ".json", ".txt", ".md", ".html", ".csv", ".jsonl")
SKIP_DIRS = {"bots", "uploads", "inbox", "human"}


class _Sink(io.RawIOBase):
    """Where the zip is written: what it holds is taken out and sent as it comes."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self._parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        out = b"".join(self._parts)
        self._parts = []
        return out


def files(folder: Path) -> Iterator[tuple[Path, str]]:
    """The files of the download: not the bots' code (entrants' property), the uploads, the
    inbox, hidden files, SQLite's side files or league.json (written without its key)."""
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if rel.parts[0] in SKIP_DIRS or any(p.startswith(".") for p in rel.parts):
            continue
        if not path.is_file() or path.is_symlink() or ResultsFolder.is_config_file(path) or \
                path.name.endswith(("-wal", "-shm", "-journal")):
            continue
        yield path, str(rel)


def stream(folder: Path, redact: Redactor) -> Iterator[bytes]:
    """The zip of ``folder``, a piece at a time."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as out:
        name, config = ResultsFolder(folder).public_config()
        out.writestr(name, redact.text(json.dumps(config, indent=1)))
        yield sink.take()
        for path, rel in files(folder):
            if path.suffix == ".sqlite":
                with _clean_copy(path, redact) as copy:
                    yield from _send(out, sink, copy, rel)
            elif path.suffix in TEXT:
                yield from _send_text(out, sink, path, rel, redact)
            elif path.suffix == ".parquet" and rel.startswith("games"):
                data = _clean_parquet(path, redact)
                if data is None:
                    yield from _send(out, sink, path, rel)
                else:
                    out.writestr(rel, data)
                    yield sink.take()
            else:
                yield from _send(out, sink, path, rel)
    yield sink.take()


def _send(out: zipfile.ZipFile, sink: _Sink, path: Path, rel: str) -> Iterator[bytes]:
    with contextlib.suppress(FileNotFoundError), open(path, "rb") as src, \
            out.open(_info(rel), "w") as dst:
        while chunk := src.read(CHUNK):
            dst.write(chunk)
            yield sink.take()
    yield sink.take()


def _send_text(out: zipfile.ZipFile, sink: _Sink, path: Path, rel: str, redact: Redactor
               ) -> Iterator[bytes]:
    with contextlib.suppress(FileNotFoundError), open(path, "rb") as src, \
            out.open(_info(rel), "w") as dst:
        size = 0
        for line in src:
            text = line.decode("utf-8", "surrogateescape")
            dst.write(redact.text(text).encode("utf-8", "surrogateescape"))
            size += len(line)
            if size >= CHUNK:
                size = 0
                yield sink.take()
    yield sink.take()


def _info(rel: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(rel)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


@contextlib.contextmanager
def _clean_copy(path: Path, redact: Redactor) -> Iterator[Path]:
    """A copy of a database (SQLite's backup, so a consistent one while it is written) without
    sessions, the sign-up code's hash or the organiser's paths."""
    tmp = Path(tempfile.mkdtemp(prefix="download-"))
    try:
        copy = tmp / path.name
        src, dst = sqlite3.connect(path), sqlite3.connect(copy)
        try:
            src.backup(dst)
        finally:
            src.close()
        try:
            _clean(dst, redact)
        finally:
            dst.close()
        yield copy
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _clean(db: sqlite3.Connection, redact: Redactor) -> None:
    tables = [name for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    with db:
        if "sessions" in tables:
            db.execute("DELETE FROM sessions")
        if "settings" in tables:
            db.execute("DELETE FROM settings WHERE key = 'signup_code'")
        for table in tables:
            columns = [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')
                       if row[2].upper() in ("TEXT", "")]
            for column in columns:
                for found, label in redact.pairs:
                    db.execute(f'UPDATE "{table}" SET "{column}" = replace("{column}", ?, ?) '
                               f'WHERE instr("{column}", ?) > 0', (found, label, found))
    db.execute("VACUUM")  # nothing deleted is left in the file's free pages


def _clean_parquet(path: Path, redact: Redactor) -> bytes | None:
    """A games file with the organiser's paths replaced in its text columns (None: it has
    none, send it as it is)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    changed = False
    for i, field in enumerate(table.schema):
        if not pa.types.is_string(field.type):
            continue
        column = table.column(i)
        hit = False
        for found, label in redact.pairs:
            if pc.any(pc.match_substring(column, found)).as_py():
                column = pc.replace_substring(column, found, label)
                hit = True
        if hit:
            table = table.set_column(i, field, column)
            changed = True
    if not changed:
        return None
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd", write_page_checksum=True)
    return buffer.getvalue()
