"""The bots' logs within a budget: each entrant's logs, and the competition's, are kept under a
size the organiser sets (``log_mb_per_entrant``, ``log_mb_total``); past it the oldest are
removed, an entrant's older versions' logs first.

A game's log is one file a seat, ``logs/GAME_ID.seatN.log`` (at most ``Limits.log_bytes``
each, 64 KB by default); a chatty bot fills one at every game, some 14 MB a minute. The server
looks at the logs every :data:`PRUNE_SECONDS` (and at once when the organiser lowers a
budget):

1. **per entrant**: an entrant over their budget loses the logs of their older versions first,
   oldest game first, then the oldest games of their newest version;
2. **per competition**: over the competition's budget, every entrant's older versions' logs go
   first (oldest first), then the oldest games of the versions that play.

Which seat's log is whose comes from the index of the games (:mod:`harness.league.index`); a
log whose game is not stored yet is left alone. A removed log is noted in the index, and its
page says it was removed and why, rather than that the bot wrote nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.league.index import GameIndex, entrant_of

PRUNE_SECONDS = 30.0
_LOG_NAME = re.compile(r"^(?P<game>.+)\.seat(?P<seat>\d+)\.log$")


@dataclass
class Log:
    path: Path
    game_id: str
    seat: int
    size: int
    entrant: str = ""
    version: int = 0
    seq: int = 0


@dataclass
class Pruned:
    files: int = 0
    bytes: int = 0
    kept: int = 0  # bytes of logs left


def _logs(folder: Path, index: GameIndex) -> list[Log]:
    """The logs of stored games, each with its seat's entrant and version and its game's
    place in the order games were stored."""
    found: list[Log] = []
    try:
        entries = list(os.scandir(folder / "logs"))
    except (FileNotFoundError, NotADirectoryError):
        return []
    for entry in entries:
        name = _LOG_NAME.match(entry.name)
        if name is None or not entry.is_file(follow_symlinks=False):
            continue
        with contextlib.suppress(OSError):
            found.append(Log(Path(entry.path), name.group("game"), int(name.group("seat")),
                             entry.stat(follow_symlinks=False).st_size))
    ids = {log.game_id for log in found}
    seats = index.seats_of(ids)
    seqs = index.seq_of(ids)
    out = []
    for log in found:
        bots = seats.get(log.game_id)
        if bots is None or log.seat >= len(bots):
            continue  # not stored yet (or not a league game): not counted, not removed
        log.entrant, log.version = entrant_of(bots[log.seat])
        log.seq = seqs[log.game_id]
        out.append(log)
    return out


def prune(folder: Path, index: GameIndex, per_entrant: int, total: int) -> Pruned:
    """Remove logs until each entrant holds at most ``per_entrant`` bytes and the competition
    at most ``total``; what was removed."""
    logs = _logs(folder, index)
    newest: dict[str, int] = {}
    for log in logs:
        newest[log.entrant] = max(newest.get(log.entrant, 0), log.version)
    doomed: list[tuple[Log, str]] = []
    kept: list[Log] = []
    by_entrant: dict[str, list[Log]] = {}
    for log in logs:
        by_entrant.setdefault(log.entrant, []).append(log)
    for entrant, mine in by_entrant.items():
        mine.sort(key=lambda g: (g.version, g.seq))  # older versions first, oldest game first
        size = sum(g.size for g in mine)
        for k, log in enumerate(mine):
            if size <= per_entrant:
                kept.extend(mine[k:])
                break
            size -= log.size
            doomed.append((log, f"{entrant}'s logs were over the {_mb(per_entrant)} each "
                                f"entrant may keep; the oldest are removed first"))
    size = sum(g.size for g in kept)
    if size > total:
        kept.sort(key=lambda g: (g.version == newest[g.entrant], g.seq))
        for log in kept:
            if size <= total:
                break
            size -= log.size
            doomed.append((log, f"the competition's logs were over the {_mb(total)} it may "
                                f"keep; the oldest are removed first"))
    done = Pruned(kept=sum(g.size for g in logs))
    by_why: dict[str, list[tuple[str, int]]] = {}
    for log, why in doomed:
        with contextlib.suppress(FileNotFoundError):
            log.path.unlink()
        by_why.setdefault(why, []).append((log.game_id, log.seat))
        done.files += 1
        done.bytes += log.size
    for why, which in by_why.items():
        index.mark_pruned(which, why)
    done.kept -= done.bytes
    return done


def _mb(n: int) -> str:
    return f"{n / (1 << 20):g} MB"


class LogJanitor:
    """A thread of the server that keeps the logs within their budgets."""

    def __init__(self, run: Callable[[], object], every: float = PRUNE_SECONDS) -> None:
        self._run = run
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="log-budget", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            with contextlib.suppress(Exception):  # a pass that failed is tried again later
                self._run()

    def stop(self) -> None:
        self._stop.set()
