"""The manual's examples run, one test a page, each page in a folder of its own, its blocks in
page order (tests/doc_examples.py: how, and the markers); and every link of the README and of
docs/ resolves."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doc_examples import (
    README_BLOCKS,
    ROOT,
    RUN,
    Block,
    check_syntax,
    example_folder,
    page_blocks,
    run_all,
)

# the manual's pages whose examples this module runs, in the README's reading order
PAGES = ["docs/bots.md", "docs/leagues.md", "docs/statistics.md", "docs/results.md",
         "docs/api.md", "docs/cluster.md", "docs/mcts.md", "docs/research.md"]
# pages with runnable blocks that are run elsewhere, or are not scripts
ELSEWHERE = {
    "docs/arena.md": "tests/arena/test_docs.py",
    "docs/serve.md": "tests/serve/test_docs.py",
    "docs/human.md": "tests/serve/test_human.py",
    "docs/protocol.md": "its standalone bot is engine.py of every example folder; it reads stdin",
    "docs/matchmaking.md": "a sketch of the Matchmaker's calls, tested in tests/arena",
}
BLOCKS = {page: page_blocks(page) for page in PAGES}
# the pages with examples that run in the quick test, and those with slow or cluster ones
QUICK = [page for page in PAGES if any(not b.kind for b in BLOCKS[page])]
SLOW = [page for page in ["README.md", *PAGES]
        if any(b.kind in ("slow", "cluster") for b in
               (README_BLOCKS if page == "README.md" else BLOCKS[page]))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.fixture(scope="module")
def played() -> Iterator[dict[str, Path]]:
    """Each page's folder, once its examples have run (see :func:`run_page`)."""
    folders: dict[str, Path] = {}
    try:
        yield folders
    finally:
        for path in folders.values():
            shutil.rmtree(path, ignore_errors=True)


def run_page(page: str, played: dict[str, Path]) -> Path:
    """Run ``page``'s examples (not slow, not cluster) in a folder of its own, once."""
    if page not in played:
        name = Path(page).stem
        played[page] = path = example_folder(f"tourney-docs-{name}-", BLOCKS[page])
        assert run_all(BLOCKS[page], path, slow=False) >= 1
    return played[page]


def docs_pages() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))


def test_every_page_with_examples_has_a_test() -> None:
    """A page of docs/ with a block in a language we run is run here or elsewhere, named."""
    with_blocks = {page for page in docs_pages() if page_blocks(page)}
    assert with_blocks - set(PAGES) - set(ELSEWHERE) == set()
    assert set(PAGES) <= with_blocks


def test_the_examples_cover_every_kind() -> None:
    every = [*README_BLOCKS, *(b for page in PAGES for b in BLOCKS[page])]
    assert {b.lang for b in every} == RUN
    assert {b.kind for b in every} >= {"", "file", "slow", "cluster", "skip"}


@pytest.mark.parametrize("page", PAGES)
def test_every_example_parses(page: str) -> None:
    for block in BLOCKS[page]:
        check_syntax(block)


def test_every_page_runs_in_the_quick_or_the_slow_test() -> None:
    assert set(QUICK) | set(SLOW) == set(PAGES)
    assert {"docs/cluster.md", "docs/mcts.md"} <= set(SLOW)


@pytest.mark.parametrize("page", QUICK)
def test_the_page_examples_run(page: str, played: dict[str, Path]) -> None:
    """Every block of the page not marked slow, cluster or skip, in page order."""
    assert run_page(page, played).is_dir()  # a failing block fails it, with its output


def test_the_results_page_reads_the_demo_it_plays(played: dict[str, Path]) -> None:
    path = run_page("docs/results.md", played)
    assert (path / "results" / "demo" / "league.json").exists()


def test_the_duckdb_example_gives_seat_0s_win_rate(played: dict[str, Path]) -> None:
    """The SQL example's numbers are what its comment says, checked against pyarrow."""
    import duckdb
    import pyarrow.dataset as ds

    folder = run_page("docs/results.md", played)
    sql = next(b for b in BLOCKS["docs/results.md"] if b.lang == "sql")
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


def test_the_api_page_reads_back_the_league_it_plays(played: dict[str, Path]) -> None:
    """The notebook league of docs/api.md is stored, and its ratings are what the CLI says."""
    import json
    import subprocess
    import sys

    folder = run_page("docs/api.md", played)
    cli = subprocess.run([str(Path(sys.executable).parent / "tourney"), "ratings",
                          str(folder / "results" / "notebook"), "--format", "json"],
                         capture_output=True, text=True, check=True)
    from harness import api

    table = api.ratings(folder / "results" / "notebook")
    assert list(table) == json.loads(cli.stdout)["leaderboard"]
    assert sum(row["games"] for row in table) == 2 * 12  # 3 pairings of 4 games, 2 seats


# ----------------------------------------------------------------------------- links


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)  # no headings in code
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def links(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)  # a link inside inline code is not a link
    return LINK.findall(text)


def broken_links(path: Path) -> list[str]:
    bad = []
    for target in links(path):
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor}")
    return bad


def test_every_relative_link_resolves() -> None:
    pages = [ROOT / "README.md", *(ROOT / p for p in docs_pages())]
    bad = {str(p.relative_to(ROOT)): broken_links(p) for p in pages}
    assert {page: found for page, found in bad.items() if found} == {}


def test_the_readme_links_every_page_of_the_manual() -> None:
    linked = {t.partition("#")[0] for t in links(ROOT / "README.md")}
    for page in [*PAGES, "docs/development.md", "docs/protocol.md", "docs/observation.md",
                 "docs/architecture.md", "docs/rules/battleline.md", "docs/rules/warchest.md",
                 "docs/arena.md", "docs/serve.md", "docs/human.md"]:
        assert page in linked, f"the README does not link {page}"
        assert (ROOT / page).exists()


def test_the_link_checker_finds_a_broken_link_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A page\n\n## Some `code`: here\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#some-code-here) [gone](c.md) [no](a.md#nowhere) "
                    "[self](#top) [web](https://example.org/x.md) `[code](x.md)`\n\n# Top\n",
                    encoding="utf-8")
    assert broken_links(page) == ["c.md: no such file", "a.md#nowhere: no heading #nowhere"]


@pytest.mark.slow
@pytest.mark.parametrize("page", SLOW)
def test_the_slow_and_cluster_examples_run(page: str) -> None:
    """The marked blocks of each page, after the ones before them, in a folder of their own."""
    blocks: list[Block] = README_BLOCKS if page == "README.md" else BLOCKS[page]
    path = example_folder(f"tourney-slow-{Path(page).stem}-", blocks)
    try:
        assert run_all(blocks, path, slow=True) >= 1
        if page == "docs/cluster.md":
            import pyarrow.dataset as ds

            big = ds.dataset(path / "results" / "big" / "games", format="parquet")
            assert big.count_rows() == 600  # the cluster example: 3 pairings of 200 games
    finally:
        shutil.rmtree(path, ignore_errors=True)
