"""Hang guards that a slow or busy machine does not trip.

A test that waits for work (a subprocess, a league, a worker coming back) bounds the wait only to
catch a hang. Each bound is written as a generous multiple of the work's time on an idle machine
(at least ten times it), and :func:`patience` stretches it further by how loaded the machine is
when the wait starts: a machine with twice as many runnable processes as cores gives each of them
about half a core, so work takes about twice as long. ``TOURNEY_TEST_PATIENCE`` multiplies every
bound again (for a machine slower than any load average shows, e.g. under emulation).

A bound that a test asserts as behaviour ("the bot was killed at its deadline, not after its 30 s
sleep") passes a ``cap`` below the time that would mean the protection failed, so the test can
still fail however loaded the machine is.
"""

from __future__ import annotations

import os


def load_factor() -> float:
    """How many times slower than idle work runs here now: the one-minute load average per core,
    at least 1."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this platform
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def patience(seconds: float, cap: float | None = None) -> float:
    """``seconds`` (a generous bound on an idle machine) stretched by the machine's load and
    ``TOURNEY_TEST_PATIENCE``, and no more than ``cap`` when one is given."""
    try:
        extra = max(1.0, float(os.environ.get("TOURNEY_TEST_PATIENCE", "1")))
    except ValueError:
        extra = 1.0
    stretched = seconds * load_factor() * extra
    return stretched if cap is None else min(stretched, cap)
