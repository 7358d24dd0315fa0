"""What travels to Dask workers: each bot file once, keyed by its content hash.

A league's bot files go to every worker as a worker plugin named after the sha256 of the file
(:class:`BotFilePlugin`); the worker writes them into its own cache directory
(``<worker local directory>/tourney-bots/<sha256>/<file name>``). Each game travels as a
:class:`Task`: its spec and, per seat, how the worker finds the cached file
(:class:`ShippedBot`). Built-ins and external commands name no file and travel as they are.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from distributed.diagnostics.plugin import WorkerPlugin

from harness.bots.spec import BotSpecError, parse_spec
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

    def local_spec(self, cache_root: Path) -> str:
        """The seat's spec pointing at the worker's cached copy of the file."""
        return f"{self.prefix}{cache_root / self.sha256 / self.filename}{self.suffix}"


def split_file_spec(spec: str) -> tuple[Path, str, str] | None:
    """The bot file a spec names, with the spec's prefix and ``:Class`` suffix, or None.

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
        dict[str, BotFilePlugin], dict[str, ShippedBot]]:
    """Read each distinct bot file the games use, once.

    Returns the plugins to register (by hash) and, per seat spec string, how a worker finds it.
    Seats whose spec names no file (built-ins, external commands) are left out: they resolve on
    the worker as they are.
    """
    plugins: dict[str, BotFilePlugin] = {}
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
            plugin = BotFilePlugin(path.name, path.read_bytes())
            plugin = plugins.setdefault(plugin.sha256, plugin)  # same bytes: one cached copy
            shipped[seat.spec] = ShippedBot(plugin.sha256, plugin.filename, suffix, prefix)
    return plugins, shipped


def localize_spec(spec: GameSpec, seats: Sequence[ShippedBot | None], root: Path) -> GameSpec:
    """The spec with each shipped seat pointing at the cached copy under ``root``."""
    refs: list[BotRef] = []
    for ref, shipped in zip(spec.seats, seats, strict=True):
        if shipped is None:
            refs.append(ref)
            continue
        path = root / shipped.sha256 / shipped.filename
        if not path.is_file():
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
