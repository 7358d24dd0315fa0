"""docs/research.md's whole loop (train by self-play, enter the policy in a league, read its
rating) runs with a budget of seconds; the page's other examples run in
tests/test_docs_examples.py, this one in full in the slow test."""

from __future__ import annotations

import shutil
from dataclasses import replace

from tests.doc_examples import example_folder, page_blocks, run_block

PAGE = "docs/research.md"


def test_the_self_play_example_trains_enters_and_rates_a_policy() -> None:
    block = next(b for b in page_blocks(PAGE) if "train(" in b.text)
    assert block.kind == "slow" and "MINUTES = 3" in block.text
    quick = replace(block, text=block.text.replace("MINUTES = 3", "MINUTES = 0.1"))
    folder = example_folder("tourney-research-")
    try:
        out = run_block(quick, folder)
        assert "self-play:" in out
        assert "selfplay: Elo" in out and "random: Elo" in out
        assert (folder / "selfplay" / "policy.npz").is_file()
        assert (folder / "selfplay" / "bot.py").is_file()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
