"""Rules version wc-3 (issue 17): one scenario per point.

1. The Footman tactic is mandatory for each Footman that can maneuver, and is offered only when
   one can (docs/rules/warchest.md, ruling 7).
2. One action string per distinct decision: the Light Cavalry tactic moves exactly 2 hexes and
   the Footman tactic is the single string ``footman tactic`` (ruling 8, Notation).
3. A Warrior Priest attacking a Royal Guard that may soak the hit draws its coin before the
   Royal Guard's owner decides (ruling 12).
"""

from __future__ import annotations

import pytest

from games.conformance import position_of
from games.protocol import IllegalAction, InvalidAction
from games.warchest import GAME, RULES_VERSION
from games.warchest.state import WarChestState
from games.warchest.units import COIN_BY_NAME, UNIT_BY_NAME
from tests.warchest.builder import position, unit_at

WP = UNIT_BY_NAME["warrior-priest"]
RG = UNIT_BY_NAME["royal-guard"]


def legal_with(s: WarChestState, prefix: str) -> set[str]:
    return {a for a in s.legal_actions() if a.startswith(prefix)}


def test_the_rules_version_is_wc3() -> None:
    assert RULES_VERSION == "wc-3" and GAME.info.rules_version == "wc-3"


# --- 1. Footman: mandatory if able --------------------------------------------------------

def test_footman_tactic_offers_no_stop_while_a_footman_can_maneuver() -> None:
    s = position("footman@f4:0 footman@d4:0 scout@g4:1", hands={0: "footman", 1: "royal"})
    s.apply("footman tactic")
    legal = s.legal_actions()
    assert "stop" not in legal and legal == sorted(a for a in legal if a.startswith("free "))
    with pytest.raises(IllegalAction, match="must first finish its Footman tactic"):
        s.apply("stop")
    s.apply("free f4 attack g4")
    # the other Footman must maneuver too: still seat 0, still no stop
    assert s.current_player == 0 and "stop" not in s.legal_actions()
    assert all(a.startswith("free d4 ") for a in s.legal_actions())
    s.apply("free d4 control")
    assert s.current_player == 1 and not s.pending


def test_footman_tactic_is_not_offered_when_no_footman_can_maneuver() -> None:
    # h1 (a start location seat 0 controls) has the neighbours g1, g2, h2 and i1, all taken
    # by friends: the lone Footman has no move, no control and no enemy to attack
    s = position("footman@h1:0 knight@g1:0 archer@g2:0 scout@h2:0 lancer@i1:0",
                 hands={0: "footman", 1: "royal"})
    assert not legal_with(s, "footman tactic")
    assert legal_with(s, "footman") == {"footman bolster h1", "footman deploy e2",
                                        "footman pass"}
    with pytest.raises(IllegalAction, match="no footman unit of seat 0 can make a maneuver"):
        s.apply("footman tactic")


def test_footman_tactic_with_one_able_footman_moves_only_that_one() -> None:
    # the Footman on h1 is boxed in; the one on f4 can move
    s = position("footman@h1:0 footman@f4:0 knight@g1:0 archer@g2:0 scout@h2:0 lancer@i1:0",
                 hands={0: "footman", 1: "royal"})
    s.apply("footman tactic")
    assert s.legal_actions() and all(a.startswith("free f4 ") for a in s.legal_actions())
    s.apply("free f4 move f5")
    assert s.current_player == 1 and not s.pending


# --- 2. one string per decision -------------------------------------------------------------

def test_light_cavalry_tactic_moves_exactly_two_hexes() -> None:
    s = position("light-cavalry@f4:0", hands={0: "light-cavalry", 1: "royal"})
    tactic = {a.split()[-1] for a in legal_with(s, "light-cavalry f4 tactic")}
    moves = {a.split()[-1] for a in legal_with(s, "light-cavalry f4 move")}
    assert len(tactic) == 12 and len(moves) == 6 and not tactic & moves
    assert all(s.board.dist[s.board.by_name["f4"]][s.board.by_name[d]] == 2 for d in tactic)
    with pytest.raises(IllegalAction, match="exactly 2 hexes; a 1-hex move is "
                                            "'light-cavalry f4 move f5'"):
        s.apply("light-cavalry f4 tactic f5")


def test_the_footman_tactic_is_one_string_whatever_footmen_stand_on_the_board() -> None:
    s = position("footman@e2:0 footman@h1:0", hands={0: "footman", 1: "royal"})
    assert legal_with(s, "footman") >= {"footman tactic"}
    assert not any(a.endswith(" tactic") and a != "footman tactic" for a in s.legal_actions())
    with pytest.raises(IllegalAction, match="names no hex: use 'footman tactic'"):
        s.apply("footman e2 tactic")
    with pytest.raises(InvalidAction, match="names the hex of the unit that acts"):
        s.apply("archer tactic")


def test_same_result_reasons_cover_coinciding_attacks_only() -> None:
    # a Marshall's own attack and the attack it orders a Scout to make on the same target:
    # different decisions (who attacks) whose results coincide here
    s = position("marshall@f4:0 scout@f3:0 archer@g3:1x2", hands={0: "marshall", 1: "royal"})
    a, b = "marshall f4 attack g3", "marshall f4 tactic f3 g3"
    assert {a, b} <= set(s.legal_actions())
    ra, rb = s.clone(), s.clone()
    ra.apply(a)
    rb.apply(b)
    assert position_of(ra) == position_of(rb)  # equal but for the actions that led there
    assert s.same_result_reason(a, b)
    # two moves are never explained away: a 1-hex tactic next to a move would be caught
    assert s.same_result_reason("marshall f4 move f5", "marshall f4 move e5") is None


# --- 3. Warrior Priest against a soaking Royal Guard ---------------------------------------

def test_warrior_priest_draws_before_the_royal_guard_owner_decides() -> None:
    s = position("warrior-priest@f4:0 royal-guard@g4:1",
                 hands={0: "warrior-priest", 1: "royal"}, bags={0: "knight"},
                 supply={1: "royal-guard"})
    s.apply("warrior-priest f4 attack g4")
    # the Priest's coin is drawn already: seat 0's bag is empty, its hand holds the knight
    assert sum(s.bag[0]) == 0 and s.hand[0][COIN_BY_NAME["knight"]] == 1
    assert s.current_player == 1 and s.legal_actions() == ["guard supply", "guard unit"]
    seen = s.observation(1)
    assert seen["bag_count"][0] == 0 and seen["hand_count"][0] == 1
    assert [f["kind"] for f in seen["pending"]] == ["use", "guard"]
    assert seen["pending"][0]["coin"] is None  # which coin is hidden from the defender
    s.apply("guard unit")
    assert unit_at(s, "g4") is None
    # now the attacker uses the drawn coin, and nothing is drawn a second time
    assert s.current_player == 0
    assert s.legal_actions() and all(a.startswith("knight ") for a in s.legal_actions())
    s.apply("knight pass")
    assert not s.pending and s.facedown[0][COIN_BY_NAME["knight"]] == 1


def test_warrior_priest_sent_by_a_marshall_also_draws_before_the_soak_decision() -> None:
    s = position("marshall@f4:0 warrior-priest@f5:0 royal-guard@g5:1",
                 hands={0: "marshall", 1: "royal"}, bags={0: "archer"},
                 supply={1: "royal-guard"})
    s.apply("marshall f4 tactic f5 g5")
    assert s.hand[0][COIN_BY_NAME["archer"]] == 1 and [f[0] for f in s.pending] == ["use",
                                                                                    "guard"]
    s.apply("guard supply")
    assert unit_at(s, "g5") == ("royal-guard", 1, 1) and s.box[1][RG] == 1
    assert s.current_player == 0 and s.pending == [("use", 0, COIN_BY_NAME["archer"])]


def test_other_attackers_of_a_soaking_royal_guard_draw_nothing_early() -> None:
    s = position("swordsman@f4:0 royal-guard@g4:1", hands={0: "swordsman", 1: "royal"},
                 bags={0: "knight"}, supply={1: "royal-guard"})
    s.apply("swordsman f4 attack g4")
    assert sum(s.bag[0]) == 1 and [f[0] for f in s.pending] == ["guard"]
    s.apply("guard unit")
    # the Swordsman's move comes after the decision (into the hex the Royal Guard left)
    assert {"free f4 move g4", "stop"} <= set(s.legal_actions())
    assert sum(s.bag[0]) == 1
