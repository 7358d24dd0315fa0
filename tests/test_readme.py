"""The README's examples run: every ```sh, ```python and ```sql block, in the order the README
gives them, in one shared folder, with this environment's ``tourney`` on PATH (the machinery
and the markers: tests/doc_examples.py; the manual's pages: tests/test_docs_examples.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doc_examples import README_BLOCKS as BLOCKS
from tests.doc_examples import (
    ROOT,
    _make_function,
    blocks,
    check_syntax,
    cluster_script,
    example_folder,
    run_all,
)


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


def test_the_readme_has_examples_of_the_kinds_a_front_door_needs() -> None:
    """The README runs shell and Python, names its bot as a file, and skips the install."""
    assert {b.lang for b in BLOCKS} >= {"sh", "python"}
    assert {b.kind for b in BLOCKS} >= {"", "file", "skip"}
    assert all(b.arg for b in BLOCKS if b.kind == "file")
    assert [b.arg for b in BLOCKS if b.kind == "file"] == ["mybot.py"]


def test_the_readme_stays_a_front_door() -> None:
    """At most about 400 lines: the manual lives in docs/."""
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 400


def test_the_marker_parser_refuses_what_it_does_not_know() -> None:
    assert [b.kind for b in blocks("<!-- example: slow -->\n```sh\nls\n```\n")] == ["slow"]
    with pytest.raises(ValueError, match="unknown example marker"):
        blocks("<!-- example: later -->\n```sh\nls\n```\n")
    with pytest.raises(ValueError, match="before a text block"):
        blocks("<!-- example: slow -->\n```text\nls\n```\n")
    with pytest.raises(ValueError, match=r"^docs/x\.md:1: unknown"):
        blocks("<!-- example: later -->\n", "docs/x.md")


def test_every_example_parses() -> None:
    for block in BLOCKS:
        check_syntax(block)


def test_the_readme_examples_run(folder: Path) -> None:
    """Every block not marked slow, cluster or skip, in README order, in one folder."""
    assert run_all(BLOCKS, folder, slow=False) >= 5
    assert (folder / "results" / "demo" / "league.json").exists()
    assert (folder / "results" / "mine" / "league.json").exists()
    assert (folder / "results" / "sprt" / "sprt.json").exists()


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
