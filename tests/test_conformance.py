"""Every registered game, in its default rules and with each non-default variant choice, passes
the shipped conformance suite (games/conformance.py)."""

from __future__ import annotations

import pytest

from games import registry
from games.conformance import check_game


def _cases() -> list[tuple[str, dict[str, str]]]:
    cases: list[tuple[str, dict[str, str]]] = []
    for name in registry.names():
        info = registry.load(name).info
        cases.append((name, {}))
        for v in info.variants:
            for choice in v.choices:
                if choice != v.default:
                    cases.append((name, {v.key: choice}))
    return cases + COMBINED


# Variant choices that combine (each choice alone is covered above).
COMBINED: list[tuple[str, dict[str, str]]] = [
    ("battleline", {"players": "3", "rules": "no-tactics"}),
    ("battleline", {"players": "3", "rules": "advanced"}),
]


@pytest.mark.parametrize(
    ("name", "variant"), _cases(), ids=lambda x: x if isinstance(x, str) else repr(x) or "default"
)
def test_conformance(name: str, variant: dict[str, str]) -> None:
    report = check_game(registry.load(name), variant, seeds=range(12))
    assert report.games == 12
    assert report.decisions > 0
    assert report.samples > 0
