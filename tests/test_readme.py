"""The README's examples run: every ```sh, ```python and ```sql block, in the order the README
gives them, in one shared folder, with this environment's ``tourney`` on PATH.

A block may be preceded by a marker line (the README's Development section documents them):

- ``<!-- example: file NAME -->``: the block is the file NAME, written into the folder first;
- ``<!-- example: slow -->``: run only by the slow test (``make test-slow``);
- ``<!-- example: cluster -->``: a Dask example, run by the slow test against a scheduler and
  workers started on 127.0.0.1 (its host, port and worker count rewritten for that);
- ``<!-- example: skip (REASON) -->``: never run, only checked for syntax.

``make TARGET`` in a block runs the Makefile's recipe for TARGET when that recipe consists of
tourney commands (``make league``), with a small budget (``--games 2``: one duplicate pair a
pairing, the same commands and bots), and is skipped otherwise (``make test`` is this test); the
folder holds a ``.venv`` link to this environment (for ``. .venv/bin/activate``), the clone's
``agents/``, ``engine.py``, the standalone bot of docs/protocol.md, and ``mybot/``, a bot
directory laid out as the README's "Bot directories" section shows (tests/fixtures/dirbot).
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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.patience import patience

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
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

    def __str__(self) -> str:
        return f"README.md:{self.line} ({self.lang}{', ' + self.kind if self.kind else ''})"


def blocks(text: str) -> list[Block]:
    """The README's fenced blocks in the languages we run, with their markers."""
    found: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            if lines[i].startswith("<!-- example:") and not MARKER.match(lines[i]):
                raise ValueError(f"README.md:{i + 1}: unknown example marker {lines[i]!r}")
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        lang = opening.group(1)
        marker = MARKER.match(lines[i - 1]) if i else None
        if marker and lang not in RUN:
            raise ValueError(f"README.md:{i}: an example marker before a {lang or 'plain'} block")
        if lang in RUN:
            kind, arg = marker.groups() if marker else ("", "")
            found.append(Block(i + 1, lang, "\n".join(lines[i + 1:end]) + "\n", kind, arg))
        i = end + 1
    return found


BLOCKS = blocks(README.read_text(encoding="utf-8"))


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


def example_folder(prefix: str) -> Path:
    """A folder for the examples, readable by the sandbox's unprivileged user (pytest's own
    temporary folders are not), holding what the README's commands expect of a clone."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    (path / ".venv").symlink_to(BIN.parent)
    (path / "agents").symlink_to(ROOT / "agents")
    (path / "engine.py").write_text(_protocol_bot(), encoding="utf-8")
    # the bot directory the README's "Bot directories" section lays out
    shutil.copytree(ROOT / "tests" / "fixtures" / "dirbot", path / "mybot")
    for block in BLOCKS:
        if block.kind == "file":
            (path / block.arg).write_text(block.text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """The folder the examples share."""
    path = example_folder("tourney-readme-")
    try:
        yield path
    finally:  # a competition server an example started, if a later example failed
        subprocess.run(["pkill", "-KILL", "-f", "tourney serve results/spring-cup"],
                       check=False)
        shutil.rmtree(path, ignore_errors=True)


def test_the_readme_has_examples_of_every_kind() -> None:
    langs = {b.lang for b in BLOCKS}
    kinds = {b.kind for b in BLOCKS}
    assert langs == RUN
    assert {"", "file", "cluster", "skip"} <= kinds
    assert all(b.arg for b in BLOCKS if b.kind == "file")


def test_the_marker_parser_refuses_what_it_does_not_know() -> None:
    assert [b.kind for b in blocks("<!-- example: slow -->\n```sh\nls\n```\n")] == ["slow"]
    with pytest.raises(ValueError, match="unknown example marker"):
        blocks("<!-- example: later -->\n```sh\nls\n```\n")
    with pytest.raises(ValueError, match="before a text block"):
        blocks("<!-- example: slow -->\n```text\nls\n```\n")


def test_every_example_parses() -> None:
    for block in BLOCKS:
        if block.lang == "python":
            ast.parse(block.text, filename=str(block))
        elif block.lang == "sh":
            done = subprocess.run(["bash", "-n", "-c", block.text], capture_output=True,
                                  text=True, check=False)
            assert done.returncode == 0, f"{block}: {done.stderr}"


def test_the_readme_examples_run(folder: Path) -> None:
    """Every block not marked slow, cluster or skip, in README order, in one folder."""
    ran = 0
    for block in BLOCKS:
        if block.kind == "file" and block.lang == "python":
            compile(block.text, str(block), "exec")
        elif not block.kind:
            run_block(block, folder)
            ran += 1
    assert ran >= 5
    assert (folder / "results" / "demo" / "league.json").exists()


def test_the_duckdb_example_gives_seat_0s_win_rate(folder: Path) -> None:
    """The SQL example's numbers are what its comment says, checked against pyarrow."""
    import pyarrow.dataset as ds

    sql = next(b for b in BLOCKS if b.lang == "sql")
    if not (folder / "results" / "demo").exists():
        run_block(next(b for b in BLOCKS if "make league" in b.text), folder)
    import duckdb

    relation = duckdb.sql(sql.text.replace("results/", f"{folder}/results/"))
    assert relation is not None
    rows = relation.fetchall()
    games = ds.dataset(folder / "results" / "demo" / "games", format="parquet").to_table()
    expected: dict[str, list[int]] = {}
    for bots, result in zip(games.column("bots").to_pylist(),
                            games.column("result").to_pylist(), strict=True):
        expected.setdefault(bots[0], []).append(result[0] == 1)
    assert [(bot, pytest.approx(win_rate), n) for bot, win_rate, n in rows] == [
        (bot, pytest.approx(sum(wins) / len(wins)), len(wins))
        for bot, wins in sorted(expected.items())
    ]
    assert len(rows) == len(expected) > 1  # every bot of the demo league seated at 0


def test_the_make_shim_plays_the_demo_recipes_with_a_small_budget() -> None:
    """``make league`` in a block runs the Makefile's own commands with two games a pairing;
    targets that are not made of tourney commands (``make test``, this test) are not run."""
    shim = _make_function()
    league = re.search(r"^    league\) (.*) ;;$", shim, re.M)
    assert league is not None
    recipe = re.search(r"^league:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe is not None
    wanted = [re.sub(r"--games \d+", "--games 2", line.strip().replace("$(BIN)/", ""))
              for line in recipe.group(1).splitlines()]
    assert league.group(1).split(" && ") == wanted
    assert "--games 2 " in wanted[0] and wanted[0].startswith("tourney league battleline")
    assert not re.search(r"^    test\)", shim, re.M)


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


def test_the_cluster_script_runs_the_dask_commands_on_loopback() -> None:
    script = cluster_script("dask scheduler --host 10.0.0.5 --port 8786   # note\n"
                            "dask worker tcp://10.0.0.5:8786 --nworkers 8 --nthreads 1\n"
                            "tourney league bl a b --out x \\\n    --cluster tcp://10.0.0.5:8786\n",
                            4321)
    assert script.splitlines()[1:] == [
        "dask scheduler --host 127.0.0.1 --port 4321 --dashboard-address 127.0.0.1:0 &",
        "dask worker tcp://127.0.0.1:4321 --nworkers 2 --no-dashboard --nthreads 1 &",
        "tourney league bl a b --out x \\",
        "    --cluster tcp://127.0.0.1:4321",
    ]


@pytest.mark.slow
def test_the_slow_and_cluster_examples_run() -> None:
    """The marked blocks, after the ones before them, in a folder of their own."""
    path = example_folder("tourney-readme-slow-")
    try:
        ran = 0
        for block in BLOCKS:
            if block.kind in ("", "slow"):
                run_block(block, path)
                ran += block.kind == "slow"
            elif block.kind == "cluster":
                run_block(block, path, cluster_script(block.text, _free_port()))
                ran += 1
        assert ran >= 1
        import pyarrow.dataset as ds

        big = ds.dataset(path / "results" / "big" / "games", format="parquet")
        assert big.count_rows() == 600  # the cluster example: 3 pairings of 200 games
    finally:
        shutil.rmtree(path, ignore_errors=True)
