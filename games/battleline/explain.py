"""Why a well-formed Battle Line action is not legal now: the slow path behind the message of
:class:`~games.protocol.IllegalAction`. Legal actions never come here; the engine generates
them directly, and only a rejected action asks for the reason.

>>> from games.battleline import GAME
>>> from games.battleline.notation import parse
>>> why_illegal(GAME.new_game(7), parse("claim 4"))
'seat 0 is in the play phase, which takes: play, fog, mud, scout, redeploy, deserter, traitor, pass'
"""

from __future__ import annotations

from games.battleline.cards import CARD_NAMES, FOG, MUD, NUM_TROOPS
from games.battleline.notation import (
    CLAIM,
    DECKS,
    DESERTER_A,
    DONE,
    DRAW,
    FOG_A,
    KIND_CARD,
    KIND_NAMES,
    MUD_A,
    NUM_FLAGS,
    PASS,
    PLAY,
    REDEPLOY_A,
    SCOUT_A,
    SCOUT_DRAW,
    SCOUT_RETURN,
    TRAITOR_A,
    Action,
)
from games.battleline.state import (
    P_CLAIM,
    P_DRAW,
    P_OVER,
    P_PLAY,
    P_SCOUT_DRAW,
    P_SCOUT_RETURN,
    PHASE_NAMES,
    BattleLineState,
)


def why_illegal(state: BattleLineState, parsed: Action) -> str:
    """Why a well-formed action is not legal now (slow path, for error messages only)."""
    kind, card, arg = parsed
    phase = PHASE_NAMES[state.phase]
    if state.phase == P_OVER:
        return "the game is over"
    me = state.turn
    expected = {
        P_PLAY: (PLAY, FOG_A, MUD_A, SCOUT_A, REDEPLOY_A, DESERTER_A, TRAITOR_A, PASS),
        P_CLAIM: (CLAIM, DONE),
        P_DRAW: (DRAW,),
        P_SCOUT_DRAW: (SCOUT_DRAW,),
        P_SCOUT_RETURN: (SCOUT_RETURN,),
    }[state.phase]
    if kind not in expected:
        verbs = ", ".join(KIND_NAMES[k] for k in expected)
        return f"seat {me} is in the {phase} phase, which takes: {verbs}"
    flag_word = f"flag {arg + 1}" if arg >= 0 else ""
    if kind == CLAIM:
        if state.claimed[arg] >= 0:
            return f"{flag_word} is already claimed by seat {state.claimed[arg]}"
        if state.layout.opponent[me][arg] < 0:
            a, b = state.layout.seats_at[arg]
            return f"{flag_word} is not on seat {me}'s line: it lies between seats {a} and {b}"
        return f"the claim proof for {flag_word} does not succeed"
    if kind == PASS:
        return "a troop can still be placed, so passing is not allowed"
    if kind in (DRAW, SCOUT_DRAW):
        return f"the {DECKS[arg]} deck is empty"
    if card >= 0 and kind in (PLAY, FOG_A, MUD_A, SCOUT_A, REDEPLOY_A, DESERTER_A,
                              TRAITOR_A, SCOUT_RETURN):
        held = card if kind in (PLAY, SCOUT_RETURN) else KIND_CARD[kind]
        if not (state.card_in_game(held)):
            return f"{CARD_NAMES[held]} is not used in the {state.variant['rules']} rules"
        if not state.hands[me] >> held & 1:
            return f"seat {me} does not hold {CARD_NAMES[held]}"
        if kind == SCOUT_RETURN:
            return "unexpected"
        if held >= NUM_TROOPS:
            played = state.tactics_played
            behind = [o for o in state.layout.opponents[me] if played[o] < played[me]]
            if behind:
                who = "the opponent" if state.n == 2 else f"seat {behind[0]}"
                return (f"seat {me} has played more tactics ({played[me]}) "
                        f"than {who} ({played[behind[0]]})")
            if held in (60, 61) and state.leader_played[me]:
                return f"seat {me} has already played a leader this game"
    if arg >= 0 and kind != SCOUT_RETURN and state.claimed[arg] >= 0:
        return f"{flag_word} is claimed"
    if arg >= 0 and kind in (PLAY, FOG_A, MUD_A, REDEPLOY_A, TRAITOR_A) and (
        state.layout.opponent[me][arg] < 0
    ):
        a, b = state.layout.seats_at[arg]
        return f"{flag_word} is not on seat {me}'s line: it lies between seats {a} and {b}"
    if kind == PLAY:
        return f"seat {me}'s side of {flag_word} is full"
    if kind == SCOUT_A:
        return "both decks are empty"
    if kind == TRAITOR_A and card >= NUM_TROOPS:
        return f"Traitor takes troops only, not {CARD_NAMES[card]}"
    if kind == REDEPLOY_A and card in (FOG, MUD):
        return "environment cards cannot be redeployed"
    if kind in (REDEPLOY_A, TRAITOR_A):
        owners = (me,) if kind == REDEPLOY_A else state.layout.opponents[me]
        side = state.where[card]
        if side < 0 or side // NUM_FLAGS not in owners:
            whose = " or ".join(f"seat {o}'s" for o in owners)
            return f"{CARD_NAMES[card]} is not on {whose} side of the board"
        if state.claimed[side % NUM_FLAGS] >= 0:
            return f"{CARD_NAMES[card]} lies at a claimed flag"
        if kind == REDEPLOY_A and arg == side % NUM_FLAGS:
            return "Redeploy must move the card to another flag"
        return f"seat {me}'s side of {flag_word} is full"
    if kind == DESERTER_A:
        return f"{CARD_NAMES[card]} is not an opponent's card at an unclaimed flag"
    return "not allowed in this position"
