"""A bot's identity is its content: rating several folders together merges two bots only when
their name and the hash of their code agree.

Within one folder a name always means one version (a league refuses a changed bot file). Across
folders the same name may be two versions; each is then rated apart under ``name@hash7`` (the
first seven hex digits of its code hash) and a note says so.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.league.config import LeagueConfig


def versions(configs: Sequence[LeagueConfig]) -> tuple[dict[tuple[int, str], str], list[str]]:
    """(folder index, bot name) -> the name to rate it under, for the bots that need another
    name, and one note per name that stands for several versions."""
    seen: dict[str, dict[str, list[int]]] = {}
    for k, config in enumerate(configs):
        for bot in config.bots:
            seen.setdefault(bot.name, {}).setdefault(bot.sha256, []).append(k)
    rename: dict[tuple[int, str], str] = {}
    notes: list[str] = []
    for name, by_hash in sorted(seen.items()):
        if len(by_hash) < 2:
            continue
        shown = []
        for digest, folders in by_hash.items():
            label = f"{name}@{digest[:7] or 'unhashed'}"
            shown.append(label)
            for k in folders:
                rename[(k, name)] = label
        notes.append(f"note: {name!r} names {len(by_hash)} different versions of a bot in these "
                     f"folders (their code differs); rated apart as {', '.join(shown)}")
    return rename, notes
