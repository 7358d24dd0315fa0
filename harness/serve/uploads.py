"""An uploaded bot, checked before a byte of it is written: a Python file, or a zip archive of a
bot directory.

A zip archive is read from its central directory first and refused whole, before anything is
unpacked, when a member has an absolute path, a ``..`` part, a backslash or a drive letter, is a
symbolic link, a device, a pipe or a socket, is encrypted, is listed twice, lies more than
:data:`MAX_DEPTH` folders deep or has a path longer than :data:`MAX_PATH` characters, or when
the archive declares more than :data:`harness.bots.spec.MAX_DIR_FILES` files, more than
:data:`harness.bots.spec.MAX_DIR_BYTES` unpacked, or a member packed more than
:data:`MAX_RATIO` times. The sizes an archive declares can lie, so unpacking counts the bytes
it really gets and stops at the declared size. Files are created with ``O_EXCL`` inside a fresh
temporary folder: nothing is overwritten and nothing lands outside it.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from harness.bots.spec import MAX_DIR_BYTES
from harness.serve.db import ServeError

MAX_RATIO = 200  # a member packed more tightly than this is a decompression bomb
MAX_DEPTH = 32  # folders a member may lie in (a bot's own tree is a few deep)
MAX_PATH = 512  # characters of a member's path (the league puts its own folders before it)
_CHUNK = 1 << 16
_SAFE_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,99}$")


@dataclass(frozen=True)
class Upload:
    """An accepted upload: its kind, where its bot was unpacked, and its identity."""

    kind: str  # "file" or "zip"
    path: Path  # the bot file or the bot directory, inside the folder it was unpacked to
    sha256: str  # of the upload's bytes (it is kept as uploads/SHA256.EXT)
    size: int

    @property
    def suffix(self) -> str:
        return ".py" if self.kind == "file" else ".zip"


def kind_of(filename: str) -> str:
    """``file`` for a ``.py`` name, ``zip`` for a ``.zip``; :class:`ServeError` otherwise."""
    name = filename.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    if name.endswith(".py"):
        return "file"
    if name.endswith(".zip"):
        return "zip"
    raise ServeError("upload a Python file (.py) or a zip archive of a bot directory (.zip)", 415)


def unpack(data: bytes, filename: str, dest: Path) -> Upload:
    """Check the upload and write its bot under ``dest`` (an empty folder of the caller's)."""
    from harness.bots.spec import MAX_DIR_FILES

    kind = kind_of(filename)
    digest = hashlib.sha256(data).hexdigest()
    if not data:
        raise ServeError("the upload is empty; choose the bot's file", 400)
    if kind == "file":
        if b"\0" in data:
            raise ServeError("the uploaded .py file holds NUL bytes: it is not Python source",
                             422)
        path = dest / "bot.py"
        _write_new(path, data)
        return Upload(kind, path, digest, len(data))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise ServeError(f"the upload is not a readable zip archive ({exc}); zip the bot's "
                         f"folder again", 422) from None
    with archive:
        wanted = _check_members(members, MAX_DIR_FILES)
        root = dest / "bot"
        root.mkdir()
        for info, parts in wanted:
            target = root.joinpath(*parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            _extract(archive, info, target)
    top = [p for p in root.iterdir() if not p.name.startswith(".")]
    bot = top[0] if len(top) == 1 and top[0].is_dir() and not (root / "bot.py").exists() \
        else root  # one folder zipped with its name: that folder is the bot
    return Upload(kind, bot, digest, len(data))


def _check_members(members: list[zipfile.ZipInfo], max_files: int
                   ) -> list[tuple[zipfile.ZipInfo, tuple[str, ...]]]:
    if len(members) > max_files:
        raise ServeError(f"the archive holds {len(members)} entries, over the {max_files} a bot "
                         f"directory may have", 413)
    seen: set[str] = set()
    total = 0
    out = []
    for info in members:
        name = info.filename
        shown = name[:80].encode("ascii", "backslashreplace").decode()
        if "\\" in name or "\0" in name or name.startswith("/") or re.match(r"^[A-Za-z]:", name):
            raise ServeError(f"the archive's entry {shown!r} has an absolute or Windows path; "
                             f"zip the bot's folder with relative paths", 422)
        cut = "..." if len(name) > 80 else ""
        if len(name) > MAX_PATH:
            raise ServeError(f"the archive's entry {shown!r}{cut} has a path of {len(name)} "
                             f"characters, over the {MAX_PATH} allowed; zip a flatter folder",
                             422)
        parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
        if len(parts) > MAX_DEPTH + 1:
            raise ServeError(f"the archive's entry {shown!r}{cut} lies {len(parts) - 1} folders "
                             f"deep, over the {MAX_DEPTH} allowed; zip a flatter folder", 422)
        if not parts or any(p == ".." for p in parts):
            raise ServeError(f"the archive's entry {shown!r} points outside the bot's folder "
                             f"(..); zip the bot's folder itself", 422)
        if any(not _SAFE_PART.match(p) for p in parts):
            raise ServeError(f"the archive's entry {shown!r} has a name tourney does not accept "
                             f"(use letters, digits, '_', '-', '.' and '+', up to 100 a part)",
                             422)
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if stat.S_ISLNK(mode):
            raise ServeError(f"the archive's entry {shown!r} is a symbolic link; put the file "
                             f"itself in the archive", 422)
        if kind and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise ServeError(f"the archive's entry {shown!r} is a device, pipe or socket, not a "
                             f"file", 422)
        if info.flag_bits & 0x1:
            raise ServeError(f"the archive's entry {shown!r} is encrypted; upload it without a "
                             f"password", 422)
        key = "/".join(parts).lower()
        if key in seen:
            raise ServeError(f"the archive lists {shown!r} twice", 422)
        seen.add(key)
        if not info.is_dir():
            total += info.file_size
            if total > MAX_DIR_BYTES:
                raise ServeError(f"the archive unpacks to more than {MAX_DIR_BYTES >> 20} "
                                 f"MB, the most a bot directory may hold", 413)
            if info.file_size > MAX_RATIO * max(info.compress_size, 1) and \
                    info.file_size > (1 << 20):
                raise ServeError(f"the archive's entry {shown!r} unpacks {info.file_size} bytes "
                                 f"from {info.compress_size}: a decompression bomb is refused",
                                 413)
        out.append((info, parts))
    files = {"/".join(p).lower() for info, p in out if not info.is_dir()}
    for _info, parts in out:  # a file under a name that is also a file ("a" and "a/b")
        for k in range(1, len(parts)):
            if "/".join(parts[:k]).lower() in files:
                raise ServeError(f"the archive uses {'/'.join(parts[:k])!r} as a file and as a "
                                 f"folder", 422)
    return out


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    """Unpack one member, never more bytes than it declared."""
    left = info.file_size
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with archive.open(info) as src, os.fdopen(fd, "wb") as out:
            while True:
                chunk = src.read(min(_CHUNK, left + 1))
                if not chunk:
                    break
                left -= len(chunk)
                if left < 0:
                    raise ServeError(f"the archive's entry {info.filename[:80]!r} holds more "
                                     f"than it declares; the archive is refused", 422)
                out.write(chunk)
    # NotImplementedError: zipfile's answer to a compression method it cannot decompress
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        raise ServeError(f"the archive's entry {info.filename[:80]!r} cannot be unpacked "
                         f"({exc}); zip the bot's folder again", 422) from None


def _write_new(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def keep(folder: Path, upload: Upload, data: bytes) -> Path:
    """Keep the upload's bytes under ``uploads/SHA256.EXT`` (once per content)."""
    from harness.serve.db import UPLOADS_DIR

    where = folder / UPLOADS_DIR
    where.mkdir(exist_ok=True)
    path = where / f"{upload.sha256}{upload.suffix}"
    if not path.exists():
        tmp = where / f".{upload.sha256}.{os.getpid()}.part"
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path
