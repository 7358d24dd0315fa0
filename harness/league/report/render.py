"""HTML for the report and the replay viewer: Jinja2 templates with every asset inlined.

A page is one file that opens offline: the stylesheet, our scripts, uPlot (the chart library,
vendored under ``static/vendor``) and the data (JSON in a ``<script type="application/json">``
element, escaped by Jinja's ``tojson``) are all written into it. Files are written atomically.
"""

from __future__ import annotations

import contextlib
import errno
import os
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from harness.league.report.data import ReportError

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
    # keep the data's own key order (the leaderboard's columns) and write it compactly
    env.policies["json.dumps_kwargs"] = {"sort_keys": False, "separators": (",", ":")}
    return env


@cache
def asset(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def render(template: str, **context: Any) -> str:
    return _env().get_template(template).render(css=asset("style.css"), **context)


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
