"""The golden playthroughs in tests/golden/ still come out the same (every game's cases)."""

from __future__ import annotations

import difflib

import pytest

from tests.golden_gen import CASES, Case, path_of, play_case


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_golden_playthrough(case: Case) -> None:
    path = path_of(case)
    assert path.exists(), f"{path} is missing: run `make golden` and review the new file"
    want = path.read_text().splitlines()
    got = play_case(case).splitlines()
    if got != want:
        diff = "\n".join(
            difflib.unified_diff(want, got, str(path), "regenerated", lineterm="", n=2)
        )
        pytest.fail(
            f"golden playthrough {case.file} changed (a rules change?); if intended, run "
            f"`make golden` and commit the diff:\n{diff[:6000]}"
        )
