"""The Battle Line engine's import-time tables equal what they are defined to be.

They are built one flag (or value) at a time, which is what keeps a new process's import of the
engine short (every league worker's start-up server imports it); here each is checked against
its definition, written the plain way."""

from __future__ import annotations

from games.battleline import state
from games.battleline.cards import CARD_NAMES, NUM_COLOURS, NUM_VALUES
from games.battleline.flags import NUM_FLAGS


def test_card_rows_are_each_cards_actions_onto_each_flag_mask_in_flag_order() -> None:
    for built, names in ((state._PLAY_ROWS, state._PLAY_STR),
                         (state._TRAITOR_ROWS, state._TRAITOR_STR),
                         (state._REDEPLOY_ROWS, state._REDEPLOY_STR)):
        plain = [[tuple(row[f] for f in range(NUM_FLAGS) if m >> f & 1) if row[0] else ()
                  for m in range(1 << NUM_FLAGS)] for row in names]
        assert [list(rows) for rows in built] == plain
        assert any(len(rows[(1 << NUM_FLAGS) - 1]) == NUM_FLAGS for rows in built)


def test_troops_by_name_lists_each_value_mask_in_name_order() -> None:
    plain = [[tuple(sorted((c * NUM_VALUES + v for v in range(NUM_VALUES) if m >> v & 1),
                           key=lambda card: CARD_NAMES[card] + " "))
              for m in range(1 << NUM_VALUES)] for c in range(NUM_COLOURS)]
    assert [list(row) for row in state._TROOPS_BY_NAME] == plain
    # names order 10 between 1 and 2: the order the play actions come out sorted in
    assert [CARD_NAMES[c][1:] for c in state._TROOPS_BY_NAME[0][(1 << NUM_VALUES) - 1]][:3] \
        == ["1", "10", "2"]
