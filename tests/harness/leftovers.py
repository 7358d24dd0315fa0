"""Which processes of the jails a test started are still running: after a game, none may be.

A jail is known by its PID namespace, which bubblewrap reports (``--info-fd``) with the host pid
of the namespace's first process. The namespace is held open (a descriptor of
``/proc/PID/ns/pid``) from then until the check, so its inode number cannot be given to another
namespace meanwhile; a process is the game's if its ``/proc/PID/ns/pid`` is that inode.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any


def _describe(pid: str) -> str | None:
    """The process, described; None when it is gone or a zombie: a process that has exited and
    holds nothing but its pid until its parent, or the host's init, reaps it (some hosts' init
    reaps orphans only every second or two)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0].decode()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except (OSError, IndexError):
        return None
    return None if state in ("Z", "X") else f"{pid} {state} {cmdline[:100]}"


class Jails:
    """The PID namespaces of the jails started while it watches (:meth:`add`)."""

    def __init__(self) -> None:
        self._held: dict[int, int] = {}  # namespace inode -> descriptor holding it

    def add(self, info: dict[str, Any]) -> None:
        """A jail as bubblewrap reported it: its first process and PID namespace."""
        try:
            pid, inode = int(info["child-pid"]), int(info["pid-namespace"])
            fd = os.open(f"/proc/{pid}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        except (KeyError, TypeError, ValueError, OSError):
            return  # gone already (and with it its namespace), or not reported
        if os.fstat(fd).st_ino != inode or inode in self._held:  # a reused pid
            os.close(fd)
            return
        self._held[inode] = fd

    def processes(self) -> list[str]:
        """The processes now alive in any of the namespaces watched, described."""
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{name}/ns/pid").st_ino in self._held:
                    described = _describe(name)
                    if described is not None:
                        found.append(described)
        return found

    def left(self, wait: float) -> list[str]:
        """The processes still in the watched namespaces after at most ``wait`` seconds."""
        deadline = time.monotonic() + wait
        while (found := self.processes()) and time.monotonic() < deadline:
            time.sleep(0.05)
        return found

    def close(self) -> None:
        for fd in self._held.values():
            os.close(fd)
        self._held.clear()
