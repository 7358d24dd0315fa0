"""`tourney --help` starts fast because the command line imports nothing heavy until a command
runs: the check is on the imports (the time is `make bench ONLY=startup`'s figure)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pyarrow", "trueskill", "starlette", "uvicorn", "httpx", "rich", "jinja2",
         "dask", "games", "agents", "harness.stats", "harness.league.service",
         "harness.match.referee", "harness.serve")

PROBE = """
import json, sys
from harness.cli.app import app
args = json.loads(sys.argv[1])
if args:
    try:
        app(args)
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def loaded_after(args: list[str]) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True,
                          text=True, check=True)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [[], ["--help"], ["--version"], ["play", "--help"],
                                  ["league", "--help"], ["gauntlet", "--help"],
                                  ["serve", "--help"], ["arena", "run", "--help"]],
                         ids=lambda a: " ".join(a) or "import")
def test_the_command_line_and_its_help_import_nothing_heavy(args: list[str]) -> None:
    modules = loaded_after(args)
    heavy = sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == [], heavy


def test_the_probe_sees_a_heavy_import_when_a_command_runs() -> None:
    """The check above can fail: running a command that rates pulls numpy in."""
    assert "harness.league.service" in loaded_after(["ratings", "/nonexistent/folder"])
