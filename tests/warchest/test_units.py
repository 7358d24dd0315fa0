"""Scenario tests: each unit's ability and the rulings on it (hex names: f4 is the centre)."""

from __future__ import annotations

import pytest

from games.protocol import GameError, IllegalAction
from games.warchest import GAME, codec, explain, observe, render
from games.warchest.state import Parts, WarChestState
from games.warchest.tactics import TACTICS
from games.warchest.units import COIN_BY_NAME, COIN_NAMES, ROYAL, UNIT_BY_NAME, UNITS
from tests.warchest.builder import hx, position, unit_at


def legal_with(s: WarChestState, prefix: str) -> set[str]:
    return {a for a in s.legal_actions() if a.startswith(prefix)}


def box(s: WarChestState, seat: int, unit: str) -> int:
    return s.box[seat][UNIT_BY_NAME[unit]]


def test_the_box_holds_sixteen_unit_types_and_74_coins() -> None:
    assert len(UNITS) == 16 and sum(u.coins for u in UNITS) == 74
    assert COIN_NAMES[ROYAL] == "royal" and len(set(COIN_NAMES)) == 17
    assert len({u.code for u in UNITS}) == 16
    with_tactic = {u.name for u in UNITS if u.has_tactic}
    assert with_tactic == {"archer", "cavalry", "crossbowman", "ensign", "footman", "lancer",
                           "light-cavalry", "marshall", "royal-guard"} == set(TACTICS)


def test_the_state_refuses_tactics_that_do_not_match_the_cards() -> None:
    """The package hands the hooks to the state (state.Parts); a card with a tactic and no hooks,
    or hooks for a card without one, is refused, not found in the middle of a game."""
    parts = Parts()
    given = dict(to_json=codec.to_json, from_json=codec.from_json, observe=observe.observe,
                 why_illegal=explain.why_illegal, render=render.render,
                 new_game=lambda seed, variant: GAME.new_game(seed, **variant))
    for hooks in ({k: v for k, v in TACTICS.items() if k != "marshall"},
                  {**TACTICS, "knight": TACTICS["archer"]}):
        with pytest.raises(GameError, match="every unit with a tactic needs its hooks"):
            parts.assemble(**given, tactics=hooks)  # type: ignore[arg-type]
    parts.assemble(**given, tactics=TACTICS)  # type: ignore[arg-type]
    assert parts.perform[UNIT_BY_NAME["knight"]] is None
    assert parts.unit_tactic[UNIT_BY_NAME["footman"]] is None  # the army's, not one unit's
    assert parts.army_tactic[UNIT_BY_NAME["footman"]] is TACTICS["footman"][0]
    assert parts.royal_options == ((UNIT_BY_NAME["royal-guard"], TACTICS["royal-guard"][0]),)


# --- Archer -----------------------------------------------------------------------------------

def test_archer_hits_at_range_two_over_blockers_but_never_adjacent() -> None:
    s = position("archer@f4:0 knight@f5:0 swordsman@f6:1 cavalry@g4:1 scout@g5:1",
                 hands={0: "archer", 1: "royal"})
    tactics = legal_with(s, "archer f4 tactic")
    assert "archer f4 tactic f6" in tactics  # the friendly Knight on f5 does not block
    assert "archer f4 tactic g5" in tactics  # no straight line needed
    assert "archer f4 tactic g4" not in tactics  # adjacent: out of the tactic's reach
    assert not legal_with(s, "archer f4 attack")  # restriction: no normal attack
    s.apply("archer f4 tactic f6")
    assert unit_at(s, "f6") is None
    assert box(s, 1, "swordsman") == 1


def test_archer_needs_a_bolstered_stack_against_a_knight() -> None:
    s = position("archer@f4:0 knight@f6:1", hands={0: "archer", 1: "royal"})
    assert "archer f4 tactic f6" not in s.legal_actions()
    s = position("archer@f4:0x2 knight@f6:1", hands={0: "archer", 1: "royal"})
    assert "archer f4 tactic f6" in s.legal_actions()


def test_archer_range_attack_does_not_trigger_pikeman() -> None:
    s = position("archer@f4:0 pikeman@f6:1x2", hands={0: "archer", 1: "royal"})
    s.apply("archer f4 tactic f6")
    assert unit_at(s, "f4") == ("archer", 0, 1)
    assert unit_at(s, "f6") == ("pikeman", 1, 1)


# --- Crossbowman ------------------------------------------------------------------------------

def test_crossbowman_needs_a_straight_line_with_an_empty_middle() -> None:
    s = position("crossbowman@f4:0 swordsman@f6:1 scout@g5:1 cavalry@g4:1",
                 hands={0: "crossbowman", 1: "royal"})
    assert legal_with(s, "crossbowman f4 tactic") == {"crossbowman f4 tactic f6"}
    assert "crossbowman f4 attack g4" in s.legal_actions()  # adjacent attacks are allowed
    blocked = position("crossbowman@f4:0 swordsman@f6:1 knight@f5:0",
                       hands={0: "crossbowman", 1: "royal"})
    assert not legal_with(blocked, "crossbowman f4 tactic")
    with pytest.raises(IllegalAction):
        blocked.apply("crossbowman f4 tactic f6")


# --- Lancer -----------------------------------------------------------------------------------

def test_lancer_charges_in_a_line_and_must_end_on_a_target() -> None:
    s = position("lancer@f4:0 swordsman@f7:1 cavalry@g4:1", hands={0: "lancer", 1: "royal"})
    assert legal_with(s, "lancer f4 tactic") == {"lancer f4 tactic f6 f7"}
    assert not legal_with(s, "lancer f4 attack")  # restriction: no normal attack
    with pytest.raises(IllegalAction):
        s.apply("lancer f4 tactic f5")  # a move without a target is not a charge
    s.apply("lancer f4 tactic f6 f7")
    assert unit_at(s, "f6") == ("lancer", 0, 1)
    assert unit_at(s, "f7") is None


def test_lancer_ends_adjacent_so_pikeman_strikes_back() -> None:
    s = position("lancer@f4:0 pikeman@f6:1x2", hands={0: "lancer", 1: "royal"})
    s.apply("lancer f4 tactic f5 f6")
    assert unit_at(s, "f5") is None  # the lancer lost its only coin
    assert unit_at(s, "f6") == ("pikeman", 1, 1)
    assert box(s, 0, "lancer") == 1


# --- Cavalry ----------------------------------------------------------------------------------

def test_cavalry_must_be_able_to_attack_after_moving() -> None:
    s = position("cavalry@f4:0 swordsman@f6:1", hands={0: "cavalry", 1: "royal"})
    assert legal_with(s, "cavalry f4 tactic") == {"cavalry f4 tactic f5 f6"}
    lonely = position("cavalry@f4:0 swordsman@i4:1", hands={0: "cavalry", 1: "royal"})
    assert not legal_with(lonely, "cavalry f4 tactic")
    s.apply("cavalry f4 tactic f5 f6")
    assert unit_at(s, "f5") == ("cavalry", 0, 1)
    assert unit_at(s, "f6") is None


# --- Knight and Pikeman -----------------------------------------------------------------------

def test_knight_is_immune_to_unbolstered_attackers() -> None:
    s = position("swordsman@f4:0 knight@g4:1", hands={0: "swordsman", 1: "royal"})
    assert "swordsman f4 attack g4" not in s.legal_actions()
    s = position("swordsman@f4:0x2 knight@g4:1", hands={0: "swordsman", 1: "royal"})
    assert "swordsman f4 attack g4" in s.legal_actions()


def test_pikeman_counter_loss_hits_even_a_knight() -> None:
    s = position("knight@f4:0 pikeman@g4:1x2", hands={0: "knight", 1: "royal"})
    s.apply("knight f4 attack g4")
    assert unit_at(s, "f4") is None
    assert unit_at(s, "g4") == ("pikeman", 1, 1)
    assert box(s, 0, "knight") == 1 and box(s, 1, "pikeman") == 1


def test_attacker_killed_by_pikeman_loses_its_triggers() -> None:
    s = position("swordsman@f4:0 pikeman@g4:1x2", hands={0: "swordsman", 1: "royal"})
    s.apply("swordsman f4 attack g4")
    assert unit_at(s, "f4") is None
    assert not s.pending and s.current_player == 1
    survivor = position("swordsman@f4:0x2 pikeman@g4:1x2", hands={0: "swordsman", 1: "royal"})
    survivor.apply("swordsman f4 attack g4")
    assert unit_at(survivor, "f4") == ("swordsman", 0, 1)
    assert survivor.current_player == 0
    assert "stop" in survivor.legal_actions()
    assert "free f4 move f5" in survivor.legal_actions()


# --- Berserker --------------------------------------------------------------------------------

def test_berserker_chains_paid_from_its_stack() -> None:
    s = position("berserker@f4:0x3 knight@g4:1x2 scout@f5:1", hands={0: "berserker", 1: "royal"})
    s.apply("berserker f4 attack g4")
    assert s.current_player == 0
    # paying takes the stack from 3 to 2: still bolstered, so the Knight may be attacked again
    assert "repeat f4 attack g4" in s.legal_actions()
    s.apply("repeat f4 attack g4")
    assert unit_at(s, "f4") == ("berserker", 0, 2)
    assert unit_at(s, "g4") is None
    assert s.faceup[0][COIN_BY_NAME["berserker"]] == 2  # the coin paid + the one from the stack
    # height 2: paying would leave 1, so the scout (no Knight) may still be attacked
    assert "repeat f4 attack f5" in s.legal_actions()
    s.apply("repeat f4 attack f5")
    assert unit_at(s, "f4") == ("berserker", 0, 1)
    # its last coin is never paid: the chain is over and the turn passes
    assert not s.pending and s.current_player == 1


def test_berserker_knight_check_uses_the_height_after_paying() -> None:
    s = position("berserker@f4:0x2 knight@g4:1x2", hands={0: "berserker", 1: "royal"})
    s.apply("berserker f4 attack g4")  # height 2 when paid with a hand coin
    legal = s.legal_actions()
    assert "repeat f4 attack g4" not in legal  # would attack at height 1
    assert "repeat f4 move f5" in legal and "stop" in legal


def test_berserker_repeats_after_an_ensign_granted_move() -> None:
    s = position("ensign@f4:0 berserker@f5:0x2", hands={0: "ensign", 1: "royal"})
    s.apply("ensign f4 tactic f5 f6")
    assert unit_at(s, "f6") == ("berserker", 0, 2)
    assert s.current_player == 0 and "repeat f6 move f7" in s.legal_actions()


# --- Warrior Priest ---------------------------------------------------------------------------

def test_warrior_priest_draws_with_an_empty_bag_by_refilling() -> None:
    s = position("warrior-priest@f4:0 scout@g4:1", hands={0: "warrior-priest", 1: "royal"})
    assert sum(s.bag[0]) == 0
    s.apply("warrior-priest f4 attack g4")
    # the bag was empty: the discard (the coin just paid) was put back and drawn
    wp = COIN_BY_NAME["warrior-priest"]
    assert s.hand[0][wp] == 1 and sum(s.faceup[0]) == 0 and sum(s.bag[0]) == 0
    assert s.current_player == 0
    assert s.pending[-1] == ("use", 0, wp)
    assert all(a.startswith("warrior-priest ") for a in s.legal_actions())
    s.apply("warrior-priest f4 move g4")
    assert s.current_player == 1


def test_warrior_priest_draws_after_control() -> None:
    s = position("warrior-priest@d4:0", hands={0: "warrior-priest", 1: "royal"},
                 bags={0: "royal"})
    s.apply("warrior-priest d4 control")
    assert s.hand[0][COIN_BY_NAME["royal"]] == 1
    assert all(a.startswith("royal ") for a in s.legal_actions())


# --- Mercenary --------------------------------------------------------------------------------

def test_mercenary_gets_a_free_maneuver_when_recruited() -> None:
    s = position("mercenary@f4:0", hands={0: "royal", 1: "royal"}, supply={0: "mercenary"})
    s.apply("royal recruit mercenary")
    assert s.current_player == 0
    legal = s.legal_actions()
    assert "stop" in legal and "free f4 move f5" in legal
    s.apply("free f4 move f5")
    assert unit_at(s, "f5") == ("mercenary", 0, 1)
    assert s.current_player == 1
    off_board = position("", hands={0: "royal", 1: "royal"}, supply={0: "mercenary"})
    off_board.apply("royal recruit mercenary")
    assert off_board.current_player == 1


# --- Ensign and Marshall ----------------------------------------------------------------------

def test_ensign_moves_another_friend_within_two_never_itself() -> None:
    s = position("ensign@f4:0 knight@f6:0 scout@g4:1", hands={0: "ensign", 1: "royal"})
    tactics = legal_with(s, "ensign f4 tactic")
    assert tactics
    assert all(a.split()[3] == "f6" for a in tactics)  # not itself, not the enemy
    assert "ensign f4 tactic f6 g5" in tactics
    assert "ensign f4 tactic f6 f7" not in tactics  # f7 is 3 hexes from the Ensign


def test_marshall_grants_an_attack_never_to_itself() -> None:
    s = position("marshall@f4:0 swordsman@f6:0 scout@f7:1 cavalry@g4:1",
                 hands={0: "marshall", 1: "royal"})
    assert legal_with(s, "marshall f4 tactic") == {"marshall f4 tactic f6 f7"}
    s.apply("marshall f4 tactic f6 f7")
    assert unit_at(s, "f7") is None
    # the swordsman's own attribute follows the granted attack
    assert s.current_player == 0 and "free f6 move f7" in s.legal_actions()


def test_marshall_cannot_grant_archer_or_lancer_a_normal_attack() -> None:
    s = position("marshall@f4:0 archer@f6:0 lancer@e4:0 scout@f7:1 cavalry@d4:1",
                 hands={0: "marshall", 1: "royal"})
    assert not legal_with(s, "marshall f4 tactic")


# --- Footman ----------------------------------------------------------------------------------

def test_footman_may_have_two_units_and_either_takes_a_bolster() -> None:
    s = position("footman@e2:0", hands={0: "footman footman", 1: "royal"})
    assert "footman deploy h1" in s.legal_actions()
    s.apply("footman deploy h1")
    s.apply("royal pass")
    legal = s.legal_actions()
    assert not any(" deploy " in a for a in legal)  # two on the board: no third
    assert {"footman bolster e2", "footman bolster h1"} <= set(legal)


def test_footman_tactic_each_footman_maneuvers_in_chosen_order() -> None:
    s = position("footman@f4:0 footman@d4:0 scout@g4:1", hands={0: "footman", 1: "royal"})
    s.apply("footman tactic")
    legal = s.legal_actions()
    assert {"free d4 control", "free f4 attack g4"} <= set(legal)
    assert "stop" not in legal  # each Footman that can maneuver must
    s.apply("free d4 control")
    legal = s.legal_actions()
    assert not any(a.startswith("free d4") for a in legal)
    s.apply("free f4 attack g4")
    assert unit_at(s, "g4") is None
    assert s.current_player == 1


# --- Scout ------------------------------------------------------------------------------------

def test_scout_deploys_next_to_a_friend_one_at_a_time() -> None:
    s = position("knight@f4:0", hands={0: "scout scout", 1: "royal"})
    deploys = legal_with(s, "scout deploy")
    assert {"scout deploy f5", "scout deploy e2", "scout deploy h1"} <= deploys
    assert "scout deploy c4" not in deploys
    s.apply("scout deploy f5")
    s.apply("royal pass")
    assert not legal_with(s, "scout deploy")


# --- Swordsman --------------------------------------------------------------------------------

def test_swordsman_may_step_into_the_hex_its_target_left() -> None:
    s = position("swordsman@f4:0 scout@g4:1", hands={0: "swordsman", 1: "royal"})
    s.apply("swordsman f4 attack g4")
    assert "free f4 move g4" in s.legal_actions()
    assert not any("attack" in a for a in s.legal_actions())  # a move only
    s.apply("free f4 move g4")
    assert unit_at(s, "g4") == ("swordsman", 0, 1)


# --- Royal Guard ------------------------------------------------------------------------------

def test_royal_guard_tactic_is_paid_with_the_royal_coin() -> None:
    s = position("royal-guard@f4:0", hands={0: "royal royal-guard", 1: "royal"},
                 control={"e2": 0, "h1": 0, "d4": 0, "d7": 1, "g6": 1})
    tactics = legal_with(s, "royal f4 tactic")
    assert "royal f4 tactic d4" in tactics  # 2 hexes, onto a location A controls
    assert "royal f4 tactic f5" not in tactics  # not a location
    assert "royal f4 tactic g3" not in tactics  # a location, but not A's
    assert not legal_with(s, "royal-guard f4 tactic")
    with pytest.raises(IllegalAction):
        s.apply("royal-guard f4 tactic d4")
    s.apply("royal f4 tactic d4")
    assert unit_at(s, "d4") == ("royal-guard", 0, 1)
    assert s.faceup[0][COIN_BY_NAME["royal"]] == 1


def test_royal_guard_original_card_is_a_one_hex_move() -> None:
    s = position("royal-guard@f4:0", hands={0: "royal", 1: "royal"}, royal_guard="original",
                 control={"e2": 0, "h1": 0, "d4": 0, "d7": 1, "g6": 1})
    tactics = legal_with(s, "royal f4 tactic")
    assert "royal f4 tactic f5" in tactics and "royal f4 tactic d4" not in tactics
    assert len(tactics) == 6


def test_royal_guard_owner_may_soak_an_attack_with_a_supply_coin() -> None:
    s = position("swordsman@f4:0 royal-guard@g4:1", hands={0: "swordsman", 1: "royal"},
                 supply={1: "royal-guard"})
    s.apply("swordsman f4 attack g4")
    assert s.current_player == 1  # the defender decides, out of turn
    assert s.legal_actions() == ["guard supply", "guard unit"]
    s.apply("guard supply")
    assert unit_at(s, "g4") == ("royal-guard", 1, 1)
    assert s.supply[1][COIN_BY_NAME["royal-guard"]] == 0 and box(s, 1, "royal-guard") == 1
    assert s.current_player == 0  # back to the swordsman's optional move
    assert "free f4 move g4" not in s.legal_actions()
    s.apply("stop")
    assert s.current_player == 1


def test_royal_guard_without_supply_loses_a_unit_coin_at_once() -> None:
    s = position("swordsman@f4:0 royal-guard@g4:1", hands={0: "swordsman", 1: "royal"})
    s.apply("swordsman f4 attack g4")
    assert unit_at(s, "g4") is None
    assert "free f4 move g4" in s.legal_actions()


def test_pikeman_counter_is_not_an_attack_so_no_soak() -> None:
    s = position("royal-guard@f4:0x2 pikeman@g4:1x2", hands={0: "royal-guard", 1: "royal"},
                 supply={0: "royal-guard"})
    s.apply("royal-guard f4 attack g4")
    assert unit_at(s, "f4") == ("royal-guard", 0, 1)
    assert s.supply[0][COIN_BY_NAME["royal-guard"]] == 1
    assert hx(s, "f4") >= 0
