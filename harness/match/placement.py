"""Where a game runs: one game, one CPU.

A game's decisions are sequential: the referee and its bots never compute at the same time, so
a game and its sandboxed bots belong together on one CPU. A pipe round trip between two
processes costs a few microseconds when they share a CPU and far more when the kernel has to
wake the other process on another CPU (about 6 µs against 40 µs on a 2-vCPU virtual machine),
and a decision to a sandboxed bot is two such trips. Bot processes inherit their referee's
CPU affinity, so pinning the referee is enough.

Pinning is best effort: where the OS has no affinity calls, or refuses, nothing changes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


def available_cpus() -> list[int]:
    """The CPUs this process may run on, sorted (``[]`` where the OS cannot say)."""
    if not hasattr(os, "sched_getaffinity"):
        return []
    return sorted(os.sched_getaffinity(0))


def cpu_count() -> int:
    """How many CPUs this process may use: the default number of league workers."""
    return len(available_cpus()) or os.cpu_count() or 1


def pin(cpu: int) -> bool:
    """Run this process (and the processes it starts from now on) on ``cpu`` only."""
    if not hasattr(os, "sched_setaffinity"):
        return False
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        return False
    return True


def allow(cpus: set[int]) -> None:
    """Let this process run on any of ``cpus`` again (best effort)."""
    if cpus and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, cpus)


def current_cpu() -> int | None:
    """The CPU this process is running on now (Linux), or None."""
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[36])  # field 39 of proc(5), counted after the command name
    except (OSError, IndexError, ValueError):
        return None


@contextlib.contextmanager
def pinned_here() -> Iterator[int | None]:
    """For a ``with`` block, keep this process to the CPU it is running on now; yields that CPU,
    or None if it could not be pinned. The old affinity comes back after the block.

    For a process that plays one game at a time (``tourney play``, ``tourney validate``)."""
    before = available_cpus()
    cpu = current_cpu()
    pinned = cpu if cpu is not None and cpu in before and pin(cpu) else None
    try:
        yield pinned
    finally:
        if pinned is not None:
            allow(set(before))


class Keeper:
    """Switches this process between one CPU and all it started with, calling the OS only on
    a change: ``keep(cpu)`` pins, ``keep(None)`` lets the kernel choose again.

    A league worker keeps to its own CPU only for games with a sandboxed bot, whose round trips
    it speeds up; games between in-process bots gain nothing from it, and a pinned worker cannot
    step aside when another process (the league's own) needs its CPU for a moment.
    """

    def __init__(self) -> None:
        self.everywhere = set(available_cpus())
        self.current: int | None = None

    def __call__(self, cpu: int | None) -> None:
        if cpu == self.current or not self.everywhere:
            return
        if cpu is None:
            allow(self.everywhere)
            self.current = None
        elif pin(cpu):
            self.current = cpu


def spare_cpu(in_use: set[int | None], workers: int) -> int | None:
    """A CPU for a new worker process of a pool of ``workers``, not one of ``in_use``.

    None (no pinning) when there are more workers than CPUs: they must share, and the kernel
    shares better than a fixed assignment would.
    """
    cpus = available_cpus()
    if workers > len(cpus):
        return None
    return next((cpu for cpu in cpus if cpu not in in_use), None)
