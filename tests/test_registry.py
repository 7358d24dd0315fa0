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


def test_parse_variants_and_choose_are_the_one_resolver() -> None:
    assert registry.parse_variants([" rules = advanced ", "x=1"]) == {"rules": "advanced", "x": "1"}
    for bad in ("rules", "=advanced", "rules="):
        with pytest.raises(VariantError, match="--variant expects key=value"):
            registry.parse_variants([bad])
    game, variant = registry.choose("wc", {"players": "4"})
    assert game.info.name == "warchest" and variant["players"] == "4"
    assert registry.choose("schotten-totten", {})[1]["rules"] == "schotten-totten"
    with pytest.raises(VariantError, match="not allowed"):
        registry.choose("battleline", {"rules": "chess"})


def test_teams_are_declared_per_player_count() -> None:
    info = GameInfo("toy", "Toy", "1", (2, 4), 10, teams={4: (0, 1, 0, 1)})
    assert info.teams_of(4) == (0, 1, 0, 1) and info.teams_of(2) == (0, 1)
    with pytest.raises(ValueError, match="teams for 4 players name 3 seats"):
        GameInfo("toy", "Toy", "1", (4,), 10, teams={4: (0, 1, 0)})
    # Every game's states agree with what its GameInfo declares.
    for name in registry.names():
        game = registry.get(name)
        for players in game.info.players:
            options = {"players": str(players)} if len(game.info.players) > 1 else {}
            state = game.new_game(1, **options)
            declared = getattr(state, "teams", None)
            if declared is not None:
                assert tuple(declared) == game.info.teams_of(players)
    assert registry.get("warchest").info.teams_of(4) == (0, 1, 0, 1)
