"""The entry point of the server's child processes (:mod:`harness.serve.runner`):
``python -m harness.serve.child PARENT_PID arena FOLDER [--workers N] [--cluster ADDR]`` plays
the living league,
``... check FOLDER BOT`` runs one version's entry check, ``... final FOLDER`` plays the final
stage after the deadline (:mod:`harness.serve.final`). Each stops when the server dies."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1
FLUSH_SECONDS = 2.0  # the longest a finished game of the competition waits to be stored
LEAGUE_NICENESS = 10  # the league plays at a lower priority than the server's requests


def _die_with(parent: int) -> None:
    """Ask the kernel for SIGTERM when the server exits, then check it did not already."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        sys.exit(0)


def _check(folder: Path, bot: str) -> int:
    from harness.arena.living import load_arena, record_check
    from harness.arena.registry import Registry

    config = load_arena(folder)
    with Registry.open(folder) as registry:
        version = registry.version(bot)
        if version is None or not registry.claim_check(bot):
            return 0  # gone, or another process checks it
        outcome = record_check(registry, config, version)
    if outcome is not None:
        print(f"entry check of {bot}: {'passed' if outcome[0] else outcome[1]}", flush=True)
    return 0


def _arena(folder: Path, options: list[str]) -> int:
    """Play the living league until SIGTERM (what ``tourney arena run FOLDER`` does)."""
    import argparse

    from harness.arena.living import Arena, RunOptions
    from harness.arena.registry import ArenaError

    parser = argparse.ArgumentParser(prog="harness.serve.child arena")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--cluster")
    args = parser.parse_args(options)
    # the league's games yield the cores to the web server: pages stay quick while it plays
    with contextlib.suppress(OSError):
        os.nice(LEAGUE_NICENESS)
    # games reach the store (and the leaderboard) within seconds, not the store's default 10
    run = RunOptions(workers=args.workers, cluster=args.cluster, progress=False,
                     flush_seconds=FLUSH_SECONDS,
                     say=lambda line: print(line, file=sys.stderr, flush=True))
    try:
        summary = Arena(folder, run).run()
    except ArenaError as exc:
        print(f"tourney: error: {exc}", file=sys.stderr, flush=True)
        return 2
    print(f"{folder.name}: {'stopped' if summary.interrupted else 'done'}; {summary.stored} "
          f"games stored in this run ({summary.seconds:.1f} s)", file=sys.stderr, flush=True)
    return 0


def main(argv: list[str]) -> int:
    parent, what, folder, *rest = argv
    _die_with(int(parent))
    if what == "check":
        return _check(Path(folder), rest[0])
    if what == "arena":
        return _arena(Path(folder), rest)
    if what == "final":
        from harness.serve.final import run_final

        return run_final(Path(folder), rest)
    print(f"unknown child {what!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
