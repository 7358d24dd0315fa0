from __future__ import annotations

import pytest

from games import registry
from games.protocol import GameInfo, Variant, VariantError


def test_names_and_aliases_resolve() -> None:
    assert registry.names() == ["battleline", "warchest"]
    for alias in ("battleline", "Battle-Line", "battle_line", "BL"):
        game, preset = registry.resolve(alias)
        assert game.info.name == "battleline"
        assert preset == {}
    game, preset = registry.resolve("schotten-totten")
    assert game.info.name == "battleline"
    assert preset == {"rules": "schotten-totten"}
    assert registry.get("war-chest").info.name == "warchest"
    assert "schotten-totten" in registry.aliases("battleline")


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(registry.UnknownGame, match=r"known games: .*battleline"):
        registry.resolve("chess")


def test_resolve_variant_fills_defaults_and_rejects_bad_values() -> None:
    info = GameInfo("toy", "Toy", "1", (2,), 10, (Variant("size", "3", ("3", "4")),))
    assert info.resolve_variant({}) == {"size": "3"}
    assert info.resolve_variant({"size": "4"}) == {"size": "4"}
    with pytest.raises(VariantError, match="choose one of: 3, 4"):
        info.resolve_variant({"size": "5"})
    with pytest.raises(VariantError, match=r"no variant 'colour'.*known: size"):
        info.resolve_variant({"colour": "red"})
