"""Why a well-formed War Chest action is not legal now: the slow path behind the message of
:class:`~games.protocol.IllegalAction`. Legal actions never come here; the engine generates
them directly, and only a rejected action asks for the reason.

>>> from games.warchest import GAME
>>> why_illegal(GAME.new_game(7), "stop")
"illegal War Chest action 'stop': no effect is waiting for that decision"
"""

from __future__ import annotations

from games.warchest.state import WarChestState
from games.warchest.units import COIN_BY_NAME, COIN_NAMES, ROYAL, UNITS


def why_illegal(s: WarChestState, action: str) -> str:
    """A readable reason why a well-formed ``action`` (canonical spelling) is not legal in ``s``."""
    head = f"illegal War Chest action {action!r}: "
    if s.is_terminal():
        return head + "the game is over"
    toks = action.split()
    seat = s.current_player
    if s.draft_order:
        if toks[0] != "pick":
            return head + f"seat {seat} must draft a unit card first ('pick <unit>')"
        return head + "that card is not in the draft pool (or already taken)"
    if toks[0] == "pick":
        return head + "the draft is over"
    top = s.pending[-1] if s.pending else None
    if top is not None:
        kind = top[0]
        if top[0] == "guard" and toks[0] != "guard":
            return head + (f"seat {seat} must first decide where its attacked Royal Guard "
                           "loses a coin ('guard supply' or 'guard unit')")
        if top[0] == "use" and toks[0] != COIN_NAMES[top[2]]:
            return head + (f"seat {seat} must use the coin its Warrior Priest drew "
                           f"({COIN_NAMES[top[2]]}) before anything else")
        if kind == "footman" and toks[0] != "free":
            return head + (f"seat {seat} must first finish its Footman tactic: each Footman "
                           "that can maneuver must (one of "
                           f"{', '.join(s._legal_tuple())})")
        if kind in ("repeat", "sword", "merc") and toks[0] not in ("repeat", "free", "stop"):
            return head + (f"seat {seat} must first finish an optional effect "
                           f"({kind}): one of {', '.join(s._legal_tuple())}")
    elif toks[0] in ("repeat", "free", "stop", "guard"):
        return head + "no effect is waiting for that decision"
    if toks[0] in COIN_NAMES and (top is None or top[0] == "use"):
        c = COIN_NAMES.index(toks[0])
        if not s.hand[seat][c]:
            return head + f"seat {seat} holds no {toks[0]} coin"
    options = [a for a in s._legal_tuple() if a.split()[0] == toks[0]]
    hint = f" (legal with {toks[0]!r}: {', '.join(options[:12])})" if options else ""
    return head + _reason(s, seat, toks) + hint


def _reason(s: WarChestState, seat: int, toks: list[str]) -> str:
    """The most specific reason found why a well-formed action fails (for messages)."""
    b = s.board
    for tok in toks[1:]:
        if len(tok) == 2 and tok[1].isdigit() and tok not in b.by_name:
            return f"hex {tok} is not on the {s.n}-player board"
    head, verb = toks[0], toks[1] if len(toks) > 1 else ""
    team = seat % 2
    if head in COIN_BY_NAME:
        c = COIN_BY_NAME[head]
        if verb == "initiative":
            if s.initiative % 2 == team:
                return "your side already holds the initiative"
            return "the initiative has already changed hands this round"
        if verb == "recruit":
            t = COIN_BY_NAME[toks[2]]
            if t not in s.cards[seat]:
                return f"seat {seat} does not play {toks[2]}"
            return f"no {toks[2]} coin is left in seat {seat}'s supply"
        if c == ROYAL and verb != "tactic":
            return "the Royal Coin never deploys, bolsters or maneuvers (except paying the " \
                   "Royal Guard's tactic)"
        if verb == "deploy":
            spec = UNITS[c]
            if len(s.units_of(seat, c)) >= spec.max_units:
                return f"seat {seat} already has its {head} unit(s) on the board"
            return f"{toks[2]} is not an empty location your side controls"
        if verb == "tactic":  # the army tactic ('footman tactic'): the only 2-token tactic
            if not s.units_of(seat, c):
                return f"seat {seat} has no {head} unit on the board"
            return f"no {head} unit of seat {seat} can make a maneuver (move, control, attack)"
    if verb in ("bolster", "tactic", "move", "attack", "control") or toks[1] in b.by_name:
        h = b.by_name[toks[1]] if verb != "bolster" else b.by_name[toks[2]]
        t = s.cell_unit[h]
        if t < 0 or s.cell_owner[h] != seat:
            return f"seat {seat} has no unit on {b.name[h]}"
        spec = UNITS[t]
        if head in COIN_BY_NAME and head != spec.name and not (
            head == "royal" and spec.royal_tactic
        ):
            return f"a {head} coin cannot act for the {spec.name} on {b.name[h]}"
        verb = toks[2] if verb != "bolster" else verb
        if verb == "tactic":
            if not spec.has_tactic:
                return f"the {spec.name} has no tactic"
            if spec.royal_tactic and head != "royal":
                return f"the {spec.name}'s tactic is paid with the Royal Coin"
            if spec.army_tactic:
                return f"the {spec.title} tactic names no hex: use '{spec.name} tactic'"
            if spec.name == "light-cavalry" and len(toks) == 4 and b.dist[h][
                    b.by_name[toks[3]]] == 1:
                return (f"the Light Cavalry tactic moves exactly 2 hexes; a 1-hex move is "
                        f"'{head} {toks[1]} move {toks[3]}'")
            return f"that {spec.name} tactic is not possible here"
        if verb in ("move", "attack"):
            d = b.by_name[toks[3]]
            if b.dist[h][d] != 1:
                return f"{toks[3]} is not adjacent to {toks[1]}"
            if verb == "move":
                if s.cell_unit[d] >= 0:
                    return f"{toks[3]} is occupied"
            elif not spec.normal_attack:
                return f"the {spec.name} cannot make a normal attack"
            elif not s.is_enemy_at(seat, d):
                return f"there is no enemy unit on {toks[3]}"
            elif not s.can_hit(s.cell_h[h] - (head == "repeat"), d):
                return "a Knight can only be attacked by a bolstered unit"
        if verb == "control":
            if not b.is_location[h]:
                return f"{toks[1]} is not a location"
            if s.ctrl[h] == team:
                return f"your side already controls {toks[1]}"
    return "not possible in this position"
