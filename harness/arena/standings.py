"""The living league's leaderboard, fast at any size: per-pairing totals read from the Parquet
store with Arrow's vectorised kernels (never one Python object per game), the matchmaker's
ratings fitted to them once (:class:`harness.league.matchmaking.Matchmaker`: the MAP of the
Bradley–Terry model under a ``N(0, 350²)`` prior, with each rating's standard deviation), and
each version's status from the registry.

``tourney arena status`` prints this table; ``tourney ratings`` on the same folder gives the full
batch fit with its intervals, LOS and pair statistics (slower: it reads every game).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.arena.registry import Registry, Version

if TYPE_CHECKING:
    from harness.league.matchmaking import Matchmaker

Z95 = 1.959963984540054
VIEWS = ("latest", "all")


@dataclass
class Totals:
    """Rated results per pairing (names sorted): games, points of the first bot, deals."""

    pairs: dict[tuple[str, str], list[float]]
    games: dict[str, int]  # rated games per bot
    void: int = 0

    def add(self, a: str, b: str, games: float, points_a: float, deals: int) -> None:
        lo, hi, pts = (a, b, points_a) if a <= b else (b, a, games - points_a)
        acc = self.pairs.setdefault((lo, hi), [0.0, 0.0, 0.0])
        acc[0] += games
        acc[1] += pts
        acc[2] += deals
        self.games[a] = self.games.get(a, 0) + int(games)
        self.games[b] = self.games.get(b, 0) + int(games)


def read_totals(folder: Path) -> Totals:
    """The rated results stored in ``folder``, totalled per pairing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from harness.league import store, verdicts

    columns = ["game_id", "bots", "result", "rated", "pair_id", "teams", "termination",
               "offender"]
    tables = [store.read_batch(path, columns)
              for path in store.batch_files(folder / "games")]
    totals = Totals({}, {})
    if not tables:
        return totals
    table = pa.concat_tables(tables, promote_options="default")
    if pc.count_distinct(table["game_id"]).as_py() != table.num_rows:  # keep each id once
        ids = table["game_id"].to_pylist()
        seen: set[str] = set()
        keep = [not (g in seen or seen.add(g)) for g in ids]  # type: ignore[func-returns-value]
        table = table.filter(pa.array(keep))
    totals.void = table.num_rows - int(pc.sum(table["rated"]).as_py() or 0)
    table = table.filter(table["rated"])
    seats = pc.list_value_length(table["bots"])
    two = table.filter(pc.equal(seats, 2))
    if two.num_rows:
        a = pc.list_element(two["bots"], 0)
        b = pc.list_element(two["bots"], 1)
        ra = pc.list_element(two["result"], 0)
        rb = pc.list_element(two["result"], 1)
        win = pc.if_else(pc.greater(ra, rb), 1.0, pc.if_else(pc.equal(ra, rb), 0.5, 0.0))
        first = pc.less_equal(a, b)
        grouped = pa.table({
            "lo": pc.if_else(first, a, b), "hi": pc.if_else(first, b, a),
            "pts": pc.if_else(first, win, pc.subtract(1.0, win)), "pair": two["pair_id"],
        }).group_by(["lo", "hi"]).aggregate([("pts", "sum"), ("pts", "count"),
                                             ("pair", "count_distinct")])
        for lo, hi, pts, games, deals in zip(*(grouped[c].to_pylist() for c in (
                "lo", "hi", "pts_sum", "pts_count", "pair_count_distinct")), strict=True):
            if lo != hi:
                totals.add(lo, hi, float(games), float(pts), int(deals))
    rest = table.filter(pc.not_equal(seats, 2))
    for row in rest.to_pylist():  # team games: sides of one bot each, in Python (few)
        result = verdicts.result_of(row)
        names = [set(side) for side in result.sides]
        if len(names) != 2 or any(len(n) != 1 for n in names):
            continue
        (x,), (y,) = names
        if x != y:
            sx, sy = result.scores
            totals.add(x, y, 1.0, 1.0 if sx > sy else 0.5 if sx == sy else 0.0, 1)
    return totals


def fit(totals: Totals, bots: Sequence[str], active: Sequence[str],
        **options: Any) -> Matchmaker:
    """A matchmaker holding ``totals`` (one exact refit, whatever their size), its active bots
    ``active``; ``bots`` are every bot to know (retired ones keep informing the others)."""
    import numpy as np

    from harness.league.matchmaking import Matchmaker

    names = list(dict.fromkeys([*bots, *(n for pair in totals.pairs for n in pair)]))
    mm = Matchmaker(names, **options)
    every = mm.refit_every
    mm.refit_every = 1 << 62  # no refit while loading: one at the end
    deals = dict.fromkeys(names, 0)
    for (a, b), (games, pts, n) in totals.pairs.items():
        if games > 0:
            mm.record(a, b, pts, games=int(games))
        deals[a] += int(n)
        deals[b] += int(n)
    mm.results[:len(names)] = np.array([deals[n] for n in names], dtype=np.int64)
    mm.refit_every = every
    mm.refit()
    keep = set(active)
    for name in names:
        if name not in keep:
            mm.remove_bot(name)
    return mm


@dataclass
class Row:
    rank: int
    entrant: str
    version: int
    bot: str
    status: str
    rating: float | None  # Elo (the field's mean near 0); None before a rated game
    sd: float | None
    games: int
    reason: str


def standings(folder: Path, registry: Registry, *, view: str = "latest",
              only: Sequence[str] = ()) -> list[Row]:
    """The leaderboard: ``view`` ``latest`` (each entrant's current version) or ``all`` (every
    version); ``only``: entrant or bot names (shell patterns) to keep."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}")
    versions = registry.versions()
    totals = read_totals(folder)
    active = [v.bot for v in versions if v.status == "active"]
    mm = fit(totals, [v.bot for v in versions], active)
    shown: list[Version] = list(registry.latest().values()) if view == "latest" else versions
    if only:
        shown = [v for v in shown if any(fnmatch.fnmatchcase(v.entrant, p) or
                                         fnmatch.fnmatchcase(v.bot, p) for p in only)]
    rows = []
    for v in shown:
        games = totals.games.get(v.bot, 0)
        rating, sd = mm.rating(v.bot) if games else (None, None)
        rows.append(Row(0, v.entrant, v.version, v.bot, v.status, rating, sd, games, v.reason))
    rows.sort(key=lambda r: (r.rating is None, -(r.rating or 0.0), r.bot))
    for k, row in enumerate(rows, 1):
        row.rank = k
    return rows


def render(rows: Sequence[Row], fmt: str = "table") -> str:
    """The standings as a table, JSON or CSV."""
    if fmt == "json":
        return json.dumps([asdict(r) for r in rows], indent=1)
    if fmt == "csv":
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["rank", "entrant", "version", "bot", "status", "rating", "sd", "games",
                         "reason"])
        for r in rows:
            writer.writerow([r.rank, r.entrant, r.version, r.bot, r.status,
                             "" if r.rating is None else f"{r.rating:.1f}",
                             "" if r.sd is None else f"{r.sd:.1f}", r.games, r.reason])
        return buffer.getvalue().rstrip("\n")
    head = ["#", "entrant", "ver", "status", "Elo", "±95%", "games", "note"]
    cells = [[str(r.rank), r.entrant, f"v{r.version}", r.status,
              "-" if r.rating is None else f"{r.rating:+.0f}",
              "-" if r.sd is None else f"{Z95 * r.sd:.0f}", str(r.games),
              r.reason if r.status in ("failed", "suspended", "replaced") else ""]
             for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(head)]
    right = {0, 4, 5, 6}

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if i in right else v.ljust(w)
                         for i, (v, w) in enumerate(zip(values, widths, strict=True))).rstrip()

    out = [line(head), line(["-" * w for w in widths])]
    out.extend(line(c) for c in cells)
    if not cells:
        out.append("(no entrants yet: tourney arena add FOLDER NAME SPEC)")
    return "\n".join(out)
