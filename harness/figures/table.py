"""The one model of a table people read: rows of plain values, columns that say how each value
is shown, notes under it; rendered as aligned text, markdown, CSV, JSON or HTML from the same
rows, so the formats cannot disagree.

>>> t = Table([{"bot": "a", "score": 0.75}], shown=[Column("bot", left=True),
...           Column("score", text=lambda r: f"{100 * r['score']:.1f}%")])
>>> print(t.text())
bot  score
---  -----
a    75.0%
>>> t.json_rows()
[{'bot': 'a', 'score': 0.75}]
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

FORMATS = ("table", "json", "csv", "markdown")


def cell(value: Any) -> str:
    """A value as text: blank for None, ``%g`` for a float (never ``-0``)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value + 0.0:g}"
    return str(value)


@dataclass(frozen=True)
class Column:
    """A column: the row's ``key``, its heading (default the key), how a row shows it as text
    (default :func:`cell` of the value), and whether text aligns it left (else right)."""

    key: str
    head: str = ""
    text: Callable[[Mapping[str, Any]], str] | None = None
    left: bool = False

    def show(self, row: Mapping[str, Any]) -> str:
        return self.text(row) if self.text is not None else cell(row.get(self.key))

    @property
    def heading(self) -> str:
        return self.head or self.key


class Table(Sequence[dict[str, Any]]):
    """Rows of figures, one dict a row (:attr:`columns` the keys every row may have).

    A plain sequence of dicts (``table[0]["elo"]``, ``for row in table``), with a column by
    name, a row by its ``bot``, and every rendering: :meth:`text` (``str``), :meth:`markdown`,
    :meth:`csv`, :meth:`json_rows` and :meth:`html` (which Jupyter shows). ``notes`` holds what
    a reader of the figures must know. ``shown``: the columns of the text and HTML forms
    (default every key, as it is, aligned left).
    """

    def __init__(self, rows: Sequence[Mapping[str, Any]], notes: Sequence[str] = (),
                 shown: Sequence[Column] | None = None) -> None:
        self.rows = [dict(r) for r in rows]
        columns: dict[str, None] = {}
        for row in self.rows:
            columns.update(dict.fromkeys(row))
        self.columns = tuple(columns)
        self.notes = list(notes)
        self.shown = list(shown) if shown is not None else [
            Column(c, left=True) for c in self.columns]

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        return self.rows[index]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def column(self, name: str) -> list[Any]:
        """Every row's value of column ``name``, in row order."""
        if name not in self.columns:
            raise KeyError(f"no column {name!r}; the columns are {', '.join(self.columns)}")
        return [row.get(name) for row in self.rows]

    def row(self, bot: str) -> dict[str, Any]:
        """The row whose ``bot`` is ``bot``."""
        for row in self.rows:
            if row.get("bot") == bot:
                return row
        raise KeyError(f"no row for bot {bot!r}; the bots are "
                       f"{', '.join(str(r.get('bot')) for r in self.rows)}")

    def cells(self) -> tuple[list[str], list[list[str]]]:
        """The headings and each row's cells as text."""
        return ([c.heading for c in self.shown],
                [[c.show(row) for c in self.shown] for row in self.rows])

    def text(self, rule: bool = True) -> str:
        """Aligned columns (under a rule of dashes), then the notes."""
        head, body = self.cells()
        lines = [aligned(head, body, {i for i, c in enumerate(self.shown) if c.left}, rule)]
        return "\n".join(lines + [f"note: {n}" for n in self.notes])

    def markdown(self) -> str:
        head, body = self.cells()
        return markdown(head, body)

    def csv(self) -> str:
        """Every key of every row (the plain values), one line a row."""
        buf = io.StringIO()
        if self.rows:
            writer = csv.DictWriter(buf, fieldnames=list(self.columns), lineterminator="\n")
            writer.writeheader()
            writer.writerows(self.rows)
        return buf.getvalue().rstrip("\n")

    def json_rows(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.rows]

    def html(self) -> str:
        head, body = self.cells()
        th = "".join(f"<th>{html.escape(c)}</th>" for c in head)
        tb = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                     for row in body)
        notes = "".join(f"<p>note: {html.escape(n)}</p>" for n in self.notes)
        return f"<table><thead><tr>{th}</tr></thead><tbody>{tb}</tbody></table>{notes}"

    def __str__(self) -> str:
        return self.text(rule=False)

    def __repr__(self) -> str:
        return f"Table({len(self.rows)} rows: {', '.join(self.columns)})"

    def _repr_html_(self) -> str:
        """The table as HTML, which Jupyter shows for a table left at the end of a cell."""
        return self.html()


def aligned(head: Sequence[str], rows: Sequence[Sequence[str]], left: set[int] | None = None,
            rule: bool = True) -> str:
    """Columns padded to their widest cell: those in ``left`` aligned left, the others right
    (default: the second column left, as a bot's name), a rule of dashes under the heads."""
    left = {1} if left is None else left
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if j in left else c.rjust(w)
                         for j, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    out = [line(head)]
    if rule:
        out.append("  ".join("-" * w for w in widths))
    return "\n".join([*out, *(line(r) for r in rows)])


def markdown(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
