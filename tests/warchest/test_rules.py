"""Rounds, coins, initiative, control, winning, set-ups, teams, notation and information."""

from __future__ import annotations

import json
import random

import pytest

from games.protocol import GameEnd, IllegalAction, InvalidAction, VariantError
from games.warchest import GAME
from games.warchest.state import MAX_DECISIONS, WarChestState
from games.warchest.units import COIN_BY_NAME, FIRST_GAME, ROYAL, UNIT_BY_NAME
from tests.warchest.builder import hx, position, unit_at

R = COIN_BY_NAME["royal"]


# --- initiative -------------------------------------------------------------------------------

def test_initiative_changes_hands_at_most_once_a_round() -> None:
    s = position("", hands={0: "royal archer", 1: "royal knight"}, turn=1, initiative=0)
    assert "royal initiative" in s.legal_actions()
    s.apply("royal initiative")
    assert s.initiative == 1 and s.facedown[1][R] == 1
    assert not any(a.endswith(" initiative") for a in s.legal_actions())  # seat 0, same round
    with pytest.raises(IllegalAction, match="already changed hands this round"):
        s.apply("archer initiative")


def test_the_holder_cannot_claim_and_the_next_round_starts_with_the_new_holder() -> None:
    s = position("", hands={0: "royal", 1: "royal"}, bags={0: "archer", 1: "knight"},
                 turn=0, initiative=0)
    assert "royal initiative" not in s.legal_actions()
    s.apply("royal pass")
    s.apply("royal initiative")
    # both hands empty: a new round, seat 1 now starts
    assert s.round == 2 and s.turn == 1 and s.current_player == 1
    assert not s.init_changed


# --- control and winning ----------------------------------------------------------------------

def test_controlling_an_enemy_location_returns_its_marker() -> None:
    s = position("swordsman@d7:0", hands={0: "swordsman", 1: "royal"})
    assert s.markers_placed(0) == 2 and s.markers_placed(1) == 2
    s.apply("swordsman d7 control")
    assert s.ctrl[hx(s, "d7")] == 0
    assert s.markers_placed(0) == 3 and s.markers_placed(1) == 1
    assert s.scores() == [3.0, 1.0]


def test_moving_onto_a_location_does_not_control_it() -> None:
    s = position("swordsman@d5:0", hands={0: "swordsman", 1: "royal"})
    s.apply("swordsman d5 move d4")
    assert s.ctrl[hx(s, "d4")] == -1


def test_win_the_instant_the_last_marker_is_placed_even_mid_chain() -> None:
    control = {"e2": 0, "h1": 0, "g3": 0, "i2": 0, "h4": 0, "d7": 1, "g6": 1}
    s = position("footman@d4:0 footman@f4:0 scout@g4:1", hands={0: "footman", 1: "royal"},
                 control=control)
    s.apply("footman tactic")
    s.apply("free d4 control")  # the sixth marker: the other footman never acts
    assert s.is_terminal() and s.current_player == -1 and s.legal_actions() == []
    assert s.returns() == [1.0, -1.0]
    end = s.end()
    assert end is not None and end[0] is GameEnd.NORMAL and "6 control markers" in end[1]
    with pytest.raises(IllegalAction, match="over"):
        s.apply("free f4 attack g4")


def test_warrior_priest_winning_control_draws_nothing() -> None:
    control = {"e2": 0, "h1": 0, "g3": 0, "i2": 0, "h4": 0, "d7": 1, "g6": 1}
    s = position("warrior-priest@d4:0", hands={0: "warrior-priest", 1: "royal"},
                 bags={0: "royal"}, control=control)
    s.apply("warrior-priest d4 control")
    assert s.winner == 0 and s.bag[0][R] == 1 and not s.pending


# --- turns, rounds, bag -----------------------------------------------------------------------

def test_a_player_with_an_empty_hand_is_skipped() -> None:
    s = position("", hands={0: "royal", 1: "royal scout scout"}, turn=1, bags={0: "knight"})
    s.apply("scout pass")
    assert s.current_player == 0
    s.apply("royal pass")
    assert s.current_player == 1
    s.apply("scout pass")
    assert s.current_player == 1  # seat 0 has nothing left
    s.apply("royal pass")
    assert s.round == 2


def test_bag_refills_from_discards_only_when_a_draw_needs_it() -> None:
    s = position("", hands={0: "royal", 1: ""}, bags={0: "archer archer", 1: "royal"},
                 faceup={0: "knight"}, cards={0: "archer knight"})
    s.apply("royal pass")  # seat 1 has no coin: round over, everyone draws
    assert s.round == 2
    hand, bag = s.hand[0], s.bag[0]
    assert hand[COIN_BY_NAME["archer"]] == 2 and sum(hand) == 3
    assert sum(bag) == 1 and sum(s.faceup[0]) == 0 and sum(s.facedown[0]) == 0
    t = position("", hands={0: "royal", 1: ""}, bags={0: "archer archer knight knight",
                                                       1: "royal"},
                 faceup={0: "knight"}, cards={0: "archer knight"})
    t.apply("royal pass")
    assert sum(t.bag[0]) == 1 and t.faceup[0][COIN_BY_NAME["knight"]] == 1
    assert t.facedown[0][R] == 1  # not needed, so not shuffled back


def test_recruit_moves_a_supply_coin_face_up_and_exhausted_types_cannot_be_recruited() -> None:
    s = position("", hands={0: "archer royal", 1: "royal"}, supply={0: "knight"},
                 cards={0: "archer knight"})
    assert "archer recruit knight" in s.legal_actions()
    assert "archer recruit archer" not in s.legal_actions()  # none left in supply
    assert "archer recruit royal" not in s.legal_actions()
    s.apply("archer recruit knight")
    assert s.faceup[0][COIN_BY_NAME["knight"]] == 1 and s.facedown[0][COIN_BY_NAME["archer"]] == 1


def test_deploy_only_on_an_empty_controlled_location_once_per_type() -> None:
    s = position("scout@e2:1", hands={0: "archer archer", 1: "royal"})
    assert {a for a in s.legal_actions() if " deploy " in a} == {"archer deploy h1"}
    s.apply("archer deploy h1")
    s.apply("royal pass")
    assert not any(" deploy " in a for a in s.legal_actions())


def test_royal_coin_cannot_deploy_bolster_or_maneuver() -> None:
    s = position("archer@f4:0", hands={0: "royal", 1: "royal"})
    for bad in ("royal deploy h1", "royal bolster f4", "royal f4 move f5"):
        with pytest.raises(IllegalAction):
            s.apply(bad)


# --- notation ---------------------------------------------------------------------------------

def test_malformed_is_invalid_well_formed_but_impossible_is_illegal() -> None:
    s = position("archer@f4:0", hands={0: "archer", 1: "royal"})
    for junk in ("", "archer", "archer f4 fly f5", "archer z9 move f5", "pick dragon",
                 "guard maybe", "free f4 tactic", "archer deploy"):
        with pytest.raises(InvalidAction):
            s.apply(junk)
    for illegal in ("knight f4 move f5", "archer f4 attack f5", "pick archer", "stop",
                    "guard unit", "archer a7 move a6", "repeat f4 move f5"):
        with pytest.raises(IllegalAction):
            s.apply(illegal)
    s.apply("  ARCHER   f4 move   f5 ")  # spacing and case are forgiven
    assert s.history == ["archer f4 move f5"]


# --- set-ups ----------------------------------------------------------------------------------

def test_random_deal_gives_distinct_cards_bags_and_supplies() -> None:
    s = GAME.new_game(3)
    assert len(s.cards[0]) == 4 and len(s.cards[1]) == 4
    assert not set(s.cards[0]) & set(s.cards[1])
    for seat in (0, 1):
        coins = [a + b for a, b in zip(s.bag[seat], s.hand[seat], strict=True)]
        assert coins[ROYAL] == 1 and sum(coins) == 9 and sum(s.hand[seat]) == 3
        for t in s.cards[seat]:
            assert coins[t] == 2
    assert s.markers_placed(0) == 2 and s.markers_placed(1) == 2


def test_first_game_armies_and_initiative() -> None:
    s = GAME.new_game(5, setup="first-game")
    assert s.cards == [sorted(FIRST_GAME[0]), sorted(FIRST_GAME[1])]
    assert s.initiative == 0 and s.current_player == 0


def test_draft_picks_go_one_two_two_two_one_and_second_drafter_starts() -> None:
    s = GAME.new_game(11, setup="draft")
    first = s.current_player
    second = 1 - first
    order = []
    rng = random.Random(0)
    while s.draft_order:
        order.append(s.current_player)
        assert all(a.startswith("pick ") for a in s.legal_actions())
        s.apply(rng.choice(s.legal_actions()))
    assert order == [first, second, second, first, first, second, second, first]
    assert len(s.cards[0]) == len(s.cards[1]) == 4
    assert s.initiative == second and s.current_player == second
    assert sum(s.hand[0]) == 3


def test_variant_combinations_are_checked() -> None:
    with pytest.raises(VariantError, match="2 players only"):
        GAME.new_game(1, players="4", setup="draft")
    with pytest.raises(VariantError, match="choose one of"):
        GAME.new_game(1, players="3")


def test_decision_cap_is_a_draw() -> None:
    s = position("", hands={0: "royal", 1: "royal"})
    s.offset = MAX_DECISIONS - 1
    assert not s.is_terminal()
    s.apply("royal pass")
    end = s.end()
    assert end is not None and end[0] is GameEnd.MOVE_CAP and "draw" in end[1]
    assert s.returns() == [0.0, 0.0] and s.current_player == -1 and s.legal_actions() == []


# --- four players -----------------------------------------------------------------------------

def test_four_player_set_up_teams_and_turn_order() -> None:
    s = GAME.new_game(8, players="4")
    assert s.board.size == 47
    cards = [t for c in s.cards for t in c]
    assert all(len(c) == 3 for c in s.cards) and len(set(cards)) == 12
    assert s.markers_placed(0) == 3 and s.markers_placed(1) == 3 and s.markers_total == 8
    seen: list[int] = []
    while len(seen) < 4:
        seen.append(s.current_player)
        s.apply(next(a for a in s.legal_actions() if a.endswith(" pass")))
    start = seen[0]
    assert seen == [(start + k) % 4 for k in range(4)]  # round the table: teams alternate


def test_teammates_are_friendly_and_keep_the_initiative_among_themselves() -> None:
    s = position("ensign@f4:0 knight@f5:2 scout@g4:1", players=4,
                 hands={0: "ensign royal", 1: "royal", 2: "royal", 3: "royal"}, initiative=2)
    assert "royal initiative" not in s.legal_actions()  # a teammate holds it
    assert "ensign f4 tactic f5 f6" in s.legal_actions()  # a teammate's unit is friendly
    assert not any(a.startswith("ensign f4 tactic g4") for a in s.legal_actions())
    s.apply("ensign f4 tactic f5 f6")
    assert unit_at(s, "f6") == ("knight", 2, 1)
    assert s.current_player == 1
    assert "royal initiative" in s.legal_actions()


def test_team_victory_pays_both_members() -> None:
    control = {"e2": 0, "h1": 0, "b5": 0, "g3": 0, "i2": 0, "h4": 0, "a7": 0,
               "d7": 1, "g6": 1, "j3": 1}
    s = position("scout@d4:2", players=4, hands={0: "royal", 1: "royal", 2: "scout", 3: "royal"},
                 control=control, turn=2)
    s.apply("scout d4 control")
    assert s.returns() == [1.0, -1.0, 1.0, -1.0]
    assert s.scores() == [8.0, 3.0, 8.0, 3.0]


# --- information ------------------------------------------------------------------------------

def test_observation_hides_other_hands_and_sampling_keeps_the_view() -> None:
    s = GAME.new_game(4)
    rng = random.Random(4)
    for _ in range(40):
        s.apply(rng.choice(s.legal_actions()))
    for seat in (0, 1):
        obs = s.observation(seat)
        text = json.dumps(obs)
        assert json.loads(text) == obs
        assert obs["hand_count"][1 - seat] == sum(s.hand[1 - seat])
        assert "rng" not in obs and "history" not in obs
        for k in range(5):
            sampled = GAME.sample_state(obs, random.Random(k))
            assert sampled.observation(seat) == obs
            sampled.apply(sampled.legal_actions()[0])


def test_public_pool_composition_counts_bag_hand_and_face_down() -> None:
    s = position("", hands={0: "archer royal", 1: "royal"}, bags={0: "archer knight"},
                 facedown={0: "knight"})
    obs = s.observation(1)
    assert obs["pool"][0] == {"archer": 2, "knight": 2, "royal": 1}
    assert obs["hand"] == {"royal": 1} and obs["facedown"] == {}
    assert obs["bag_count"][0] == 2 and obs["facedown_count"][0] == 1
    assert UNIT_BY_NAME["archer"] == COIN_BY_NAME["archer"]


def test_str_draws_the_board_with_units_and_control() -> None:
    s = position("swordsman@f4:0x2", hands={0: "swordsman", 1: "royal"})
    text = str(s)
    assert "Sw20" in text and "Ae2" in text and "*d4" in text and "seat 1 (B)" in text
    game = GAME.new_game(6)
    rng = random.Random(6)
    for _ in range(30):
        game.apply(rng.choice(game.legal_actions()))
    assert eval(repr(game), {"WarChestState": WarChestState}) == game
    sampled = GAME.sample_state(game.observation(0), rng)
    assert eval(repr(sampled), {"WarChestState": WarChestState}) == sampled


def test_every_well_formed_action_is_legal_or_illegal_with_a_reason() -> None:
    pool: set[str] = set()
    for seed in range(3):
        s = GAME.new_game(seed, players="4" if seed == 2 else "2")
        rng = random.Random(seed)
        while not s.is_terminal() and s.decisions < 300:
            pool.update(s.legal_actions())
            s.apply(rng.choice(s.legal_actions()))
    pool.update({"royal f4 move f5", "knight f4 tactic", "archer a7 move a6", "pick archer",
                 "stop", "guard unit", "free f4 control", "repeat f4 attack f5"})
    candidates = sorted(pool)
    s = GAME.new_game(7)
    rng = random.Random(7)
    while not s.is_terminal() and s.decisions < 400:
        legal = set(s.legal_actions())
        for action in rng.sample(candidates, 20):
            if action in legal:
                continue
            with pytest.raises(IllegalAction) as info:
                s.clone().apply(action)
            assert action in str(info.value)
        s.apply(rng.choice(sorted(legal)))


def test_states_differing_only_in_hidden_coins_look_the_same() -> None:
    a = position("", hands={0: "archer", 1: "royal knight"}, bags={1: "archer archer"},
                 cards={1: "archer knight"})
    b = position("", hands={0: "archer", 1: "archer archer"}, bags={1: "royal knight"},
                 cards={1: "archer knight"})
    a.rng, b.rng = 12345, 67890
    assert a.observation(0) == b.observation(0)
    assert a.observation(1) != b.observation(1)


def test_a_teammates_triggered_draw_is_decided_by_the_unit_owner() -> None:
    s = position("marshall@f4:0 warrior-priest@f6:2 scout@f7:1", players=4,
                 hands={0: "marshall", 1: "royal", 2: "royal", 3: "royal"},
                 bags={2: "knight"}, cards={2: "knight"})
    s.apply("marshall f4 tactic f6 f7")
    assert unit_at(s, "f7") is None
    assert s.current_player == 2  # out of turn: the priest's owner uses the drawn coin
    assert all(a.startswith("knight ") for a in s.legal_actions())
    obs = s.observation(0)
    assert obs["pending"] == [{"kind": "use", "seat": 2, "coin": None}]
    s.apply("knight pass")
    assert s.current_player == 1  # then the turn goes on round the table


def test_four_player_board_drawing_keeps_each_row_in_order() -> None:
    from games.warchest.render import render_board

    s = GAME.new_game(1, players="4")
    rows = render_board(s).splitlines()
    assert len(rows) == 7
    for line, r in zip(rows, range(-3, 4), strict=True):
        names = [tok.lstrip("*AB") for tok in line.split()]
        cols = [ord(n[0]) for n in names]
        assert cols == sorted(cols) and all(n[1] == str(r + 4) for n in names)
    assert rows[5].split()[0] == "a6" and rows[0].split()[-1] == "*k1"
