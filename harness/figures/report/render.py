"""HTML for the report and the replay viewer: Jinja2 templates with every asset inlined.

A page is one file that opens offline: the stylesheet, our scripts, uPlot (the chart library,
vendored under ``static/vendor``) and the data (JSON, gzip-compressed and base64-encoded by
:func:`pack`, in a ``<script type="application/octet-stream">`` element) are all written into
it. Files are written atomically.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import gzip
import json
import math
import os
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from harness.figures.report.data import ReportError

HERE = Path(__file__).parent
STATIC = HERE / "static"


@cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


@cache
def asset(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def _finite(value: Any) -> Any:
    """``value`` with infinities as the strings "∞" and "−∞" and NaN as None: the browser's
    JSON.parse refuses Python's ``Infinity`` and ``NaN`` (an unbounded Elo interval, say)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("∞" if value > 0 else "−∞")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def pack(data: Any) -> str:
    """JSON, gzip-compressed, in base64: what the pages carry (``common.js`` unpacks it).

    >>> unpack(pack({"elo": 12.5, "elo_high": float("inf"), "x": [float("nan")]}))
    {'elo': 12.5, 'elo_high': '∞', 'x': [None]}
    """
    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:  # a non-finite number somewhere: rare, so only then walk the data
        text = json.dumps(_finite(data), separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    raw = text.encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(text: str) -> Any:
    """The inverse of :func:`pack`."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


def render(template: str, data: Any, **context: Any) -> str:
    """A page with its data packed and the shared stylesheet and script inlined."""
    return render_page(template, data=pack(data), **context)


def render_page(template: str, **context: Any) -> str:
    """A page with the shared stylesheet and script inlined (``data``, if any, as given)."""
    return _env().get_template(template).render(
        css=asset("style.css"), common_js=asset("common.js"), **context)


def check_writable(path: Path) -> None:
    """Fail early, before any work, when ``path`` cannot be written."""
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ReportError(f"cannot write {path}: it is a folder; name a file, e.g. "
                          f"{path / 'report.html'}")
    if not parent.is_dir():
        raise ReportError(f"cannot write {path}: folder {parent} does not exist; create it or "
                          f"choose another path")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ReportError(f"cannot write {path}: permission denied in {parent}; choose a "
                          f"folder you can write to")


def write_atomic(path: Path, text: str) -> None:
    """Write via a hidden temporary file beside ``path``, then rename: never a partial file."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        why = "the disk is full" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
        raise ReportError(f"cannot write {path}: {why}; choose another path") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
