"""Battle Line for three players (``--variant players=3``): one hand-built position per ruling of
docs/rules/battleline.md, "Three players"."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import registry
from games.battleline import GAME
from games.battleline.cards import CARD_NAMES
from games.battleline.flags import THREE_PLAYERS
from games.battleline.state import BattleLineState
from games.protocol import GameEnd, IllegalAction, VariantError
from tests.battleline.helpers import claims, phase, position


def side(state: BattleLineState, seat: int, flag: int) -> list[str]:
    return [CARD_NAMES[c] for c in state.sides[seat * 9 + flag - 1]]


def three(board: list[tuple[int, int, str]] | None = None, **kwargs: Any) -> BattleLineState:
    return position(board or [], players=3, **kwargs)


# --- set-up and variants --------------------------------------------------------------------------


def test_three_players_deal_three_hands_and_take_turns_in_seat_order() -> None:
    state = GAME.new_game(5, players="3")
    assert state.num_players == 3
    assert state.variant == {"players": "3", "rules": "standard"}
    assert [h.bit_count() for h in state.hands] == [7, 7, 7]
    assert (len(state.decks[0]), len(state.decks[1])) == (60 - 21, 10)
    movers: list[int] = []
    while len(movers) < 4:
        if state.phase == 0 and state.current_player not in movers[-1:]:
            movers.append(state.current_player)
        state.apply(state.legal_actions()[-1])
    assert movers == [0, 1, 2, 0]


def test_no_tactics_and_advanced_timing_combine_with_three_players() -> None:
    plain = GAME.new_game(1, players="3", rules="no-tactics")
    assert [h.bit_count() for h in plain.hands] == [6, 6, 6] and not plain.decks[1]
    assert GAME.new_game(1, players="3", rules="advanced").advanced


def test_two_players_stay_the_default_and_keep_their_variant() -> None:
    assert GAME.info.resolve_variant({}) == {"rules": "standard"}
    assert GAME.info.resolve_variant({"players": "2"}) == {"rules": "standard"}
    assert GAME.new_game(1).num_players == 2


@pytest.mark.parametrize("how", ["rules option", "schotten-totten alias"])
def test_schotten_totten_refuses_three_players_and_says_why(how: str) -> None:
    game, preset = registry.resolve("battleline" if how == "rules option" else "schotten-totten")
    variant = {"rules": "schotten-totten", "players": "3"} if how == "rules option" else {
        **preset, "players": "3"}
    with pytest.raises(VariantError, match=r"schotten-totten is for 2 players only.*players=3 use"):
        game.new_game(1, **variant)


def test_four_players_are_refused() -> None:
    with pytest.raises(VariantError, match="players='4' is not allowed; choose one of: 2, 3"):
        GAME.new_game(1, players="4")


# --- flags and lines ------------------------------------------------------------------------------


def test_each_flag_lies_between_two_seats_and_each_line_turns_a_corner() -> None:
    assert [THREE_PLAYERS.seats_at[f] for f in (0, 3, 6)] == [(0, 1), (1, 2), (2, 0)]
    lines = [[f + 1 for f in line] for line in THREE_PLAYERS.line]
    assert lines == [[7, 8, 9, 1, 2, 3], [1, 2, 3, 4, 5, 6], [4, 5, 6, 7, 8, 9]]


def test_a_seat_plays_only_on_its_own_line_and_is_told_why_not_elsewhere() -> None:
    state = three(hands=("r5", "", ""))
    assert [a for a in state.legal_actions() if a.startswith("play")] == [
        f"play r5 {f}" for f in (1, 2, 3, 7, 8, 9)
    ]
    with pytest.raises(IllegalAction, match="flag 5 is not on seat 0's line: it lies between "
                                            "seats 1 and 2"):
        state.apply("play r5 5")


def test_fog_mud_and_redeploy_stay_on_the_own_line() -> None:
    state = three([(0, 2, "r5")], hands=("fog mud redeploy", "", ""))
    legal = set(state.legal_actions())
    assert {"fog 2", "mud 9", "redeploy r5 8", "redeploy r5 discard"} <= legal
    assert not {"fog 4", "mud 5", "redeploy r5 6"} & legal


def test_a_claim_is_proved_against_the_seat_at_that_flag() -> None:
    # seat 2 faces seat 0 at flag 8: seat 2's wedge beats seat 0's host there, while seat 1
    # has nothing at flag 8 (and never can)
    state = three([(0, 8, "y1 o2 g4"), (2, 8, "b7 b8")], hands=("", "", "b9"), turn=2)
    state.apply("play b9 8")
    assert claims(state) == [8]
    assert state.can_claim(2, 7) and not state.can_claim(1, 7) and not state.can_claim(0, 7)
    with pytest.raises(IllegalAction, match="flag 2 is not on seat 2's line: it lies between "
                                            "seats 0 and 1"):
        state.apply("claim 2")


def test_every_legal_action_names_a_flag_of_the_movers_line() -> None:
    # the notation needs no seat: a flag number already says which two players meet there
    from games.battleline.notation import (
        CLAIM,
        DESERTER_A,
        FOG_A,
        MUD_A,
        PLAY,
        REDEPLOY_A,
        TRAITOR_A,
        parse,
    )

    on_a_flag = (PLAY, FOG_A, MUD_A, REDEPLOY_A, TRAITOR_A, CLAIM)
    checked = 0
    for seed in range(6):
        state = GAME.new_game(seed, players="3")
        rng = random.Random(seed)
        while not state.is_terminal():
            me = state.current_player
            line = THREE_PLAYERS.line_mask[me]
            for action in state.legal_actions():
                kind, card, flag = parse(action)
                if kind in on_a_flag and flag >= 0:
                    assert line >> flag & 1, (action, me)
                    checked += 1
                if kind in (DESERTER_A, TRAITOR_A):
                    assert state.owner_of(card) in THREE_PLAYERS.opponents[me], (action, me)
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 1000


def test_claims_in_three_player_games_match_brute_force() -> None:
    # each flag's proof is the two-player proof between the two seats there: checked against
    # the naive oracle of tests/battleline/bruteforce.py on positions from random games
    from games.battleline.cards import iter_bits
    from tests.battleline.bruteforce import best_completion, rank_of

    rng = random.Random(3)
    outcomes: set[tuple[bool, int]] = set()
    checked = 0
    for seed in range(25):
        state = GAME.new_game(seed, players="3", rules=rng.choice(["standard", "no-tactics"]))
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            for flag in range(9):
                for seat in range(3):
                    opp = THREE_PLAYERS.opponent[seat][flag]
                    if opp < 0:
                        assert not state.can_claim(seat, flag)
                        continue
                    n = state.capacity(flag)
                    mine = list(state.sides[seat * 9 + flag])
                    theirs = list(state.sides[opp * 9 + flag])
                    missing = n - len(theirs)
                    if state.claimed[flag] >= 0 or len(mine) != n or missing > 1:
                        continue
                    fog = state.fog[flag] >= 0
                    rank = rank_of(mine, fog)
                    if missing == 0:
                        other = rank_of(theirs, fog)
                        want = rank > other or (rank == other and max(
                            state.placed[c] for c in mine) < max(state.placed[c] for c in theirs))
                    else:
                        avail = list(iter_bits(state.available()))
                        want = best_completion(theirs, missing, avail, fog) <= rank
                    assert state.can_claim(seat, flag) == want, (seed, seat, flag + 1)
                    outcomes.add((want, missing))
                    checked += 1
    assert checked >= 200 and {(True, 0), (False, 0), (True, 1), (False, 1)} <= outcomes


# --- winning --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seat", "held", "flag", "run"),
                         [(0, (9, 1), 2, "9-1-2"), (1, (3, 4), 5, "3-4-5"),
                          (2, (6, 7), 8, "6-7-8")])
def test_a_breakthrough_may_turn_the_corner_for_each_seat(
    seat: int, held: tuple[int, int], flag: int, run: str
) -> None:
    opponent = THREE_PLAYERS.opponent[seat][flag - 1]
    state = three([(opponent, flag, "y1 o2 g4"), (seat, flag, "r8 r9")],
                  hands=tuple("r10" if s == seat else "" for s in range(3)),
                  claimed={held[0]: seat, held[1]: seat}, turn=seat)
    state.apply(f"play r10 {flag}")
    state.apply(f"claim {flag}")
    assert state.end() == (GameEnd.NORMAL, f"seat {seat} breakthrough on flags {run}")
    assert state.winner == seat
    assert state.returns()[seat] == 1.0 and state.scores()[seat] == 5.0


def test_three_flags_at_both_ends_of_a_line_are_not_adjacent() -> None:
    # seat 0's line is 7 8 9 1 2 3: it does not wrap round from 3 back to 7
    state = three([(1, 3, "y1 o2 g4"), (0, 3, "r8 r9")], hands=("r10", "", ""),
                  claimed={2: 0, 7: 0})
    state.apply("play r10 3")
    state.apply("claim 3")
    assert not state.is_terminal()


def test_four_flags_spread_over_both_rows_win_by_envelopment() -> None:
    state = three([(2, 9, "y1 o2 g4"), (0, 9, "r8 r9")], hands=("r10", "", ""),
                  claimed={7: 0, 2: 0, 3: 0})
    state.apply("play r10 9")
    state.apply("claim 9")
    assert state.end() == (GameEnd.NORMAL, "seat 0 envelopment with 4 flags (2, 3, 7, 9)")


# --- tactics --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("played", "allowed"),
                         [((1, 1, 0), False), ((1, 0, 1), False), ((1, 1, 1), True),
                          ((1, 2, 1), True), ((0, 3, 0), True)])
def test_the_tactics_limit_counts_against_each_opponent(
    played: tuple[int, int, int], allowed: bool
) -> None:
    state = three(hands=("r9 alexander", "", ""), tactics_played=played)
    assert ("play alexander 1" in state.legal_actions()) is allowed
    if not allowed:
        behind = next(s for s in (1, 2) if played[s] < played[0])
        with pytest.raises(IllegalAction, match=f"more tactics \\(1\\) than seat {behind} "
                                                "\\(0\\)"):
            state.apply("play alexander 1")


def test_traitor_takes_from_the_opponent_who_is_not_at_the_destination_flag() -> None:
    # seat 2's troop lies at flag 5 (seats 1 and 2); seat 0 takes it to flag 2 (seats 0 and 1)
    state = three([(2, 5, "b9 b8"), (1, 5, "y1")], hands=("traitor r1", "", ""))
    legal = set(state.legal_actions())
    assert {"traitor b9 2", "traitor b9 8", "traitor y1 2"} <= legal
    assert "traitor b9 5" not in legal  # flag 5 is not on seat 0's line
    state.apply("traitor b9 2")
    assert side(state, 0, 2) == ["b9"]
    assert side(state, 2, 5) == ["b8"]
    assert state.discards[0] == [CARD_NAMES.index("traitor")]


def test_deserter_takes_from_either_opponent_anywhere() -> None:
    state = three([(1, 5, "y1"), (2, 5, "b9"), (2, 8, "g2")], hands=("deserter", "", ""),
                  env=[("fog", 1, 4)])
    legal = set(state.legal_actions())
    assert {"deserter y1", "deserter b9", "deserter g2", "deserter fog"} <= legal
    state.apply("deserter fog")
    assert state.fog[3] == -1 and state.discards[1] == [CARD_NAMES.index("fog")]


# --- ends without a winner ------------------------------------------------------------------------


def test_every_flag_claimed_without_a_winner_shares_the_ranks() -> None:
    # seat 0 holds 7 9 2, seat 1 holds 1 3 5, seat 2 holds 4 6 and now claims 8: three flags
    # each, none adjacent in its line
    state = three([(0, 8, "y1 o2 g4"), (2, 8, "r8 r9")], hands=("", "", "r10"),
                  claimed={7: 0, 9: 0, 2: 0, 1: 1, 3: 1, 5: 1, 4: 2, 6: 2}, turn=2)
    state.apply("play r10 8")
    state.apply("claim 8")
    ended = state.end()
    assert ended is not None and ended[0] is GameEnd.STALEMATE
    assert "every flag is claimed" in ended[1] and "all share first place" in ended[1]
    assert state.winner == -1
    assert state.returns() == [0.0, 0.0, 0.0]
    assert state.scores() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize(("claimed", "expected"),
                         [({1: 0, 7: 0, 4: 1}, [1.0, 0.0, -1.0]),
                          ({1: 0, 4: 1, 6: 1, 9: 0}, [0.5, 0.5, -1.0]),
                          ({3: 0, 8: 0, 5: 2}, [1.0, -1.0, 0.0]),
                          ({2: 1, 3: 1}, [-0.5, 1.0, -0.5])])
def test_when_everyone_passes_players_rank_by_flags_held(
    claimed: dict[int, int], expected: list[float]
) -> None:
    state = three(claimed=claimed, troop_deck="", tactics_deck="")
    for _ in range(3):
        state.apply("pass")
    ended = state.end()
    assert ended is not None and ended[0] is GameEnd.NORMAL
    assert "every player passed" in ended[1] and "ranked by flags held" in ended[1]
    assert state.winner == -1
    assert state.returns() == expected
    assert state.scores() == [float(list(claimed.values()).count(s)) for s in range(3)]


def test_a_winner_ranks_first_and_the_others_rank_by_flags_held() -> None:
    state = three([(1, 2, "y1 o2 g4"), (0, 2, "r8 r9")], hands=("r10", "", ""),
                  claimed={9: 0, 1: 0, 4: 2})
    state.apply("play r10 2")
    state.apply("claim 2")
    assert state.returns() == [1.0, -1.0, 0.0]
    assert state.scores() == [5.0, 0.0, 1.0]


def test_two_passes_do_not_end_a_three_player_game() -> None:
    state = three(troop_deck="", tactics_deck="")
    state.apply("pass")
    state.apply("pass")
    assert not state.is_terminal() and state.current_player == 2 and phase(state) == "play"


# --- information ----------------------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_only_and_each_flag_names_its_seats() -> None:
    state = GAME.new_game(3, players="3")
    obs = state.observation(1)
    assert obs["hand"] == sorted(CARD_NAMES[c] for c in range(70) if state.hands[1] >> c & 1)
    assert obs["hand_sizes"] == [7, 7, 7]
    assert [f["seats"] for f in obs["flags"]][::3] == [[0, 1], [1, 2], [2, 0]]
    assert all(len(f["sides"]) == 3 for f in obs["flags"])
    other_cards = {CARD_NAMES[c] for s in (0, 2) for c in range(70) if state.hands[s] >> c & 1}
    assert not other_cards & set(str(obs).replace("'", " ").split())


def test_scout_knowledge_is_tracked_per_seat() -> None:
    # seat 0 scouts and puts r1 back on the troop deck; seat 1 then draws it
    state = three(hands=("scout r1 r2 r3 r4 r5 r6", "g1 g2 g3 g4 g5 g6", "b1 b2 b3 b4 b5 b6 b7"),
                  troop_deck="y1 y2 y3 y4 y5", tactics_deck="", fill=True)
    state.apply("scout")
    for _ in range(3):
        state.apply("scout-draw troops")
    state.apply("scout-return r1")
    state.apply("scout-return r2")
    tops = state.observation(2)["deck_tops"]["troops"]
    assert tops == ["?", "?"] and state.observation(2)["deck_tops_by"]["troops"] == [0, 0]
    state.apply("play g1 1")  # seat 1 plays and draws r2, the top card
    state.apply("draw troops")
    assert state.observation(0)["known_in_hands"] == [[], ["r2"], []]
    assert state.observation(1)["known_by"] == [["r2"], [], []]
    assert state.observation(1)["known_by_opponent"] == ["r2"]
    assert state.observation(2)["opponent_known"] == []
    for seat in range(3):
        obs = state.observation(seat)
        for k in range(3):
            sampled = GAME.sample_state(obs, random.Random(k))
            assert sampled.observation(seat) == obs
            assert sampled.known[0] >> CARD_NAMES.index("r2") & 1 == (seat in (0, 1))


# --- the command line --------------------------------------------------------------------------


def test_tourney_play_runs_a_three_player_game_and_draws_the_triangle() -> None:
    from typer.testing import CliRunner

    from harness.cli.app import app

    result = CliRunner().invoke(app, ["play", "bl", "--variant", "players=3", "greedy", "random",
                                      "random", "--seed", "3", "--show"])
    assert result.exit_code == 0, result.output
    assert "seat 0: greedy, seat 1: random, seat 2: random#2" in result.output
    assert "Battle Line [standard, 3 players]" in result.output
    assert "   seat 2                     seat 1" in result.output


def test_tourney_play_refuses_schotten_totten_for_three_in_one_line() -> None:
    from typer.testing import CliRunner

    from harness.cli.app import app

    result = CliRunner().invoke(app, ["play", "schotten-totten", "--variant", "players=3",
                                      "random", "random", "random"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "tourney: error: battleline rules=schotten-totten is for 2 players only (Schotten-Totten "
        "has no three-player game); with players=3 use rules=standard, no-tactics or advanced"
    ]
