"""The claim check after a play remembers each side's verdict until its flag changes
(``BattleLineState.claimable``): at every decision of random games with every tactic in play
(Fog, Mud, Redeploy, Deserter, Traitor change flags after their verdicts were taken), the
remembered answer is the full proof's (``can_claim``), for every seat, in copies too."""

from __future__ import annotations

import random

import pytest

from games import registry
from games.battleline.notation import NUM_FLAGS
from games.battleline.state import BattleLineState


def _proved(state: BattleLineState, seat: int) -> list[int]:
    """The flags the full proof lets ``seat`` claim among its complete sides."""
    return [f for f in range(NUM_FLAGS) if state.full[seat] >> f & 1 and state.can_claim(seat, f)]


@pytest.mark.parametrize("variant", [{}, {"players": "3"}, {"rules": "advanced"}])
def test_remembered_claim_verdicts_match_the_full_proof(variant: dict[str, str]) -> None:
    game = registry.get("battleline")
    checked = 0
    for seed in range(40):
        state = game.new_game(seed, **variant)
        assert isinstance(state, BattleLineState)
        rng = random.Random(seed)
        while not state.is_terminal():
            for seat in range(state.num_players):
                assert state.claimable(seat) == _proved(state, seat), (seed, state.history)
                checked += 1
            if rng.random() < 0.1:
                state = state.clone()
            actions = state.legal_actions()
            # claim sometimes, not always: unclaimed won flags keep their verdicts for longer
            state.apply(actions[0] if actions[0].startswith("claim") and rng.random() < 0.5
                        else rng.choice(actions))
    assert checked > 1000
