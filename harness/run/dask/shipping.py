"""What travels to Dask workers: each bot file or bot directory once, keyed by its content hash.

A league's bot files go to every worker as a worker plugin named after the sha256 of the file
(:class:`BotFilePlugin`); the worker writes them into its own cache directory
(``<worker local directory>/tourney-bots/<sha256>/<file name>``). A bot directory travels the
same way as one zip archive (:class:`BotDirectoryPlugin`), keyed by its content hash
(:func:`harness.bots.spec.directory_sha256`, at most :data:`~harness.bots.spec.MAX_DIR_BYTES`),
and is unpacked to ``<sha256>/<directory name>/``. Each game travels as a :class:`Task`: its
spec and, per seat, how the worker finds the cached copy (:class:`ShippedBot`). Built-ins and
external commands name no file and travel as they are.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from distributed.diagnostics.plugin import WorkerPlugin

from harness.bots.spec import (
    MAX_DIR_BYTES,
    BotSpecError,
    directory_files,
    directory_sha256,
    parse_spec,
)
from harness.records import BotRef, GameSpec
from harness.run.dask import ClusterError

if TYPE_CHECKING:
    pass


CACHE_DIRNAME = "tourney-bots"


@dataclass(frozen=True)
class ShippedBot:
    """How a worker finds a seat's bot: the file's hash and name, and the rest of the spec."""

    sha256: str
    filename: str
    suffix: str = ""  # ":ClassName" when the spec names a class in the file
    prefix: str = ""  # "sandbox:" or "inproc:" when the spec says how to run the bot
    directory: bool = False  # a bot directory (``filename`` is the directory's name)

    def local_spec(self, cache_root: Path) -> str:
        """The seat's spec pointing at the worker's cached copy of the file."""
        slash = "/" if self.directory else ""
        return f"{self.prefix}{cache_root / self.sha256 / self.filename}{slash}{self.suffix}"


def split_file_spec(spec: str) -> tuple[Path, str, str] | None:
    """The bot file (or bot directory) a spec names, with the spec's prefix and ``:Class``
    suffix, or None.

    Parsed by the loader, so the syntax is the loader's: ``bots/mine.py`` -> (bots/mine.py, "",
    ""); ``sandbox:bots/mine.py:Careful`` -> (bots/mine.py, "sandbox:", ":Careful"). Built-ins
    (``random``) and external commands (``cmd:./engine``) name no file to ship: they resolve on
    the worker as they are, and so does a spec the loader refuses (the game records why).
    """
    try:
        source = parse_spec(spec)
    except BotSpecError:
        return None
    if source.path is None or source.builtin:
        return None
    suffix = f":{source.entry}" if source.entry else ""
    return source.path, source.prefix, suffix


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BotFilePlugin(WorkerPlugin):
    """Carries one bot file to every worker and writes it into the worker's bot cache.

    Named after the file's hash and idempotent: registering the same file again (another league,
    a resumed run) sends nothing.
    """

    idempotent = True

    def __init__(self, filename: str, data: bytes) -> None:
        self.filename = filename
        self.data = data
        self.sha256 = sha256_bytes(data)
        self.name = plugin_name(self.sha256)

    def setup(self, worker: Any) -> None:
        write_cached_file(cache_root(worker.local_directory), self.sha256, self.filename,
                          self.data)


class BotDirectoryPlugin(WorkerPlugin):
    """Carries one bot directory, as one zip archive, to every worker, which unpacks it into
    its bot cache. Named after the directory's content hash, idempotent like
    :class:`BotFilePlugin`."""

    idempotent = True

    def __init__(self, directory: Path) -> None:
        self.filename = directory.name
        self.sha256 = directory_sha256(directory)
        self.data = pack_directory(directory)
        self.name = plugin_name(self.sha256)

    def setup(self, worker: Any) -> None:
        write_cached_directory(cache_root(worker.local_directory), self.sha256, self.filename,
                               self.data)


BotPlugin = BotFilePlugin | BotDirectoryPlugin


def pack_directory(directory: Path) -> bytes:
    """A bot directory's files (:func:`~harness.bots.spec.directory_files`) as a zip archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, path in directory_files(directory):
            archive.writestr(zipfile.ZipInfo(rel), path.read_bytes())
    return buffer.getvalue()


def write_cached_directory(root: Path, sha256: str, name: str, data: bytes) -> Path:
    """Unpack a bot directory's archive into a cache directory by hash: into a private folder,
    checked against the hash, then renamed into place (a reader never sees half of it)."""
    target = root / sha256 / name
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(dir=target.parent, prefix=".part-"))
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if sum(m.file_size for m in members) > MAX_DIR_BYTES:
                raise ClusterError(f"bot directory {name} unpacks to more than "
                                   f"{MAX_DIR_BYTES >> 20} MB")
            for member in members:
                parts = member.filename.split("/")
                if member.filename.startswith("/") or ".." in parts or "" in parts:
                    raise ClusterError(f"bot directory {name} holds a bad path "
                                       f"{member.filename!r}")
                path = part.joinpath(*parts)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(archive.read(member))
        if directory_sha256(part) != sha256:
            raise ClusterError(f"bot directory {name} does not match its hash {sha256[:12]}")
        part.chmod(0o755)
        try:
            part.rename(target)
        except OSError:
            if not target.is_dir():  # not a twin that arrived first
                raise
    finally:
        shutil.rmtree(part, ignore_errors=True)
    return target


def plugin_name(sha256: str) -> str:
    return f"tourney-bot-{sha256}"


def cache_root(local_directory: str) -> Path:
    return Path(local_directory) / CACHE_DIRNAME


def write_cached_file(root: Path, sha256: str, filename: str, data: bytes) -> Path:
    """Write a bot file into a cache directory by hash, atomically (write, then rename)."""
    if sha256_bytes(data) != sha256:
        raise ClusterError(f"bot file {filename} does not match its hash {sha256[:12]}")
    target = root / sha256 / filename
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, target)
    return target


def collect_bot_files(specs: Iterable[GameSpec]) -> tuple[
        dict[str, BotPlugin], dict[str, ShippedBot]]:
    """Read each distinct bot file (or bot directory) the games use, once.

    Returns the plugins to register (by hash) and, per seat spec string, how a worker finds it.
    Seats whose spec names no file (built-ins, external commands) are left out: they resolve on
    the worker as they are.
    """
    plugins: dict[str, BotPlugin] = {}
    shipped: dict[str, ShippedBot] = {}
    no_file: set[str] = set()
    for spec in specs:
        for seat in spec.seats:
            if seat.spec in shipped or seat.spec in no_file:
                continue
            found = split_file_spec(seat.spec)
            if found is None:
                no_file.add(seat.spec)
                continue
            path, prefix, suffix = found
            plugin: BotPlugin = (BotDirectoryPlugin(path) if path.is_dir()
                                 else BotFilePlugin(path.name, path.read_bytes()))
            plugin = plugins.setdefault(plugin.sha256, plugin)  # same bytes: one cached copy
            shipped[seat.spec] = ShippedBot(plugin.sha256, plugin.filename, suffix, prefix,
                                            directory=path.is_dir())
    return plugins, shipped


def localize_spec(spec: GameSpec, seats: Sequence[ShippedBot | None], root: Path) -> GameSpec:
    """The spec with each shipped seat pointing at the cached copy under ``root``."""
    refs: list[BotRef] = []
    for ref, shipped in zip(spec.seats, seats, strict=True):
        if shipped is None:
            refs.append(ref)
            continue
        path = root / shipped.sha256 / shipped.filename
        if not (path.is_dir() if shipped.directory else path.is_file()):
            raise ClusterError(
                f"bot file {shipped.filename} ({shipped.sha256[:12]}) is missing from this "
                f"worker's cache {root}; was its plugin registered?"
            )
        refs.append(replace(ref, spec=shipped.local_spec(root)))
    return replace(spec, seats=tuple(refs))


@dataclass(frozen=True)
class Task:
    """One game as it travels to a worker: its spec and, per seat, the shipped bot file."""

    spec: GameSpec
    seats: tuple[ShippedBot | None, ...]
