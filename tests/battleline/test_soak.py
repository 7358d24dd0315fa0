"""Long runs (``make test-slow``): many conformance seeds, more brute-force positions and the
greedy bot's win rate over 200 games."""

from __future__ import annotations

import pytest

from games import registry
from games.battleline.state import RULES
from games.conformance import check_game
from tests.battleline.test_formations import _check_cases
from tests.battleline.test_greedy import _match


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES)
def test_conformance_soak(rules: str) -> None:
    report = check_game(registry.get("battleline"), {"rules": rules}, seeds=range(100, 300))
    assert report.games == 200


@pytest.mark.slow
def test_claim_proof_matches_brute_force_on_30000_more_positions() -> None:
    assert _check_cases(30_000, seed=77) == 30_000


@pytest.mark.slow
def test_greedy_wins_at_least_95_percent_against_random() -> None:
    results = [_match(seed, seed % 2, "standard") for seed in range(200)]
    assert results.count(1.0) >= 190, (results.count(1.0), results.count(0.0))
