"""Bots arriving in a living league: ``tourney arena add`` / ``update``, and files dropped into
the watched folder (``inbox/``).

A version's code is copied into the arena (``bots/ENTRANT/vN/``) the moment it arrives, and is
rated under its content hash: editing or deleting the original afterwards changes nothing, and a
changed file is a new version. What is refused at once, before anything is recorded (one line,
exit status 2 on the command line): an entrant name in use or retired, a spec that names nothing
(:func:`harness.bots.spec.parse_spec`), a Python file that does not compile, a manifest that
names a command but cannot be read (:mod:`harness.arena.build`). Everything else a
bot might get wrong (it does not start, crashes, answers illegal moves or too slowly) is the
entry check's to find (:mod:`harness.arena.living`), which marks the version ``failed`` with the
reason.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.arena.registry import (
    BOTS_DIR,
    INBOX_DIR,
    ArenaError,
    Registry,
    Version,
    check_entrant_name,
)

MAX_FILE_BYTES = 16 << 20  # a bot file larger than this is refused
SETTLE_SECONDS = 2.0  # an inbox file is taken once it has not changed for this long


@dataclass(frozen=True)
class Snapshot:
    """A bot spec read once: its canonical text and hash, and the files to copy (if any)."""

    spec: str
    sha256: str
    files: list[tuple[str, Path]]  # (path inside the copy, the original) ; empty: no copy
    root: str  # the copied file's or directory's name ("" when nothing is copied)


def read_spec(text: str) -> Snapshot:
    """Parse ``text`` and hash the code it names; :class:`ArenaError` when it names nothing
    usable or a Python file of it does not compile."""
    from harness.bots.spec import BotSpecError, directory_files, parse_spec

    commanded = _command_directory(text)
    if commanded is not None:
        return commanded
    try:
        spec = parse_spec(text)
    except BotSpecError as exc:
        raise ArenaError(f"bot {text!r}: {exc}; nothing was added") from None
    if spec.builtin:
        canonical = str(spec)
        return Snapshot(canonical, hashlib.sha256(f"builtin:{canonical}".encode()).hexdigest(),
                        [], "")
    if spec.command:
        try:
            return Snapshot(str(spec), spec.sha256(), [], "")
        except OSError as exc:
            raise ArenaError(f"cannot read the files of {text!r}: {exc.strerror}") from None
    assert spec.path is not None
    try:
        if spec.is_directory:
            files = [(rel, path) for rel, path in directory_files(spec.path)]
        else:
            files = [(spec.path.name, spec.path)]
        for rel, path in files:
            _check_file(text, rel, path)
        digest = spec.sha256()
    except BotSpecError as exc:
        raise ArenaError(f"bot {text!r}: {exc}; nothing was added") from None
    except OSError as exc:
        raise ArenaError(f"cannot read bot {text!r}: {exc.strerror or exc}; nothing was "
                         f"added") from None
    return Snapshot(str(spec), digest, files, spec.path.name)


def _command_directory(text: str) -> Snapshot | None:
    """A bot directory whose manifest names a command (a bot in any language,
    :mod:`harness.arena.build`): its files, to be copied, and the command that runs it from
    its copy; None for any other spec."""
    from harness.arena import build
    from harness.bots.spec import BotSpecError, directory_files, parse_spec

    directory = Path(text.rstrip("/") or text).expanduser()
    if text.startswith(("cmd:", "cmd[", "sandbox:", "inproc:")) or not directory.is_dir():
        return None
    try:
        found = build.manifest(directory)
    except ArenaError as exc:
        raise ArenaError(f"bot {text!r}: {exc} (nothing was added)") from None
    if found is None:
        return None
    directory = directory.resolve()
    try:
        files = directory_files(directory)
        for rel, path in files:
            _check_file(text, rel, path)
        spec = parse_spec(build.command_spec(directory, found))
        return Snapshot(str(spec), spec.sha256(), files, directory.name)
    except BotSpecError as exc:
        raise ArenaError(f"bot {text!r}: {exc}; nothing was added") from None
    except OSError as exc:
        raise ArenaError(f"cannot read bot {text!r}: {exc.strerror or exc}; nothing was "
                         f"added") from None


def _check_file(text: str, rel: str, path: Path) -> None:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ArenaError(f"bot {text!r}: {rel} is {size >> 20} MB, over the "
                         f"{MAX_FILE_BYTES >> 20} MB a bot file may have; nothing was added")
    if rel.endswith(".py"):
        try:
            compile(path.read_bytes(), rel, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
            raise ArenaError(f"bot {text!r}: {rel} does not compile{where}: "
                             f"{getattr(exc, 'msg', exc)}; fix it and send it again (nothing "
                             f"was added)") from None


def _copy(folder: Path, entrant: str, version: int, snap: Snapshot) -> str:
    """Copy the snapshot's files into ``bots/ENTRANT/vN/`` (atomically: a temporary folder
    renamed into place) and return the spec of the copy."""
    from harness.bots.spec import parse_spec

    if not snap.files:
        return snap.spec
    base = folder.resolve() / BOTS_DIR / entrant  # the spec names the copy from anywhere
    base.mkdir(parents=True, exist_ok=True)
    target = base / f"v{version}"
    tmp = Path(tempfile.mkdtemp(prefix=f".v{version}-", dir=base))
    try:
        spec = parse_spec(snap.spec, check=False)
        if spec.is_directory or spec.command:
            for rel, path in snap.files:
                dest = tmp / snap.root / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, dest)
        else:
            shutil.copyfile(snap.files[0][1], tmp / snap.root)
        os.replace(tmp, target)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ArenaError(f"cannot copy the bot into {target}: {exc.strerror or exc}; free "
                         f"space or fix the folder's permissions (nothing was added)") from None
    copied = replace(spec, cwd=target / snap.root) if spec.command else \
        replace(spec, path=target / snap.root)
    if copied.sha256() != snap.sha256:
        shutil.rmtree(target, ignore_errors=True)
        raise ArenaError("the bot changed while it was being copied; send it again")
    return str(copied)


def add(registry: Registry, entrant: str, text: str, source: str = "command line") -> Version:
    """A new entrant with its first version (waiting for the entry check)."""
    check_entrant_name(entrant)
    known = registry.entrant(entrant)
    if known is not None:
        registry.add_entrant(entrant, source)  # raises the right message
    snap = read_spec(text)
    registry.add_entrant(entrant, source)
    spec = _copy(registry.folder, entrant, 1, snap)
    return registry.add_version(entrant, 1, spec, snap.sha256)


def update(registry: Registry, entrant: str, text: str) -> Version:
    """A new version of an entrant; it replaces the current one once it passes its check."""
    registry.require_active_entrant(entrant)
    snap = read_spec(text)
    for v in registry.entrant_versions(entrant):
        if v.sha256 == snap.sha256 and v.status in ("validating", "active", "suspended"):
            raise ArenaError(f"{entrant}'s version {v.version} ({v.status}) has the same code "
                             f"(sha256 {snap.sha256[:12]}); nothing was added")
    number = registry.next_version(entrant)
    spec = _copy(registry.folder, entrant, number, snap)
    return registry.add_version(entrant, number, spec, snap.sha256)


# ----------------------------------------------------------------------------- the inbox


@dataclass
class Inbox:
    """The watched folder ``inbox/``: ``NAME.py`` or a bot directory ``NAME/`` is entrant
    ``NAME``. A new name joins, a changed file is a new version, a removed one retires its
    entrant (only entrants that came through the inbox). A file is taken once it has been
    still for :data:`SETTLE_SECONDS`, so a half-copied file is never a version."""

    folder: Path
    seen: dict[str, tuple[float, int, str]] = field(default_factory=dict)  # name: stamp, sha
    refused: dict[str, str] = field(default_factory=dict)  # name: the stamp refused

    @property
    def path(self) -> Path:
        return self.folder / INBOX_DIR

    def _entries(self) -> dict[str, Path]:
        try:
            names = os.listdir(self.path)
        except FileNotFoundError:
            return {}
        out = {}
        for name in names:
            if name.startswith((".", "_")):
                continue
            path = self.path / name
            if name.endswith(".py") and path.is_file():
                out[name[:-3]] = path
            elif path.is_dir():
                out[name] = path
        return out

    @staticmethod
    def _stamp(path: Path) -> tuple[float, int]:
        """The newest modification time and total size of a file or a directory's files."""
        if path.is_file():
            st = path.stat()
            return st.st_mtime, st.st_size
        newest, size = path.stat().st_mtime, 0
        for root, _, files in os.walk(path):
            for f in files:
                st = (Path(root) / f).stat()
                newest, size = max(newest, st.st_mtime), size + st.st_size
        return newest, size

    def scan(self, registry: Registry) -> list[str]:
        """Take what changed in the inbox since the last scan; returns one line per change
        (and per file refused, once per content)."""
        lines: list[str] = []
        entries = self._entries()
        wall = time.time()
        for name, path in sorted(entries.items()):
            try:
                mtime, size = self._stamp(path)
            except OSError:
                continue
            if wall - mtime < SETTLE_SECONDS:
                continue  # still being written
            stamp = f"{mtime}:{size}"
            held = self.seen.get(name)
            if held is not None and f"{held[0]}:{held[1]}" == stamp:
                continue
            if self.refused.get(name) == stamp:
                continue
            spec = str(path) + ("/" if path.is_dir() else "")
            try:
                lines.append(self._take(registry, name, spec))
                self.seen[name] = (mtime, size, "")
            except ArenaError as exc:
                self.refused[name] = stamp
                self.seen.pop(name, None)
                lines.append(f"inbox: {path.name} refused: {exc}")
                registry.note(name if _valid(name) else "", "", f"inbox file refused: {exc}")
        for name, _added, retired, source in registry.entrants():
            if source == "inbox" and not retired and name not in entries and name in self.seen:
                registry.retire(name)
                self.seen.pop(name, None)
                lines.append(f"inbox: {name} removed, entrant {name} retired")
        return lines

    def know(self, registry: Registry) -> None:
        """At start: the inbox files already taken (same content as an entrant's version) are
        not taken again."""
        for name, path in self._entries().items():
            versions = registry.entrant_versions(name)
            if not versions:
                continue
            try:
                snap = read_spec(str(path) + ("/" if path.is_dir() else ""))
                mtime, size = self._stamp(path)
            except (ArenaError, OSError):
                continue
            if any(v.sha256 == snap.sha256 for v in versions):
                self.seen[name] = (mtime, size, snap.sha256)

    def _take(self, registry: Registry, name: str, spec: str) -> str:
        info = registry.entrant(name)
        if info is None:
            v = add(registry, name, spec, source="inbox")
            return f"inbox: {name} joined (version {v.version})"
        snap = read_spec(spec)
        if any(v.sha256 == snap.sha256 for v in registry.entrant_versions(name)):
            return f"inbox: {name} unchanged"
        v = update(registry, name, spec)
        return f"inbox: {name} sent version {v.version}"


def _valid(name: str) -> bool:
    try:
        check_entrant_name(name)
    except ArenaError:
        return False
    return True
