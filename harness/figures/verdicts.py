"""`tourney ratings` as people read it: the model of :mod:`harness.league.verdicts` (the Elo fit
beside TrueSkill, LOS, the pairs) rendered as an aligned table, markdown, CSV or JSON, from the
same rows (the leaderboard is one :class:`~harness.figures.table.Table`, which the Python API
hands over as it is); and :func:`ratings_text`, the command's whole output for some folders.

>>> rows = [{"game_id": f"g{i}", "bots": ["a", "b"] if i % 2 else ["b", "a"],
...          "result": [1.0, -1.0] if i % 2 else [-1.0, 1.0], "termination": "normal",
...          "offender": None, "rated": True, "teams": None, "pair_id": f"p{i // 2}"}
...         for i in range(8)]
>>> print(render(rate(rows)).splitlines()[0])
rank  bot   Elo   low  high     mu  sigma  mu-3σ  games  W  D  L  score  forfeits
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.figures import times as think_times
from harness.figures.table import FORMATS, Column, Table, aligned, markdown
from harness.league.verdicts import (
    TRUESKILL_LINE,
    Rated,
    RatingsInputError,
    as_json,
    leaderboard_rows,
    los_rows,
    method_line,
    notes,
    rate,
)
from harness.stats import ratings

__all__ = ["FORMATS", "Rated", "RatingsInputError", "leaderboard", "rate", "ratings_text",
           "render"]


def _num(x: float | None, digits: int) -> float | None:
    return round(x, digits) if x is not None and math.isfinite(x) else None


def _cell(x: float | None, fmt: str = "{:+.0f}") -> str:
    return "" if x is None else fmt.format(x)


def _elo_cell(x: float) -> str:
    """A pair's Elo figure: ±inf when one bot took every point, blank when there is no pair."""
    if math.isnan(x):
        return ""
    return ("+inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:+.0f}"


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def forfeit_text(row: Mapping[str, Any]) -> str:
    """A bot's forfeits by kind (``1 timeout, 2 crash``), or 0, from its leaderboard row."""
    parts = [f"{row[f'forfeits_{k}']} {k}" for k in ratings.FORFEIT_KINDS
             if row.get(f"forfeits_{k}")]
    return ", ".join(parts) if parts else "0"


def _fixed(key: str, fmt: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda row: _cell(row.get(key), fmt)


#: The leaderboard's text columns, over the rows of :func:`verdicts.leaderboard_rows`.
LEADERBOARD = [
    Column("rank"), Column("bot", left=True), Column("elo", "Elo", _fixed("elo", "{:+.0f}")),
    Column("elo_low", "low", _fixed("elo_low", "{:+.0f}")),
    Column("elo_high", "high", _fixed("elo_high", "{:+.0f}")),
    Column("mu", text=_fixed("mu", "{:.2f}")), Column("sigma", text=_fixed("sigma", "{:.2f}")),
    Column("rating", "mu-3σ", _fixed("rating", "{:.2f}")), Column("games"),
    Column("wins", "W"), Column("draws", "D"), Column("losses", "L"),
    Column("score", text=lambda row: _cell(None if row.get("score") is None
                                           else 100 * row["score"], "{:.1f}")),
    Column("forfeits", text=forfeit_text),
]


def leaderboard(rated: Rated) -> Table:
    """The leaderboard as the one table model: its rows are :func:`verdicts.leaderboard_rows`
    (every figure, for JSON and CSV), its text the columns of :data:`LEADERBOARD`."""
    return Table(leaderboard_rows(rated), notes(rated), LEADERBOARD)


def _los_cells(rated: Rated) -> tuple[list[str], list[list[str]]]:
    names = [b.name for b in rated.fit.bots]
    rows = []
    for i, a in enumerate(names):
        row = [a]
        for j in range(len(names)):
            value = rated.fit.los[i][j]
            row.append("-" if i == j else "" if value is None else f"{100 * value:.1f}%")
        rows.append(row)
    return ["", *names], rows


_PAIR_HEAD = ["bot", "opponent", "pairs", "0", "½", "1", "1½", "2", "W", "D", "L", "score",
              "Elo", "low", "high", "draws", "LOS", "incomplete"]


def _pair_cells(rated: Rated) -> list[list[str]]:
    cells = []
    for p in rated.pairs:
        s = p.summary
        unsure = "n/a" if p.pairs else ""  # too few pairs, or no spread seen (pairs.MIN_PAIRS)
        cells.append([p.a, p.b, str(p.pairs), *(str(c) for c in p.pentanomial), str(p.wins),
                      str(p.draws), str(p.losses), _pct(_num(s.score, 4)),
                      _elo_cell(s.elo), _elo_cell(s.elo_low) or unsure,
                      _elo_cell(s.elo_high) or unsure, _pct(_num(p.draw_ratio, 4)),
                      _pct(_num(s.los, 4)) or unsure, str(p.incomplete_pairs)])
    return cells


def render(rated: Rated, fmt: str = "table", *, h2h: bool = False, los: bool = False,
           pairs: bool = False) -> str:
    """The ratings as text in one of :data:`ratings.FORMATS`.

    JSON always holds every figure. CSV holds one table: the leaderboard, or with ``h2h`` or
    ``los`` one row per ordered pair of bots (LOS and head-to-head), or with ``pairs`` the pair
    statistics. The table and markdown show the leaderboard and the sections asked for
    (``h2h`` shows the head-to-head and the LOS matrix).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(as_json(rated, h2h=h2h), indent=2)
    if fmt == "csv":
        if (h2h or los) and pairs:
            raise RatingsInputError("CSV holds one table: ask for --pairs or --h2h/--los, "
                                    "not both (or use --format json)")
        records = (_pair_records(rated) if pairs else los_rows(rated) if h2h or los
                   else leaderboard_rows(rated))
        buf = io.StringIO()
        if records:
            writer = csv.DictWriter(buf, fieldnames=list(records[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(records)
        return buf.getvalue().rstrip("\n")
    show = markdown if fmt == "markdown" else aligned
    parts = [show(*leaderboard(rated).cells())]
    if h2h:
        head, rows = h2h_cells(rated.board)
        parts += ["", "Head to head (row bot's score against column bot, a draw counting "
                      "half; games):", show(head, rows)]
    if h2h or los:
        head, rows = _los_cells(rated)
        parts += ["", "Likelihood of superiority (row bot stronger than column bot), against "
                      "the whole field: from the Elo fit over every game of both:",
                  show(head, rows)]
    if pairs:
        parts += ["", "Duplicate pairs, head to head, these pairs only (bot's points over a "
                      f"pair: 0, ½, 1, 1½, 2; score, Elo and {100 * rated.fit.level:g}% interval "
                      "from the pair variance; n/a below 5 pairs or without spread):",
                  show(_PAIR_HEAD, _pair_cells(rated)) if rated.pairs else "(no pairings)"]
    board = rated.board
    parts += ["", method_line(rated.fit), TRUESKILL_LINE,
              f"{board.rated_games} rated games, {board.void_games} void; TrueSkill draw "
              f"probability {board.draw_probability:.3f}"]
    parts += [f"note: {n}" for n in notes(rated)]
    return "\n".join(parts)


def _pair_records(rated: Rated) -> list[dict[str, Any]]:
    records = []
    for p in rated.pairs:
        d = p.as_dict()
        penta = d.pop("pentanomial")
        records.append({**d, **{f"pairs_{k}": c for k, c in
                                zip(("0", "0.5", "1", "1.5", "2"), penta, strict=True)}})
    return records


def h2h_cells(board: ratings.Leaderboard) -> tuple[list[str], list[list[str]]]:
    names = [s.name for s in board.bots]
    head = ["", *names]
    rows = []
    for a in names:
        row = [a]
        for b in names:
            if a == b:
                row.append("-")
            elif (a, b) in board.h2h:
                rate, n = board.h2h[(a, b)]
                row.append(f"{100 * rate:.0f}% ({n})")
            else:
                row.append("")
        rows.append(row)
    return head, rows


def ratings_text(folders: Sequence[Path], *, fmt: str = "table", h2h: bool = False,
                 draw_probability: float | None = None, anchor: str | None = None,
                 level: float = 0.95, interval: str = "curvature", los: bool = False,
                 pairs: bool = False, show: Collection[str] | None = None,
                 times: bool = False) -> tuple[str, list[str]]:
    """The leaderboard (Elo fit beside TrueSkill) of the games stored in ``folders`` in
    ``fmt``, with ``times`` the think-time table after it, and warnings (skipped files); see
    :func:`harness.league.service.rate_folders` for the options. JSON is made once from the
    models (notes and times as lists in it), never read back from text."""
    from harness.league.service import LeagueError, rate_folders

    if fmt not in FORMATS:
        raise LeagueError(f"unknown --format {fmt!r}; choose one of {', '.join(FORMATS)}")
    got = rate_folders(folders, draw_probability=draw_probability, anchor=anchor, level=level,
                       interval=interval, show=show)
    skipped = list(got.skipped)
    think = _think_times(folders, skipped) if times else None
    if fmt == "json":
        data = as_json(got.rated, h2h=h2h)
        if got.notes:
            data["notes"] = [*data.get("notes", []), *got.notes]
        if think is not None:
            data.update(think_times.as_json(think))
        # (the figures alone are indented by two, as they always were; with more, by one)
        return json.dumps(data, indent=1 if got.notes or think is not None else 2), skipped
    try:
        text = render(got.rated, fmt, h2h=h2h, los=los, pairs=pairs)
    except RatingsInputError as exc:
        raise LeagueError(str(exc)) from None
    if got.notes and fmt == "csv":
        skipped.extend(got.notes)
    elif got.notes:
        text = "\n".join([text, "", *got.notes])
    if think is not None:
        text = f"{text}\n\nthink time per decision\n{think_times.render(think)}"
    return text, skipped


def _think_times(folders: Sequence[Path], skipped: list[str]) -> list[think_times.BotTimes]:
    """Each bot's think time per decision, its versions named as the ratings name them."""
    from harness.league.folder import load_config
    from harness.league.identity import versions

    rename, _notes = versions([load_config(f) for f in folders])
    rows, bad = think_times.bot_times(list(folders), rename)
    skipped.extend(bad)
    return rows
