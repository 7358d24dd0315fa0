"""The Dask back end: a league's games on the workers of a ``dask.distributed`` scheduler.

:mod:`harness.run.dask.executor` holds the executor, the shipping of bot files and a local
cluster for tests and the benchmark; it imports ``distributed`` at the top, so import it only
when a cluster is asked for. This module is light: the errors a caller must catch, and
:func:`require_dask`.
"""

from __future__ import annotations

from harness.records import TourneyError


class ClusterError(TourneyError, RuntimeError):
    """A problem with the Dask cluster the user can fix; its message is one clear line."""


class ClusterLost(ClusterError):
    """The connection to the scheduler was lost in the middle of a league."""


class IsolationRefused(ClusterError):
    """A worker asked to play a league that requires isolation cannot confine bots fully."""


def require_dask() -> None:
    """Fail with one clear line when the optional Dask extra is not installed (``distributed``
    imported, but then broken or shadowed, e.g. blocked by a test)."""
    try:
        import distributed  # noqa: F401
    except ImportError as exc:
        raise ClusterError(
            "--cluster needs Dask, which is not installed: pip install '.[dask]' in the tourney "
            "clone"
        ) from exc
