"""Time statistics per bot: how long its decisions took (``tourney ratings --times``).

Per bot, over every stored decision of the folders: the number of decisions, the median, 95th
percentile and slowest think time, the total think time, and the games it lost on time. The
moves table holds every decision's think time; the games table says which bot sat in which seat.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass
class BotTimes:
    bot: str
    decisions: int
    median: float  # seconds
    p95: float
    slowest: float
    total: float
    timeouts: int  # games the bot lost on time


def _seat_bots(games: Any) -> Any:
    """(game_id, seat, bot) for every seat of every game of the ``games`` table."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    bots = games.column("bots").combine_chunks()
    parent = pc.list_parent_indices(bots).to_numpy()
    offsets = bots.offsets.to_numpy()
    seat = np.arange(len(parent)) - offsets[parent] + offsets[0]
    return pa.table({
        "game_id": pc.take(games.column("game_id"), pa.array(parent)),
        "seat": pa.array(seat.astype(np.int8)),
        "bot": pc.list_flatten(bots),
    })


def bot_times(folders: list[Path], rename: dict[tuple[int, str], str] | None = None
              ) -> tuple[list[BotTimes], list[str]]:
    """The time statistics of every bot of ``folders``, slowest median first, and the files
    that could not be read. ``rename``: (folder index, bot) -> the name to report it under."""
    import numpy as np

    from harness.league import store

    think: dict[str, list[Any]] = {}
    timeouts: Counter[str] = Counter()
    skipped: list[str] = []
    for k, folder in enumerate(folders):
        loaded = store.load_games([folder])
        skipped.extend(loaded.skipped)
        games = loaded.games
        if games.num_rows == 0:
            continue
        names = {b: (rename or {}).get((k, b), b) for b in
                 set(games.column("bots").combine_chunks().flatten().to_pylist())}
        for row in games.select(["termination", "offender_bot"]).to_pylist():
            if row["termination"] == "timeout" and row["offender_bot"] is not None:
                timeouts[names.get(row["offender_bot"], row["offender_bot"])] += 1
        moves, bad = store.load_all_moves(folder, ["game_id", "seat", "think_time"])
        skipped.extend(bad)
        joined = moves.join(_seat_bots(games), keys=["game_id", "seat"], join_type="inner")
        bot_col = joined.column("bot").to_numpy(zero_copy_only=False)
        times = joined.column("think_time").to_numpy()
        for bot in np.unique(bot_col) if len(bot_col) else []:
            think.setdefault(names.get(str(bot), str(bot)), []).append(times[bot_col == bot])
    rows = []
    for bot in sorted(set(think) | set(timeouts)):
        values = np.concatenate(think[bot]) if bot in think else np.zeros(0)
        if len(values):
            median, p95 = (float(q) for q in np.quantile(values, [0.5, 0.95]))
            slowest, total = float(values.max()), float(values.sum())
        else:
            median = p95 = slowest = total = 0.0
        rows.append(BotTimes(bot, len(values), median, p95, slowest, total, timeouts[bot]))
    rows.sort(key=lambda r: (-r.median, r.bot))
    return rows, skipped


def render(rows: list[BotTimes], fmt: str = "table") -> str:
    """An aligned table (milliseconds, total in seconds) or, for ``json``, plain dicts in
    seconds under ``"times"`` (see :func:`as_json`)."""
    if fmt == "json":
        import json

        return json.dumps(as_json(rows), indent=1)
    head = ("bot", "decisions", "median ms", "p95 ms", "slowest ms", "total s", "timeouts")
    body = [(r.bot, str(r.decisions), f"{r.median * 1000:.2f}", f"{r.p95 * 1000:.2f}",
             f"{r.slowest * 1000:.2f}", f"{r.total:.2f}", str(r.timeouts)) for r in rows]
    widths = [max(len(row[i]) for row in (head, *body)) for i in range(len(head))]
    return "\n".join("  ".join(c.rjust(w) if i else c.ljust(w)
                               for i, (c, w) in enumerate(zip(row, widths, strict=True)))
                     for row in (head, *body))


def as_json(rows: list[BotTimes]) -> dict[str, Any]:
    """``{"times": [{"bot", "decisions", "median", "p95", "slowest", "total", "timeouts"}]}``,
    times in seconds."""
    return {"times": [asdict(r) for r in rows]}
