"""Every tactic and every ruling of the rules page, one small position each."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.battleline import GAME
from games.battleline.cards import ALL_TACTICS, CARD_IDS, iter_bits
from games.battleline.state import MAX_DECISIONS, BattleLineState
from games.protocol import GameEnd, IllegalAction, InvalidAction
from tests.battleline.helpers import claims, ids, phase, position

FULL_LEFT = [(0, f, t) for f, t in [(1, "r1 r2 r3"), (2, "o1 o2 o3"), (3, "y1 y2 y3"),
                                      (4, "g1 g2 g3"), (5, "b1 b2 b3"), (6, "p1 p2 p3"),
                                      (7, "r4 r5 r6"), (8, "o4 o5 o6"), (9, "y4 y5 y6")]]


def side(state: BattleLineState, seat: int, flag: int) -> list[str]:
    from games.battleline.cards import CARD_NAMES
    return [CARD_NAMES[c] for c in state.sides[seat * 9 + flag - 1]]


def legal(state: BattleLineState) -> set[str]:
    return set(state.legal_actions())


# --- which actions are legal: a table ---------------------------------------------------------

LEGALITY = [
    # (case, position kwargs, actions that must be legal, actions that must not be)
    ("troops go to free slots of unclaimed flags",
     {"board": [(0, 1, "r1 r2 r3"), (0, 2, "o1")], "hands": ("g5", ""), "claimed": {3: 1}},
     ["play g5 2", "play g5 9"], ["play g5 1", "play g5 3", "pass"]),
    ("pass only when no troop can be placed: tactics-only hand",
     {"hands": ("alexander fog", "")}, ["pass", "play alexander 1", "fog 1"], []),
    ("pass only when no troop can be placed: every own slot full",
     {"board": FULL_LEFT, "hands": ("p9 scout", "")}, ["pass", "scout"], ["play p9 1"]),
    ("a troop in hand and a free slot forbid passing",
     {"hands": ("r9 alexander", "")}, ["play r9 1"], ["pass"]),
    ("tactics need mine <= theirs",
     {"hands": ("r9 alexander", ""), "tactics_played": (1, 0)}, ["play r9 1"],
     ["play alexander 1"]),
    ("tactics allowed when counts are equal",
     {"hands": ("r9 alexander", ""), "tactics_played": (2, 2)}, ["play alexander 1"], []),
    ("one leader per game",
     {"hands": ("r9 darius", ""), "leader_played": (True, False), "tactics_played": (1, 1)},
     ["play r9 1"], ["play darius 1"]),
    ("morale cards take a slot like troops",
     {"board": [(0, 1, "r1 r2 r3")], "hands": ("companion shield", "")},
     ["play companion 2", "play shield 9"], ["play companion 1", "play shield 1"]),
    ("fog and mud go beside any unclaimed flag, full or not",
     {"board": [(0, 1, "r1 r2 r3"), (1, 1, "b1 b2 b3")], "hands": ("fog mud", ""),
      "claimed": {2: 0}},
     ["fog 1", "mud 1", "fog 9"], ["fog 2", "mud 2"]),
    ("scout needs a card to draw",
     {"hands": ("scout r1", ""), "troop_deck": "", "tactics_deck": ""}, ["play r1 1"],
     ["scout"]),
    ("redeploy: own troop or morale card, to another unclaimed flag or the discard",
     {"board": [(0, 1, "r1 alexander"), (0, 2, "o1 o2 o3"), (0, 3, "g1")],
      "env": [("fog", 0, 1)], "hands": ("redeploy", ""), "claimed": {3: 0},
      "tactics_played": (2, 2)},
     ["redeploy r1 4", "redeploy r1 discard", "redeploy alexander 9"],
     ["redeploy r1 1", "redeploy r1 2", "redeploy g1 4", "redeploy fog discard",
      "redeploy r1 3"]),
    ("deserter: any opponent card at an unclaimed flag, environment included",
     {"board": [(1, 1, "r1 alexander"), (1, 2, "o1"), (0, 4, "g1")],
      "env": [("mud", 1, 5), ("fog", 0, 6)], "hands": ("deserter", ""), "claimed": {2: 1}},
     ["deserter r1", "deserter alexander", "deserter mud"],
     ["deserter o1", "deserter g1", "deserter fog"]),
    ("traitor: an opponent troop (never a tactic) into a free own slot, same flag included",
     {"board": [(1, 1, "r1 alexander"), (0, 1, "b5"), (0, 2, "o1 o2 o3")],
      "hands": ("traitor", "")},
     ["traitor r1 1", "traitor r1 3"], ["traitor alexander 1", "traitor r1 2", "traitor b5 1"]),
    ("traitor may fill the fourth slot under mud",
     {"board": [(1, 1, "r1"), (0, 2, "o1 o2 o3")], "env": [("mud", 1, 2)],
      "hands": ("traitor", "")},
     ["traitor r1 2"], []),
    ("nothing is added at a claimed flag",
     {"board": [(1, 1, "r1 r2 r3")], "hands": ("r9 traitor", ""), "claimed": {1: 1}},
     ["play r9 2"], ["play r9 1", "traitor r1 2"]),
]


@pytest.mark.parametrize(("case", "kwargs", "yes", "no"), LEGALITY, ids=[c[0] for c in LEGALITY])
def test_legality(case: str, kwargs: dict[str, Any], yes: list[str], no: list[str]) -> None:
    state = position(**kwargs)
    acts = legal(state)
    for a in yes:
        assert a in acts, f"{case}: {a!r} should be legal; legal: {sorted(acts)}\n{state}"
    for a in no:
        assert a not in acts, f"{case}: {a!r} should not be legal\n{state}"
        with pytest.raises(IllegalAction, match="not legal now"):
            state.clone().apply(a)


# --- turn structure ----------------------------------------------------------------------------


def test_play_then_draw_choice_then_opponent() -> None:
    s = position(hands=("r1 r2", "b1"), troop_deck="y1 y2", tactics_deck="scout")
    s.apply("play r1 1")
    assert phase(s) == "draw" and s.legal_actions() == ["draw tactics", "draw troops"]
    s.apply("draw tactics")
    assert s.turn == 1 and phase(s) == "play"
    assert s.hands[0] == (1 << CARD_IDS["r2"]) | (1 << CARD_IDS["scout"])


def test_draw_is_automatic_when_only_one_deck_has_cards() -> None:
    s = position(hands=("r1 r2", "b1"), troop_deck="y1 y2", tactics_deck="")
    s.apply("play r1 1")
    assert s.turn == 1 and s.hands[0] >> CARD_IDS["y2"] & 1


def test_no_draw_after_pass_and_no_draw_when_decks_are_empty() -> None:
    s = position(hands=("alexander", "b1 b2"), troop_deck="y1", tactics_deck="fog")
    s.apply("pass")
    assert s.turn == 1 and s.hands[0] == 1 << CARD_IDS["alexander"]
    s = position(hands=("r1 r2", "b1"), troop_deck="", tactics_deck="")
    s.apply("play r1 1")
    assert s.turn == 1 and s.hands[0] == 1 << CARD_IDS["r2"]


def test_standard_timing_offers_claims_after_playing_and_done_stops() -> None:
    s = position([(0, 3, "r3 r4"), (1, 3, "y8 r8 g8"), (0, 5, "p8 p9 p10")],
                 hands=("r5 p1", "o1"))
    assert phase(s) == "play"
    s.apply("play r5 3")
    assert phase(s) == "claim" and claims(s) == [3, 5]
    assert s.legal_actions() == ["claim 3", "claim 5", "done"]
    s.apply("claim 5")
    assert phase(s) == "claim" and s.legal_actions() == ["claim 3", "done"]
    s.apply("done")
    assert s.claimed[2] == -1 and s.claimed[4] == 0
    assert phase(s) == "draw" or s.turn == 1


def test_claims_are_offered_after_a_pass_too() -> None:
    s = position([(0, 1, "r1 r2 r3"), (0, 2, "o1 o2 o3"), (0, 3, "y1 y2 y3"), (0, 4, "g1 g2 g3"),
                  (0, 5, "b1 b2 b3"), (0, 6, "p1 p2 p3"), (0, 7, "r4 r5 r6"),
                  (0, 8, "o4 o5 o6"), (0, 9, "y7 y8 y9"), (1, 9, "b1")], hands=("", "g9"))
    s.apply("pass")
    assert phase(s) == "claim" and 9 in claims(s)


def test_advanced_timing_claims_only_at_the_start_of_the_turn() -> None:
    s = position([(0, 3, "r3 r4"), (1, 3, "y8 r8 g8")], hands=("r5 p1", "o1 o2"),
                 rules="advanced")
    s.apply("play r5 3")
    s.apply("draw troops")
    assert s.turn == 1 and phase(s) == "play"  # no claim right after playing
    s.apply("play o1 1")
    s.apply("draw troops")
    assert s.turn == 0 and phase(s) == "claim" and claims(s) == [3]
    s.apply("claim 3")
    assert phase(s) == "play" and s.claimed[2] == 0


def test_breakthrough_ends_the_game_at_once() -> None:
    s = position([(0, 3, "r3 r4"), (1, 3, "y8 r8 g8"), (0, 5, "b8 b9 b10"), (0, 4, "o8 o9 o10")],
                 hands=("r5", ""), claimed={})
    s.apply("play r5 3")
    s.apply("claim 3")
    s.apply("claim 4")
    assert not s.is_terminal()
    s.apply("claim 5")
    assert s.is_terminal() and s.current_player == -1 and s.legal_actions() == []
    assert s.end() == (GameEnd.NORMAL, "seat 0 breakthrough on flags 3-4-5")
    assert s.returns() == [1.0, -1.0] and s.scores() == [5.0, 0.0]


def test_envelopment_and_series_points_for_the_loser() -> None:
    s = position([(0, 9, "y8 y9 y10")], hands=("r1", ""), claimed={1: 0, 3: 0, 5: 0, 7: 0, 2: 1})
    s.apply("play r1 8")
    s.apply("claim 9")
    assert s.end() == (GameEnd.NORMAL, "seat 0 envelopment with 5 flags (1, 3, 5, 7, 9)")
    assert s.scores() == [5.0, 1.0]


def test_stalemate_when_both_players_pass_in_a_row() -> None:
    s = position(hands=("alexander", "darius"), troop_deck="", tactics_deck="",
                 tactics_played=(1, 1), leader_played=(True, True))
    s.apply("pass")
    assert not s.is_terminal()
    s.apply("pass")
    ended = s.end()
    assert ended is not None and ended[0] is GameEnd.STALEMATE
    assert s.returns() == [0.0, 0.0] and s.scores() == [0.0, 0.0]


def test_a_claim_between_passes_prevents_the_stalemate() -> None:
    s = position([(1, 1, "r8 r9 r10")], hands=("", ""), troop_deck="", tactics_deck="")
    s.apply("pass")
    s.apply("pass")  # seat 1 passes, then may claim flag 1
    assert phase(s) == "claim"
    s.apply("claim 1")
    assert not s.is_terminal() and s.turn == 0


def test_decision_cap_is_a_draw_by_adjudication() -> None:
    s = position(hands=("r1 r2", "b1 b2"))
    s.ply = MAX_DECISIONS - 1
    s.apply("play r1 1")
    ended = s.end()
    assert ended is not None and ended[0] is GameEnd.MOVE_CAP
    assert s.returns() == [0.0, 0.0]


# --- tactics -------------------------------------------------------------------------------


def test_leader_stays_unplayable_after_deserter_discards_the_first() -> None:
    s = position([(0, 1, "alexander")], hands=("darius r1", "deserter b1"),
                 tactics_played=(1, 0), turn=1)
    s.apply("deserter alexander")
    s.apply("draw troops")
    assert "alexander" in [n for n in s.observation(0)["discards"][0]]
    assert "play darius 2" not in legal(s) and s.leader_played[0]


def test_tactics_count_forever_even_when_discarded() -> None:
    s = position([(1, 1, "companion")], hands=("deserter", "fog"), tactics_played=(0, 1))
    s.apply("deserter companion")
    assert s.tactics_played == [1, 1]


def test_fog_compares_sums_only() -> None:
    s = position([(0, 4, "r1 r2 r3"), (1, 4, "b9 g9 y1")], hands=("fog", "o1"),
                 tactics_played=(0, 0))
    assert s.can_claim(0, 3)
    s.apply("fog 4")
    assert s.fog[3] == 0 and not s.can_claim(0, 3) and s.can_claim(1, 3)


def test_mud_reopens_complete_sides_and_adds_a_slot() -> None:
    s = position([(0, 6, "r1 r2 r3"), (1, 6, "b9 g9 y1")], hands=("r9", "mud o4"))
    s.turn = 1
    s.start_turn()
    s.apply("mud 6")
    assert s.capacity(5) == 4 and not s.can_claim(0, 5) and not s.can_claim(1, 5)
    s.apply("draw troops")
    assert "play r9 6" in legal(s)


def test_mud_leaving_discards_the_last_card_of_four_card_sides() -> None:
    s = position([(0, 6, "r1 r2"), (1, 6, "b9"), (0, 6, "r3"), (1, 6, "g9 y1"), (0, 6, "r4"),
                  (1, 6, "o2")], env=[("mud", 1, 6)], hands=("deserter", ""),
                 tactics_played=(0, 1))
    s.apply("deserter mud")
    assert side(s, 0, 6) == ["r1", "r2", "r3"] and side(s, 1, 6) == ["b9", "g9", "y1"]
    obs = s.observation(0)
    assert obs["discards"][0] == ["deserter", "r4"]
    assert obs["discards"][1] == ["mud", "o2"]
    assert s.capacity(5) == 3


def test_scout_sequence_information_and_no_draw() -> None:
    s = position(hands=("scout r1 r2 g5 g6 g7 g8", "b1 b2"), troop_deck="y1 y2 y3",
                 tactics_deck="fog mud")
    s.apply("scout")
    assert phase(s) == "scout-draw"
    assert s.legal_actions() == ["scout-draw tactics", "scout-draw troops"]
    s.apply("scout-draw troops")  # y3
    s.apply("scout-draw tactics")  # mud
    s.apply("scout-draw troops")  # y2
    assert phase(s) == "scout-return" and s.scout_returns == 2
    assert s.legal_actions() == sorted(
        f"scout-return {n}" for n in ["mud", "r1", "r2", "y2", "y3", "g5", "g6", "g7", "g8"]
    )
    s.apply("scout-return r1")
    s.apply("scout-return mud")
    assert s.turn == 1 and phase(s) == "play"  # no draw after Scout
    assert bin(s.hands[0]).count("1") == 7  # 6 + 3 drawn - 2 returned, and no draw
    me, them = s.observation(0), s.observation(1)
    assert me["deck_tops"] == {"troops": ["r1"], "tactics": ["mud"]}
    assert them["deck_tops"] == {"troops": ["?"], "tactics": ["?"]}
    assert them["decks"] == {"troops": 2, "tactics": 2}
    # the opponent draws the returned troop: the Scout player now knows it is in that hand
    s.apply("play b1 1")
    s.apply("draw troops")
    assert s.observation(0)["opponent_known"] == ["r1"]
    assert s.observation(0)["deck_tops"]["troops"] == []
    # once played, it is no longer "known in hand"
    s.apply("play r2 2")
    s.apply("draw tactics")
    s.apply("play r1 3")
    assert s.observation(0)["opponent_known"] == []


def test_scout_returns_max_zero_hand_minus_size() -> None:
    hand = "scout r1 r2 r3 r4 r5 r6"
    s = position(hands=(hand, ""), troop_deck="y1", tactics_deck="")
    s.apply("scout")  # only one card can be drawn, automatically: hand 7, nothing to return
    assert s.turn == 1 and phase(s) == "play"


def test_redeploy_moves_or_discards_and_restamps_the_card() -> None:
    s = position([(0, 1, "r8 r9 r10"), (1, 2, "b3 b4 b5"), (0, 2, "o3 o4")],
                 hands=("redeploy", ""))
    assert s.can_claim(0, 0) and not s.can_claim(0, 1)
    before = s.ply
    s.apply("redeploy r10 2")
    assert side(s, 0, 1) == ["r8", "r9"] and side(s, 0, 2) == ["o3", "o4", "r10"]
    assert s.placed[CARD_IDS["r10"]] == before  # it arrived now: the side completed now
    s2 = position([(0, 1, "r3 r4 r5")], hands=("redeploy", ""))
    s2.apply("redeploy r4 discard")
    assert side(s2, 0, 1) == ["r3", "r5"]
    assert s2.observation(1)["discards"][0] == ["redeploy", "r4"]


def test_traitor_arrival_counts_as_the_later_placement() -> None:
    # seat 1 completed b3 b4 b5 before seat 0; Traitor brings r5 in last: seat 0 now loses ties
    s = position([(0, 1, "r3 r4"), (1, 1, "b3 b4 b5"), (1, 7, "r5")], hands=("traitor", ""))
    s.apply("traitor r5 1")
    assert side(s, 0, 1) == ["r3", "r4", "r5"] and side(s, 1, 7) == []
    assert not s.can_claim(0, 0) and s.can_claim(1, 0)
    assert s.observation(1)["discards"][0] == ["traitor"]


def test_a_claimed_flag_is_closed_to_tactics() -> None:
    s = position([(1, 1, "r1 r2 r3"), (1, 2, "o1")], env=[("fog", 1, 1)],
                 hands=("deserter", ""), claimed={1: 1}, tactics_played=(0, 1))
    acts = legal(s)
    assert "deserter o1" in acts
    assert "deserter r1" not in acts and "deserter fog" not in acts


def test_schotten_totten_deck_hand_and_timing() -> None:
    s = GAME.new_game(3, rules="schotten-totten")
    assert s.hand_size == 6 and bin(s.hands[0]).count("1") == 6
    assert len(s.decks[0]) == 54 - 12 and s.decks[1] == []
    assert all(c % 10 != 9 for c in s.decks[0])  # no 10s
    assert s.advanced and not s.tactics_on
    with pytest.raises(IllegalAction, match="not used in the schotten-totten rules"):
        s.apply("play r10 1")


def test_no_tactics_variant() -> None:
    s = GAME.new_game(3, rules="no-tactics")
    assert bin(s.hands[0]).count("1") == 6 and s.decks[1] == [] and len(s.decks[0]) == 48


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("junk", ["", "play", "play r11 3", "play r7 0", "claim 10", "fly",
                                  "play fog 3", "redeploy scout 2", "draw cards"])
def test_malformed_actions_are_invalid(junk: str) -> None:
    s = GAME.new_game(1)
    with pytest.raises(InvalidAction, match="malformed Battle Line action"):
        s.apply(junk)


def test_illegal_actions_name_the_reason() -> None:
    s = position(hands=("r1", "b1"), tactics_played=(1, 0))
    with pytest.raises(IllegalAction, match="does not hold r2"):
        s.apply("play r2 1")
    with pytest.raises(IllegalAction, match="in the play phase"):
        s.apply("draw troops")
    with pytest.raises(IllegalAction, match="claim proof for flag 1 does not succeed"):
        s._claims = []
        s.phase = 1
        s._legal = None
        s.apply("claim 1")


def test_case_and_spacing_are_forgiven_but_history_is_canonical() -> None:
    s = position(hands=("r1", "b1"), troop_deck="y1", tactics_deck="")
    s.apply("  PLAY   r1  1 ")
    assert s.history == ["play r1 1"]


def _check_invariants(s: BattleLineState) -> None:
    """Every card is in exactly one place, and the derived masks agree with the board."""
    places: list[int] = []
    for hand in s.hands:
        places += list(iter_bits(hand))
    for deck in s.decks:
        places += deck
    for cards in s.sides:
        places += cards
    for pile in s.discards:
        places += pile
    places += [CARD_IDS["fog"]] * sum(1 for o in s.fog if o >= 0)
    places += [CARD_IDS["mud"]] * sum(1 for o in s.mud if o >= 0)
    everything = s.troop_all | (ALL_TACTICS if s.tactics_on else 0)
    assert sorted(places) == list(iter_bits(everything)), "a card is lost or duplicated"
    face_up = {c for side in s.sides for c in side} | {c for p in s.discards for c in p}
    assert s.gone == sum(1 << c for c in face_up if c < 60)
    for d in (0, 1):
        assert [c for c, _ in s.tops[d]] == s.decks[d][len(s.decks[d]) - len(s.tops[d]):]
    twin = s.clone()
    twin.refresh_all()
    assert (twin.free, twin.full) == (s.free, s.full)
    for side in range(18):
        assert len(s.sides[side]) <= s.capacity(side % 9)
        for c in s.sides[side]:
            assert s.where[c] == side and s.placed[c] >= 0
    if s.phase == 0:  # play: hands are never above their size outside a Scout
        assert all(h.bit_count() <= s.hand_size for h in s.hands)
    legal = s.legal_actions()
    assert legal == sorted(set(legal)), "legal actions must come sorted and unique"


def test_random_games_keep_every_card_and_never_offer_an_action_that_fails() -> None:
    rng = random.Random(5)
    for seed in range(80):
        s = GAME.new_game(seed, rules=rng.choice(["standard", "advanced", "no-tactics"]))
        while not s.is_terminal():
            s.apply(rng.choice(s.legal_actions()))
            _check_invariants(s)
        assert s.end() is not None


def test_ids_helper() -> None:
    assert ids("r1 alexander") == [0, 60]
