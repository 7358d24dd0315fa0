"""Running the documentation's examples: every ```sh, ```python and ```sql block of a page
(the README, a page of docs/), in the order the page gives them, in one folder a page, with
this environment's ``tourney`` on PATH. tests/test_readme.py runs the README's,
tests/test_docs_examples.py those of the manual's pages.

A block may be preceded by a marker line (docs/development.md, "The examples are tests"):

- ``<!-- example: file NAME -->``: the block is the file NAME, written into the folder first;
- ``<!-- example: slow -->``: run only by the slow test (``make test-slow``);
- ``<!-- example: cluster -->``: a Dask example, run by the slow test against a scheduler and
  workers started on 127.0.0.1 (its host, port and worker count rewritten for that);
- ``<!-- example: skip (REASON) -->``: never run, only checked for syntax.

``make TARGET`` in a block runs the Makefile's recipe for TARGET when that recipe consists of
tourney commands (``make league``), with a small budget (``--games 2``: one duplicate pair a
pairing, the same commands and bots), and is skipped otherwise (``make test`` is the tests); a
folder holds a ``.venv`` link to this environment (for ``. .venv/bin/activate``), the clone's
``agents/``, ``engine.py``, the standalone bot of docs/protocol.md, ``mybot/``, a bot directory
laid out as docs/bots.md's "Bot directories" shows (tests/fixtures/dirbot), the README's files
(its ``mybot.py``) and the page's own.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.patience import patience

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(\w*)\s*$")
MARKER = re.compile(r"^<!-- example: (file|slow|cluster|skip)\b\s*(.*?)\s*-->$")
RUN = {"sh", "python", "sql"}
# a hang guard, not a speed test: the slowest block takes about 40 s on an idle machine
BLOCK_TIMEOUT = 600
SHIM_GAMES = 2  # games a pairing when a block runs ``make league``: the demo, cheaply


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    lang: str
    text: str
    kind: str = ""  # "", "file", "slow", "cluster" or "skip"
    arg: str = ""
    page: str = "README.md"

    def __str__(self) -> str:
        return f"{self.page}:{self.line} ({self.lang}{', ' + self.kind if self.kind else ''})"


def blocks(text: str, page: str = "README.md") -> list[Block]:
    """A page's fenced blocks in the languages we run, with their markers."""
    found: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            if lines[i].startswith("<!-- example:") and not MARKER.match(lines[i]):
                raise ValueError(f"{page}:{i + 1}: unknown example marker {lines[i]!r}")
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        lang = opening.group(1)
        marker = MARKER.match(lines[i - 1]) if i else None
        if marker and lang not in RUN:
            raise ValueError(f"{page}:{i}: an example marker before a {lang or 'plain'} "
                             "block")
        if lang in RUN:
            kind, arg = marker.groups() if marker else ("", "")
            found.append(Block(i + 1, lang, "\n".join(lines[i + 1:end]) + "\n", kind, arg,
                               page))
        i = end + 1
    return found




def page_blocks(page: str) -> list[Block]:
    """The blocks of ``page``, a path relative to the clone (``README.md``, ``docs/bots.md``)."""
    return blocks((ROOT / page).read_text(encoding="utf-8"), page)


README_BLOCKS = page_blocks("README.md")


def _make_function() -> str:
    """A shell function ``make`` that runs the Makefile recipes made of tourney commands, each
    with ``--games`` cut to :data:`SHIM_GAMES` (the user has usually just played the full demo,
    and what the later blocks read of it needs only a pair of games a pairing)."""
    recipes: dict[str, list[str]] = {}
    target = None
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        head = re.match(r"^([a-z-]+):", line)
        if head:
            target = head.group(1)
            recipes[target] = []
        elif line.startswith("\t") and target:
            recipes[target].append(line.strip())
        elif line.strip() and not line.startswith("#"):
            target = None
    cases = []
    for name, recipe in recipes.items():
        if recipe and all(r.startswith("$(BIN)/tourney ") for r in recipe):
            body = " && ".join(re.sub(r"--games \d+", f"--games {SHIM_GAMES}",
                                      r.replace("$(BIN)/", "")) for r in recipe)
            cases.append(f"    {name}) {body} ;;")
    cases.append('    *) echo "make $1: not run by the README test" ;;')
    return 'make() {\n  case "$1" in\n' + "\n".join(cases) + "\n  esac\n}\n"


def _protocol_bot() -> str:
    """The standalone bot of docs/protocol.md (its section "A bot in any language")."""
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text[text.index("## A bot in any language"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("VIRTUAL_ENV", None)
    return env


def run_block(block: Block, folder: Path, script: str | None = None) -> str:
    """Run one block in ``folder``; fail the test with its output if it fails."""
    if block.lang == "sh":
        cmd = ["bash", "-c", "set -e\n" + _make_function() + (script or block.text)]
    elif block.lang == "python":
        cmd = [sys.executable, "-c", block.text]
    else:
        cmd = [sys.executable, "-c", "import duckdb, sys; print(duckdb.sql(sys.argv[1]))",
               block.text]
    done = subprocess.run(cmd, cwd=folder, env=_env(), capture_output=True, text=True,
                          timeout=patience(BLOCK_TIMEOUT), check=False)
    if done.returncode != 0:
        pytest.fail(f"{block} exited {done.returncode}\n--- block ---\n{block.text}"
                    f"--- stdout ---\n{done.stdout[-3000:]}--- stderr ---\n{done.stderr[-3000:]}")
    return done.stdout


def example_folder(prefix: str, page: Sequence[Block] = ()) -> Path:
    """A folder for the examples, readable by the sandbox's unprivileged user (pytest's own
    temporary folders are not), holding what the README's commands expect of a clone and the
    files of the README and of ``page``."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    (path / ".venv").symlink_to(BIN.parent)
    (path / "agents").symlink_to(ROOT / "agents")
    (path / "engine.py").write_text(_protocol_bot(), encoding="utf-8")
    # the bot directory docs/bots.md's "Bot directories" section lays out
    shutil.copytree(ROOT / "tests" / "fixtures" / "dirbot", path / "mybot")
    for block in [*README_BLOCKS, *page]:
        if block.kind == "file":
            (path / block.arg).write_text(block.text, encoding="utf-8")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cluster_script(text: str, port: int) -> str:
    """A cluster example made to run on this machine: its hosts become 127.0.0.1, its port a
    free one, every worker machine two worker processes; ``dask`` commands run in the
    background and are stopped when the block ends."""
    text = re.sub(r"\b\d+\.\d+\.\d+\.\d+:8786\b", f"127.0.0.1:{port}", text)
    text = re.sub(r"--host \S+", "--host 127.0.0.1", text)
    text = text.replace("--port 8786", f"--port {port} --dashboard-address 127.0.0.1:0")
    text = re.sub(r"--nworkers \d+", "--nworkers 2 --no-dashboard", text)
    lines = [line + " &" if line.startswith("dask ") else line
             for line in (re.sub(r"\s+#.*$", "", raw) for raw in text.splitlines())]
    return "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT\n" + "\n".join(lines) + "\n"




def run_all(page: Sequence[Block], path: Path, *, slow: bool) -> int:
    """Run the blocks of ``page`` in ``path`` in order: those without a marker, and with
    ``slow`` the slow and cluster ones too; the number of blocks run."""
    ran = 0
    for block in page:
        if block.kind == "file" and block.lang == "python":
            compile(block.text, str(block), "exec")
        elif not block.kind or (slow and block.kind == "slow"):
            run_block(block, path)
            ran += 1
        elif slow and block.kind == "cluster":
            run_block(block, path, cluster_script(block.text, _free_port()))
            ran += 1
    return ran


def check_syntax(block: Block) -> None:
    """A block parses (Python) or passes ``bash -n`` (sh)."""
    if block.lang == "python":
        ast.parse(block.text, filename=str(block))
    elif block.lang == "sh":
        done = subprocess.run(["bash", "-n", "-c", block.text], capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0, f"{block}: {done.stderr}"
