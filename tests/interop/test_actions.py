"""The fixed action spaces: every legal action of many random games of every variant has one
index, the index gives it back, and the spaces' order is the one documented."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.battleline.notation import PARSE
from games.interop.actions import action_space, space_key
from games.warchest.notation import canonical
from tests.interop import IDS, VARIANTS, random_states


@pytest.mark.parametrize(("game", "variant"), VARIANTS, ids=IDS)
def test_every_legal_action_of_random_games_has_one_index_and_back(
        game: str, variant: dict[str, str]) -> None:
    space = action_space(game, variant)
    seen: set[str] = set()
    games = 40 if game == "battleline" else 12
    for state in random_states(game, variant, range(games)):
        legal = state.legal_actions()
        indices = space.indices(legal)
        assert len(set(indices)) == len(legal)  # unique
        assert [space.action(i) for i in indices] == legal  # and back
        assert all(0 <= i < space.size for i in indices)
        mask = space.mask(legal)
        assert mask.sum() == len(legal) and all(mask[i] == 1 for i in indices)
        seen.update(legal)
    assert len(seen) > 40  # the games visited many different actions


@given(seed=st.integers(0, 2**31 - 1), which=st.integers(0, len(VARIANTS) - 1))
@settings(max_examples=30, deadline=None)
def test_random_games_from_any_seed_stay_inside_the_space(seed: int, which: int) -> None:
    game, variant = VARIANTS[which]
    space = action_space(game, variant)
    for n, state in enumerate(random_states(game, variant, range(seed, seed + 1))):
        for action in state.legal_actions():
            assert space.action(space.index(action)) == action
        if n > 300:
            break


def test_every_string_of_a_space_is_well_formed_and_unique() -> None:
    for game, variant in VARIANTS:
        space = action_space(game, variant)
        assert len(set(space.actions)) == space.size
        for action in space.actions:
            if game == "battleline":
                assert action in PARSE
            else:
                assert canonical(action) == action


def test_battle_line_with_tactics_covers_its_whole_notation() -> None:
    """Every well-formed Battle Line string that a rule can make legal is in the space: the
    notation's whole table, in the order of docs/research.md."""
    space = action_space("battleline", {"rules": "standard"})
    missing = set(PARSE) - set(space.actions)
    assert not missing, sorted(missing)[:5]


def test_the_spaces_are_stable() -> None:
    """The documented sizes and a few fixed indices (docs/research.md): a change of order is a
    change of games.interop.actions.SPACE_VERSION and of this test."""
    sizes = {(g, space_key(g, v)): action_space(g, v).size for g, v in VARIANTS}
    assert sizes == {("battleline", "tactics"): 2000, ("battleline", "troops"): 552,
                     ("battleline", "schotten-totten"): 498, ("warchest", "2p"): 20592,
                     ("warchest", "4p"): 26708}
    bl = action_space("battleline", {"rules": "standard"})
    assert [bl.action(i) for i in (0, 9, 539, 540, 576, 585, 587, 588)] == [
        "play r1 1", "play r2 1", "play p10 9", "play alexander 1", "claim 1", "done",
        "pass", "draw tactics"]
    wc = action_space("warchest", {"players": "2"})
    assert [wc.action(i) for i in (0, 3, 4, 20, 21, 22)] == [
        "stop", "footman tactic", "pick archer", "archer initiative", "archer pass",
        "archer recruit archer"]


def test_an_unknown_action_is_named() -> None:
    space = action_space("battleline", {"rules": "no-tactics"})
    with pytest.raises(KeyError, match="'fog 3' is not in the action space battleline/troops"):
        space.index("fog 3")
