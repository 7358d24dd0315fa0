"""An independent audit of the engine against the rules spec: one row per rule or ruling that
the other test files did not pin on its own, each played out through ``apply`` from a small
position and checked against what the rules page says must happen."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from games.battleline import GAME
from games.battleline.cards import (
    ALL_TACTICS,
    ALL_TROOPS,
    CARD_IDS,
    CARD_NAMES,
    NUM_TROOPS,
    iter_bits,
)
from games.battleline.state import BattleLineState
from games.protocol import GameEnd
from tests.battleline.helpers import claims, ids, phase, position

Check = Callable[[BattleLineState], bool]


def side(state: BattleLineState, seat: int, flag: int) -> list[str]:
    """The card names on ``seat``'s side of ``flag`` (1..9), in arrival order."""
    return [CARD_NAMES[c] for c in state.sides[seat * 9 + flag - 1]]


def hand(state: BattleLineState, seat: int) -> set[str]:
    """The card names in a seat's hand."""
    return {CARD_NAMES[c] for c in iter_bits(state.hands[seat])}


def ended(kind: GameEnd) -> Check:
    """The game is over with this kind of end."""
    return lambda s: s.end() is not None and s.end()[0] is kind  # type: ignore[index]


def running(s: BattleLineState) -> bool:
    """The game goes on."""
    return not s.is_terminal()


def _all_troops_but(kept: str) -> str:
    """Every troop name except those listed (to discard the rest of the troops)."""
    keep = set(kept.split())
    return " ".join(CARD_NAMES[c] for c in range(NUM_TROOPS) if CARD_NAMES[c] not in keep)


# (case, position kwargs, actions applied in order, checks that must all hold afterwards)
SCENARIOS: list[tuple[str, dict[str, Any], list[str], list[Check]]] = [
    # --- tactics count: every tactic, guile included, counts for its player -----------------
    ("a guile card counts: after Deserter the player may not play another tactic until the "
     "opponent does",
     {"board": [(1, 2, "o5")], "hands": ("deserter fog r1", "b1 b2"),
      "troop_deck": "y1 y2 y3", "tactics_deck": ""},
     ["deserter o5", "play b1 1"],
     [lambda s: s.tactics_played == [1, 0], lambda s: "fog 3" not in s.legal_actions(),
      lambda s: "play r1 3" in s.legal_actions()]),
    ("Scout counts as a tactic played",
     {"hands": ("scout fog r1 r2 r3 r4 r5", "b1"), "troop_deck": "y1 y2 y3 y4 y5",
      "tactics_deck": "mud"},
     ["scout", "scout-draw troops", "scout-draw troops", "scout-draw troops",
      "scout-return y3", "scout-return y4", "play b1 1", "draw troops"],
     [lambda s: s.tactics_played == [1, 0], lambda s: s.turn == 0,
      lambda s: not any(a.startswith("fog") for a in s.legal_actions())]),
    # --- passing -------------------------------------------------------------------------------
    ("a hand of tactics that may not be played (mine > theirs) can pass",
     {"hands": ("fog alexander", "b1"), "tactics_played": (1, 0)}, [],
     [lambda s: s.legal_actions() == ["pass"]]),
    ("an empty hand can pass", {"hands": ("", "b1"), "troop_deck": "", "tactics_deck": ""}, [],
     [lambda s: s.legal_actions() == ["pass"]]),
    ("a morale card alone in hand does not forbid passing (it is a tactic, not a troop)",
     {"hands": ("companion", "b1")}, [],
     [lambda s: "pass" in s.legal_actions() and "play companion 1" in s.legal_actions()]),
    # --- leaders -------------------------------------------------------------------------------
    ("one leader per game also after Redeploy discarded the first",
     {"board": [(0, 1, "alexander")], "hands": ("redeploy darius r1", "b1 b2"),
      "tactics_played": (1, 1), "troop_deck": "y1 y2 y3", "tactics_deck": ""},
     ["redeploy alexander discard", "play b1 2"],
     [lambda s: s.leader_played[0], lambda s: s.tactics_played == [2, 1],
      lambda s: not any("darius" in a for a in s.legal_actions())]),
    # --- Scout at the end of the decks ---------------------------------------------------------
    ("Scout with one card in each deck: one choice, then the other deck by itself; return 1",
     {"hands": ("scout r1 r2 r3 r4 r5 r6", ""), "troop_deck": "y1", "tactics_deck": "fog"},
     ["scout", "scout-draw tactics"],
     [lambda s: phase(s) == "scout-return" and s.scout_returns == 1,
      lambda s: {"y1", "fog"} <= hand(s, 0)]),
    ("Scout with only the tactics deck: three automatic draws, two returns, no draw after",
     {"hands": ("scout r1 r2 r3 r4 r5 r6", "b1"), "troop_deck": "",
      "tactics_deck": "fog mud traitor deserter"},
     ["scout", "scout-return r1", "scout-return mud"],
     [lambda s: s.turn == 1 and phase(s) == "play", lambda s: s.decks[0] == ids("r1"),
      lambda s: s.decks[1] == ids("fog mud") and hand(s, 0) >= {"traitor", "deserter"},
      lambda s: s.hands[0].bit_count() == 7]),
    ("Scout from a short hand returns nothing and skips the regular draw",
     {"hands": ("scout r1 r2 r3", "b1"), "troop_deck": "y1 y2 y3 y4", "tactics_deck": ""},
     ["scout"],
     [lambda s: s.turn == 1 and phase(s) == "play",
      lambda s: hand(s, 0) == {"r1", "r2", "r3", "y4", "y3", "y2"},
      lambda s: s.decks[0] == ids("y1")]),
    # --- draws ---------------------------------------------------------------------------------
    ("with the troop deck empty the draw takes a tactic by itself",
     {"hands": ("r1 r2", "b1"), "troop_deck": "", "tactics_deck": "fog mud"},
     ["play r1 1"], [lambda s: s.turn == 1 and hand(s, 0) == {"r2", "mud"}]),
    ("a player below hand size after a tactic draws",
     {"board": [(1, 2, "o5")], "hands": ("deserter r1 r2 r3 r4 r5 r6", "b1"),
      "troop_deck": "y1 y2", "tactics_deck": "fog"},
     ["deserter o5"], [lambda s: phase(s) == "draw"]),
    # --- Mud leaving, with Fog, with Traitor, and the claims after it --------------------------
    ("Mud leaves: the Traitor-brought card arrived last and is the one discarded",
     {"board": [(0, 6, "r1 r3 r4"), (1, 2, "b5")], "env": [("mud", 0, 6)],
      "hands": ("traitor", "deserter"), "tactics_played": (1, 1),
      "troop_deck": "y1 y2 y3", "tactics_deck": ""},
     ["traitor b5 6", "deserter mud"],
     [lambda s: side(s, 0, 6) == ["r1", "r3", "r4"],
      lambda s: [CARD_NAMES[c] for c in s.discards[0]] == ["traitor", "mud", "b5"],
      lambda s: [CARD_NAMES[c] for c in s.discards[1]] == ["deserter"]]),
    ("Mud leaves and the Deserter player may claim at once (standard timing)",
     {"board": [(0, 6, "r8 r9 r10"), (1, 6, "b1 b2 b3 b5")], "env": [("mud", 1, 6)],
      "hands": ("deserter", ""), "tactics_played": (0, 1)},
     ["deserter mud"],
     [lambda s: side(s, 1, 6) == ["b1", "b2", "b3"], lambda s: phase(s) == "claim",
      lambda s: claims(s) == [6]]),
    ("Fog stays when Mud leaves: four-card sides trimmed, then sums only",
     {"board": [(0, 6, "r1 r2 r3 r9"), (1, 6, "b8 b9 b10 g1")],
      "env": [("mud", 1, 6), ("fog", 1, 6)], "hands": ("deserter", ""),
      "tactics_played": (0, 2)},
     ["deserter mud"],
     [lambda s: s.fog[5] == 1 and s.mud[5] == -1, lambda s: side(s, 0, 6) == ["r1", "r2", "r3"],
      lambda s: side(s, 1, 6) == ["b8", "b9", "b10"], lambda s: s.can_claim(1, 5),
      lambda s: not s.can_claim(0, 5)]),
    ("Fog and Mud together: an incomplete four-card side is judged by its best possible sum",
     {"board": [(0, 6, "r7 r8 r9 r10"), (1, 6, "alexander b10 g10")],
      "env": [("mud", 1, 6), ("fog", 0, 6)], "hands": ("", "")},
     [], [lambda s: not s.can_claim(0, 5)]),  # r7..r10 = 34 < leader 10 + b10 + g10 + o10 = 40
    # --- who completed later, after moves ------------------------------------------------------
    ("Redeploy completing a tied side makes it the later one: it loses the tie",
     {"board": [(1, 4, "b3 b4 b5"), (0, 4, "r3 r4"), (0, 7, "r5")],
      "hands": ("redeploy", "")},
     ["redeploy r5 4"],
     [lambda s: side(s, 0, 4) == ["r3", "r4", "r5"], lambda s: not s.can_claim(0, 3),
      lambda s: s.can_claim(1, 3)]),
    ("Traitor within one flag: the robbed side can at best tie, so the taker claims",
     {"board": [(0, 2, "g3 g4"), (1, 2, "y3 y4 g5")], "hands": ("traitor", "")},
     ["traitor g5 2"],
     [lambda s: side(s, 0, 2) == ["g3", "g4", "g5"] and side(s, 1, 2) == ["y3", "y4"],
      lambda s: phase(s) == "claim" and claims(s) == [2]]),  # y3 y4 y5 would only tie
    # --- claim proofs with wild cards already on the opponent's incomplete side --------------
    ("a Shield on the opponent's side can still make a wedge 1-2-3 with two available troops",
     {"board": [(0, 1, "p7 o8 g9"), (1, 1, "shield")], "hands": ("", "")},
     [], [lambda s: not s.can_claim(0, 0)]),
    ("Companion + leader on the opponent's side: wedge 8-9-10 / 7-8-9 needs one troop",
     {"board": [(0, 1, "r5 r6 r7"), (1, 1, "companion darius")],
      "discards": ("r8 o8 y8 g8 b8 p8 r9 o9 y9 g9 b9 p9 r10 o10 y10 g10 b10 p10 "
                   "o7 y7 g7 b7 p7 o6 y6 g6 b6 p6", "")},
     [], [lambda s: s.can_claim(0, 0)]),  # no 6, 7, 9 or 10 left: a battalion at best
    ("the same, one blue 9 left: a wedge beats r5 r6 r7",
     {"board": [(0, 1, "r5 r6 r7"), (1, 1, "companion darius")],
      "discards": ("r8 o8 y8 g8 b8 p8 r9 o9 y9 g9 p9 r10 o10 y10 g10 b10 p10 "
                   "o7 y7 g7 b7 p7 o6 y6 g6 b6 p6", "")},
     [], [lambda s: not s.can_claim(0, 0)]),
    ("a leader on a Mud side keeps its freedom: a phalanx of four 9s beats a skirmish line",
     {"board": [(0, 1, "r6 o7 y8 g9"), (1, 1, "alexander")], "env": [("mud", 1, 1)],
      "discards": (_all_troops_but("r6 o7 y8 g9 r9 o9 b9 p9"), "")},
     [], [lambda s: not s.can_claim(0, 0)]),  # alexander + three 9s = 36 > 30
    ("the same with only two 9s and a 1 left: host 29 at best, the claim succeeds",
     {"board": [(0, 1, "r6 o7 y8 g9"), (1, 1, "alexander")], "env": [("mud", 1, 1)],
      "discards": (_all_troops_but("r6 o7 y8 g9 r9 o9 b1"), "")},
     [], [lambda s: s.can_claim(0, 0)]),
    # --- advanced timing -----------------------------------------------------------------------
    ("advanced: a claim ready after a pass waits for the start of the next own turn",
     {"board": [(0, 1, "r8 r9 r10"), (1, 1, "b1 b2 b3")], "hands": ("", "g1"),
      "rules": "advanced", "turn": 1},
     ["play g1 2", "draw troops"],
     [lambda s: s.turn == 0 and phase(s) == "claim" and claims(s) == [1]]),
    ("advanced: nothing is claimed after playing, even the flag just completed",
     {"board": [(0, 1, "r8 r9"), (1, 1, "b1 b2 b3")], "hands": ("r10", "g1"),
      "rules": "advanced"},
     ["play r10 1"], [lambda s: phase(s) == "draw"]),
    ("schotten-totten claims at the start of the turn too",
     {"board": [(0, 1, "r7 r8 r9"), (1, 1, "b1 b2 b3")], "hands": ("r1", "g1"),
      "rules": "schotten-totten"},
     [], [lambda s: phase(s) == "claim" and claims(s) == [1]]),
    # --- stalemate -----------------------------------------------------------------------------
    ("pass, play, pass is no stalemate: the passes were not on consecutive turns",
     {"hands": ("", "b1 b2"), "troop_deck": "", "tactics_deck": ""},
     ["pass", "play b1 1", "pass"], [running]),
    ("advanced timing: two passes in a row end in a stalemate",
     {"hands": ("", ""), "troop_deck": "", "tactics_deck": "", "rules": "advanced"},
     ["pass", "pass"], [ended(GameEnd.STALEMATE)]),
    ("a Scout between two passes breaks the stalemate count",
     {"hands": ("scout", ""), "troop_deck": "y1", "tactics_deck": ""},
     ["scout", "pass"], [running]),
    # --- the end -------------------------------------------------------------------------------
    ("breakthrough ends the game with another flag still claimable",
     {"board": [(0, 5, "b8 b9 b10"), (0, 8, "o8 o9 o10")], "hands": ("r1", ""),
      "claimed": {3: 0, 4: 0, 2: 1}},
     ["play r1 1", "claim 5"],
     [ended(GameEnd.NORMAL), lambda s: s.claimed[7] == -1, lambda s: s.scores() == [5.0, 1.0],
      lambda s: s.legal_actions() == []]),
    ("advanced: the fifth flag claimed at the start of the turn ends the game at once",
     {"board": [(0, 9, "y8 y9 y10"), (0, 8, "p8 p9 p10")], "hands": ("r1", ""),
      "claimed": {1: 0, 3: 0, 5: 0, 7: 0, 2: 1}, "rules": "advanced"},
     ["claim 9"],
     [ended(GameEnd.NORMAL), lambda s: "envelopment with 5 flags" in s.reason,
      lambda s: s.claimed[7] == -1]),
]


@pytest.mark.parametrize(("case", "kwargs", "actions", "checks"), SCENARIOS,
                         ids=[row[0][:60] for row in SCENARIOS])
def test_audit_scenario(case: str, kwargs: dict[str, Any], actions: list[str],
                        checks: list[Check]) -> None:
    state = position(**kwargs)
    for action in actions:
        assert action in state.legal_actions(), (
            f"{case}: {action!r} should be legal; legal: {state.legal_actions()}\n{state}")
        state.apply(action)
    for i, check in enumerate(checks):
        assert check(state), f"{case}: check {i} fails\n{state!r}\n{state}"


# --- information -----------------------------------------------------------------------------


def _tactical_game(seed: int, rng: random.Random) -> list[BattleLineState]:
    """A random game that plays tactics whenever it can (more Scouts, Traitors...)."""
    return [state for state, _ in _tactical_game_with_returners(seed, rng)]


def _tactical_game_with_returners(
    seed: int, rng: random.Random
) -> list[tuple[BattleLineState, dict[int, int]]]:
    """Every state of such a game, each with who last put each card back with Scout (read
    from the actions, not from the engine's bookkeeping)."""
    state = GAME.new_game(seed)
    returner: dict[int, int] = {}
    states = [(state.clone(), dict(returner))]
    while not state.is_terminal():
        acts = state.legal_actions()
        tactic = [a for a in acts if not a.startswith(("play r", "play o", "play y", "play g",
                                                        "play b", "play p", "pass"))]
        action = rng.choice(tactic if tactic and rng.random() < 0.6 else acts)
        if action.startswith("scout-return "):
            returner[CARD_IDS[action.split()[1]]] = state.current_player
        state.apply(action)
        states.append((state.clone(), dict(returner)))
    return states


def _strings(value: object) -> list[str]:
    """Every string value (not key) in a JSON document, also inside strings like "play r1 3"."""
    if isinstance(value, str):
        return value.split()
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_no_observation_names_a_hidden_card() -> None:
    """A seat's observation names a card of the other hand only if it knows it (Scout), and a
    deck card only if it put it back itself (or saw it go back); the opponent sees '?'."""
    rng = random.Random(17)
    scouted = 0
    for seed in range(25):
        for state, returner in _tactical_game_with_returners(seed, rng):
            for seat in (0, 1):
                named = set(_strings(state.observation(seat)))
                hidden = state.hands[1 - seat] & ~state.known[seat]
                for d in (0, 1):
                    deck = state.decks[d]
                    on_top = deck[len(deck) - len(state.tops[d]):]  # put back, not yet drawn
                    hidden |= sum(1 << c for c in deck
                                  if c not in on_top or returner.get(c) != seat)
                for c in iter_bits(hidden):
                    assert CARD_NAMES[c] not in named, (seed, seat, CARD_NAMES[c])
            scouted += bool(state.tops[0] or state.tops[1])
    assert scouted > 20, "the games must exercise Scout returns"


def test_sampled_states_respect_the_public_facts() -> None:
    """Every sample keeps the board, discards, deck sizes, hand sizes and troop/tactic split,
    the seat's own hand, and deals each unseen card exactly once."""
    rng = random.Random(23)
    for seed in range(12):
        states = _tactical_game(seed, rng)
        for state in states[:: max(1, len(states) // 8)]:
            if state.is_terminal():
                continue
            for seat in (0, 1):
                obs = state.observation(seat)
                sample = GAME.sample_state(obs, rng)
                assert sample.sides == state.sides and sample.discards == state.discards
                assert [len(d) for d in sample.decks] == [len(d) for d in state.decks]
                assert sample.hands[seat] == state.hands[seat]
                opp = 1 - seat
                for kind in (ALL_TROOPS, ALL_TACTICS):
                    assert (sample.hands[opp] & kind).bit_count() == (
                        state.hands[opp] & kind).bit_count()
                assert sample.hands[opp] & state.known[seat] == state.known[seat]
                everything = sorted([*iter_bits(sample.hands[0] | sample.hands[1]),
                                     *sample.decks[0], *sample.decks[1]])
                assert everything == sorted([*iter_bits(state.hands[0] | state.hands[1]),
                                             *state.decks[0], *state.decks[1]])
                if seat == state.current_player:
                    assert sample.legal_actions() == state.legal_actions()
                assert all(c < NUM_TROOPS for c in sample.decks[0])


# --- the play phase against a plain reading of the rules ---------------------------------------


def _reference_play_actions(s: BattleLineState) -> set[str]:
    """The play-phase actions, written straight from the rules page (no masks, no caches)."""
    me, opp = s.turn, 1 - s.turn
    names = CARD_NAMES
    held = list(iter_bits(s.hands[me]))
    open_flags = [f for f in range(9) if s.claimed[f] < 0]
    free = [f for f in open_flags if len(s.sides[me * 9 + f]) < s.capacity(f)]
    out: set[str] = set()
    troops = [c for c in held if c < NUM_TROOPS]
    out |= {f"play {names[c]} {f + 1}" for c in troops for f in free}
    if not (troops and free):
        out.add("pass")
    if s.tactics_played[me] > s.tactics_played[opp]:
        return out
    for c in held:
        name = names[c]
        if name in ("companion", "shield") or (
                name in ("alexander", "darius") and not s.leader_played[me]):
            out |= {f"play {name} {f + 1}" for f in free}
        elif name in ("fog", "mud"):
            out |= {f"{name} {f + 1}" for f in open_flags}
        elif name == "scout" and (s.decks[0] or s.decks[1]):
            out.add("scout")
        elif name == "redeploy":
            for f in open_flags:
                for card in s.sides[me * 9 + f]:
                    out.add(f"redeploy {names[card]} discard")
                    out |= {f"redeploy {names[card]} {g + 1}" for g in free if g != f}
        elif name == "deserter":
            for f in open_flags:
                out |= {f"deserter {names[card]}" for card in s.sides[opp * 9 + f]}
                out |= {f"deserter {env}" for env, owners in (("fog", s.fog), ("mud", s.mud))
                        if owners[f] == opp}
        elif name == "traitor":
            for f in open_flags:
                out |= {f"traitor {names[card]} {g + 1}" for card in s.sides[opp * 9 + f]
                        if card < NUM_TROOPS for g in free}
    return out


def test_play_phase_actions_match_a_plain_reading_of_the_rules() -> None:
    rng = random.Random(31)
    compared = 0
    for seed in range(30):
        for state in _tactical_game(seed, rng):
            if phase(state) == "play":
                assert set(state.legal_actions()) == _reference_play_actions(state), (
                    seed, state.ply)
                compared += 1
    assert compared > 1000


def _scout_returns_a_card_the_opponent_knew() -> BattleLineState:
    """Seat 1 scouts and puts b1 back on top; seat 0 draws it (so seat 1 knows seat 0 holds
    b1); seat 0 then scouts and is about to put two cards back."""
    s = position(hands=("scout r1 r2 r3 r4 r5 r6", "scout b1 y9 g1 g2 g3 g4"),
                 troop_deck="o1 o2 o3 o4 o5 o6 o7 o8 o9", tactics_deck="fog mud", turn=1,
                 fill=True)
    for action in ("scout", "scout-draw troops", "scout-draw troops", "scout-draw troops",
                   "scout-return y9", "scout-return b1",  # seat 1: b1 on top
                   "play r1 1", "draw troops",  # seat 0 draws b1, seat 1 knows it
                   "play g1 1", "draw troops",  # seat 1 takes y9 back
                   "scout", "scout-draw troops", "scout-draw troops", "scout-draw troops"):
        s.apply(action)
    assert s.observation(1)["opponent_known"] == ["b1"]
    return s


def test_the_opponent_cannot_tell_which_card_a_scout_put_back() -> None:
    """Seat 1 knew b1 was in seat 0's hand; seat 0 puts back one troop (b1 or r2) and a tactic.
    Seat 1 sees only that a troop went onto the troop deck: its view must be the same either
    way (no named deck top, and it can no longer be sure b1 is still in that hand)."""
    views = []
    for choice in ("b1", "r2"):
        s = _scout_returns_a_card_the_opponent_knew()
        s.apply(f"scout-return {choice}")
        s.apply("scout-return o4")
        obs = s.observation(1)
        assert obs["deck_tops"]["troops"] == ["?", "?"], obs["deck_tops"]
        views.append(obs)
        me = s.observation(0)["deck_tops"]["troops"]
        assert me == ["o4", choice]
    assert views[0] == views[1]


def test_a_seat_knows_what_the_opponent_knows_of_its_hand_and_samples_keep_it() -> None:
    """Seat 1 put b1 back on top and seat 0 drew it: seat 0 saw that '?' go into its hand, so
    its view says seat 1 knows b1, and a state sampled from that view keeps seat 1's knowledge."""
    s = _scout_returns_a_card_the_opponent_knew()
    obs = s.observation(0)
    assert obs["known_by_opponent"] == ["b1"] and s.observation(1)["known_by_opponent"] == []
    for k in range(5):
        sample = GAME.sample_state(obs, random.Random(k))
        assert sample.observation(0) == obs
        assert sample.observation(1)["opponent_known"] == ["b1"]


def test_every_turn_draws_exactly_as_the_rules_say() -> None:
    """Over whole random games: a turn that plays a card ends with one draw whenever a deck has
    a card (the hand never exceeds its size, so it is always below it after playing); a passing
    turn draws nothing; the hand and the decks account for every card."""
    rng = random.Random(41)
    turns = {"play": 0, "pass": 0, "empty": 0}
    for seed in range(20):
        states = _tactical_game(seed, rng)
        start = states[0]
        for state in states[1:]:
            if state.is_terminal():
                break
            if state.turn == start.turn:
                continue
            me = start.turn
            actions = state.history[len(start.history):]
            d0 = len(start.decks[0]) + len(start.decks[1])
            d1 = len(state.decks[0]) + len(state.decks[1])
            h0, h1 = start.hands[me].bit_count(), state.hands[me].bit_count()
            if "pass" in actions:
                assert (d1, h1) == (d0, h0), actions
                turns["pass"] += 1
            elif "scout" not in actions:
                drew = 1 if d0 else 0
                assert h0 <= start.hand_size
                assert (d1, h1) == (d0 - drew, h0 - 1 + drew), (seed, actions)
                turns["play" if drew else "empty"] += 1
            start = state
    assert min(turns.values()) > 0, turns
