"""Every registered game, in its default rules and with each non-default variant choice, passes
the shipped conformance suite (games/conformance.py); and the suite's own rules catch the
defects they are written for."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import registry
from games.conformance import (
    ConformanceError,
    Ply,
    Report,
    attribute_names,
    check_game,
    rule_distinct_results,
    shared_mutables,
)
from games.protocol import GameInfo, State
from games.warchest import GAME as WARCHEST
from games.warchest.state import WarChestState


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


# --- the rules catch what they are for ------------------------------------------------------


class _ForgetfulClone(WarChestState):
    """A War Chest state whose hand-written clone() forgets to copy the rows of the box."""

    __slots__ = ()

    def clone(self) -> WarChestState:
        new = super().clone()
        new.box = list(self.box)  # the outer list is new, every row is still the original's
        return new


class _Wrapped:
    """A game whose new_game() hands out the states that ``make`` builds from War Chest's."""

    def __init__(self, make: Any) -> None:
        self.info: GameInfo = WARCHEST.info
        self._make = make

    def new_game(self, seed: int, **variant: str) -> State:
        return self._make(WARCHEST.new_game(seed, **variant))  # type: ignore[no-any-return]

    def state_from_json(self, data: dict[str, Any]) -> State:
        return WARCHEST.state_from_json(data)

    def sample_state(self, observation: dict[str, Any], rng: random.Random) -> State:
        return WARCHEST.sample_state(observation, rng)


def _recast(cls: type[WarChestState], state: WarChestState) -> WarChestState:
    """``state``'s slots in an instance of the subclass ``cls``."""
    out = cls(state.seed, state.variant, blank=True)
    for slot in attribute_names(state):
        setattr(out, slot, getattr(state, slot))
    return out


def _forgetful(state: WarChestState) -> WarChestState:
    return _recast(_ForgetfulClone, state)


def test_a_clone_that_forgets_to_copy_a_slot_fails_the_suite() -> None:
    broken = _Wrapped(_forgetful)
    with pytest.raises(ConformanceError, match=r"\[clone-shares\].*state\.box\[0\]"):
        check_game(broken, seeds=range(1))
    state = WARCHEST.new_game(3)
    assert shared_mutables(state, state.clone()) == []
    assert "state.box[1]" in shared_mutables(state, _forgetful(state).clone())


def test_two_strings_for_one_decision_fail_the_distinct_rule() -> None:
    class Doubled(WarChestState):
        """Offers every pass twice: as 'X pass' and, doing the same, as 'X recruit archer'."""

        __slots__ = ()

        def _legal_tuple(self) -> tuple[str, ...]:
            legal = super()._legal_tuple()
            doubles = [a.replace(" pass", " recruit archer") for a in legal if a.endswith(" pass")]
            self._legal = legal = tuple(sorted({*legal, *doubles}))
            return legal

        def _decode(self, seat: int, action: str) -> tuple[Any, str]:
            if action.endswith(" recruit archer"):  # the double does what the pass does
                op, _ = super()._decode(seat, action.replace(" recruit archer", " pass"))
                return op, "? recruit archer"
            return super()._decode(seat, action)

        def clone(self) -> WarChestState:
            return _recast(Doubled, super().clone())

    doubled = _recast(Doubled, WARCHEST.new_game(1))
    p = Ply(WARCHEST, doubled, 1, 0, random.Random(0), [], Report(), 0)
    with pytest.raises(ConformanceError, match=r"\[distinct\].* pass' .*lead to the same"):
        rule_distinct_results(p)
