"""Observation tensors: a seat's JSON observation as a flat ``float32`` vector.

An encoder reads nothing but the observation a bot gets (``state.observation(seat)``), so a
tensor never holds more than that seat may know, and two states that give a seat the same
observation give it the same tensor. Seats are written relative to the observer: block entry 0
is the observer itself, entry 1 the seat after it, and so on; teams likewise (0: the
observer's). The layout of each game, block by block, is printed in docs/research.md from
:meth:`Encoder.layout` (a test keeps the page and the code equal).

>>> enc = encoder("battleline", {"players": "2", "rules": "standard"})
>>> from games.battleline import GAME
>>> enc.encode(GAME.new_game(1).observation(0)).shape == (enc.size,)
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from games.battleline.cards import CARD_IDS, NUM_CARDS
from games.warchest.board import board_for
from games.warchest.units import COIN_BY_NAME, NUM_COINS, NUM_TYPES, UNIT_BY_NAME

Vector = npt.NDArray[np.float32]
JSON = Mapping[str, Any]

BL_PHASES: Final = ("play", "claim", "draw", "scout-draw", "scout-return", "over")
WC_PHASES: Final = ("draft", "play", "over")
WC_PENDING: Final = ("use", "guard", "repeat", "sword", "merc", "footman")
WC_PILES: Final = ("supply", "faceup", "box", "pool")
COIN_SCALE: Final = 5.0  # a pile's coin count is divided by this (a unit type has 4-5 coins)


class Encoder:
    """One game and variant's tensor: named blocks laid end to end."""

    def __init__(self, name: str, blocks: list[tuple[str, int, str]],
                 fill: Callable[[Encoder, Vector, JSON], None]) -> None:
        self.name = name
        self.blocks = blocks
        self.offset: dict[str, int] = {}
        at = 0
        for key, length, _ in blocks:
            self.offset[key] = at
            at += length
        self.size = at
        self._fill = fill

    def layout(self) -> list[tuple[str, int, int, str]]:
        """(block, offset, length, meaning) for every block, in order."""
        return [(key, self.offset[key], length, text) for key, length, text in self.blocks]

    def encode(self, observation: JSON) -> Vector:
        """The tensor of one observation (a new array)."""
        out = np.zeros(self.size, dtype=np.float32)
        self._fill(self, out, observation)
        return out


def _bl_blocks(n: int) -> list[tuple[str, int, str]]:
    c = NUM_CARDS
    return [
        ("flags", 9 * n * c, f"per flag 1-9, per relative seat ({n}), the {c} cards: 1 if the "
                             "card lies on that seat's side of the flag"),
        ("claimed", 9 * n, "per flag, per relative seat: 1 if that seat claimed it"),
        ("fog_mud", 9 * 2, "per flag: Fog beside it, Mud beside it"),
        ("facing", 9 * n, "per flag, per relative seat: 1 if that seat plays at the flag "
                          "(always 1 with two players)"),
        ("claimable", 9, "per flag: 1 if the observer may claim it now"),
        ("hand", c, "the observer's hand"),
        ("discards", n * c, "per relative seat, the cards in its discard pile"),
        ("opponent_known", c, "cards the observer knows in other hands"),
        ("known_by_opponent", c, "cards of the observer's hand another seat knows"),
        ("deck_tops", c, "returned cards on top of the decks that the observer put back"),
        ("deck_tops_count", 2, "returned cards on top of the troop and tactics decks, / 3"),
        ("decks", 2, "cards left in the troop deck / 60 and in the tactics deck / 10"),
        ("hand_counts", 2 * n, "per relative seat: troops / 7, tactics / 7 in hand"),
        ("tactics_played", n, "per relative seat: tactics played"),
        ("leader_played", n, "per relative seat: 1 if it played a leader"),
        ("phase", len(BL_PHASES), "the step of the turn, one-hot: " + ", ".join(BL_PHASES)),
        ("turn", n, "whose turn it is, one-hot by relative seat"),
        ("to_move", 1, "1 if the observer is to decide now"),
        ("state", 7, "Fog down, Mud down, passes / players, passed, scouted, scout draws "
                     "left / 3, scout put-backs left / 2"),
    ]


def _bl_fill(enc: Encoder, out: Vector, obs: JSON) -> None:
    n = len(obs["hand_sizes"])
    me = obs["seat"]
    cid = CARD_IDS
    c = NUM_CARDS
    o = enc.offset
    for f, flag in enumerate(obs["flags"]):
        for seat, side in enumerate(flag["sides"]):
            base = o["flags"] + (f * n + (seat - me) % n) * c
            for card, _ in side:
                out[base + cid[card]] = 1.0
        if flag["claimed"] >= 0:
            out[o["claimed"] + f * n + (flag["claimed"] - me) % n] = 1.0
        out[o["fog_mud"] + 2 * f] = flag["fog"] >= 0
        out[o["fog_mud"] + 2 * f + 1] = flag["mud"] >= 0
        facing = flag.get("seats", range(n))
        for seat in facing:
            out[o["facing"] + f * n + (seat - me) % n] = 1.0
    for f in obs["claimable"]:
        out[o["claimable"] + f - 1] = 1.0
    for key in ("hand", "opponent_known", "known_by_opponent"):
        for card in obs[key]:
            out[o[key] + cid[card]] = 1.0
    for seat, pile in enumerate(obs["discards"]):
        for card in pile:
            out[o["discards"] + (seat - me) % n * c + cid[card]] = 1.0
    tops = obs["deck_tops"]
    for d, deck in enumerate(("troops", "tactics")):
        out[o["deck_tops_count"] + d] = len(tops[deck]) / 3.0
        for card in tops[deck]:
            if card != "?":
                out[o["deck_tops"] + cid[card]] = 1.0
    out[o["decks"]] = obs["decks"]["troops"] / 60.0
    out[o["decks"] + 1] = obs["decks"]["tactics"] / 10.0
    for seat in range(n):
        r = (seat - me) % n
        troops, tactics = obs["hand_counts"][seat]
        out[o["hand_counts"] + 2 * r] = troops / 7.0
        out[o["hand_counts"] + 2 * r + 1] = tactics / 7.0
        out[o["tactics_played"] + r] = obs["tactics_played"][seat]
        out[o["leader_played"] + r] = obs["leader_played"][seat]
    out[o["phase"] + BL_PHASES.index(obs["phase"])] = 1.0
    out[o["turn"] + (obs["turn"] - me) % n] = 1.0
    out[o["to_move"]] = obs["current_player"] == me
    s = o["state"]
    out[s:s + 7] = (obs["fog_ply"] >= 0, obs["mud_ply"] >= 0, obs["passes"] / n, obs["passed"],
                    obs["scouted"], obs["scout_draws"] / 3.0, obs["scout_returns"] / 2.0)


def _wc_blocks(n: int) -> list[tuple[str, int, str]]:
    h = board_for(n).size
    u, k = NUM_TYPES, NUM_COINS
    return [
        ("unit", h * u, f"per hex (the board's {h}, in docs order), the unit type standing there, "
                        "one-hot"),
        ("owner", h * n, "per hex, the relative seat owning its unit, one-hot"),
        ("height", h, "per hex, coins in its unit's stack / 5"),
        ("location", h, "per hex, 1 if it is a control location"),
        ("control", h * 2, "per hex, controlled by the observer's team, by the other team"),
        ("cards", n * u, "per relative seat, its unit cards"),
        ("piles", n * len(WC_PILES) * k, "per relative seat, per pile (supply, face-up "
                                         "discards, removed, bag+hand+face-down), per coin: "
                                         "count / 5"),
        ("counts", n * 3, "per relative seat: coins in bag / 10, in hand / 3, face down / 10"),
        ("hand", k, "the observer's hand, per coin: count"),
        ("facedown", k, "the observer's face-down discards, per coin: count / 5"),
        ("markers", 2, "control markers on the board of the observer's team, of the other, "
                       "/ markers to win"),
        ("phase", len(WC_PHASES), "the stage, one-hot: " + ", ".join(WC_PHASES)),
        ("initiative", n, "the seat with the initiative, one-hot by relative seat"),
        ("turn", n, "whose turn it is in the round, one-hot by relative seat"),
        ("flags", 3, "initiative taken this round, observer to decide now, round / 20"),
        ("pending_kind", len(WC_PENDING), "the innermost pending decision's kind, one-hot: "
                                          + ", ".join(WC_PENDING)),
        ("pending_seat", n, "the seat that owes it, by relative seat"),
        ("pending_coin", k, "its coin, when the observer may see it (use)"),
        ("pending_hexes", h, "per hex, 1 if the pending decision concerns it"),
        ("pending_more", 2, "pending decisions in all / 3, the attacker's effects to follow "
                            "(guard)"),
        ("draft_pool", u, "unit cards still to pick in the draft"),
        ("draft_next", n + 1, "the next seat to pick (relative, one-hot), picks left / 8"),
    ]


def _wc_fill(enc: Encoder, out: Vector, obs: JSON) -> None:
    n = obs["players"]
    me = obs["seat"]
    board = board_for(n)
    idx = board.by_name
    o = enc.offset
    u, k, h_count = NUM_TYPES, NUM_COINS, board.size
    for unit in obs["board"]:
        h = idx[unit["hex"]]
        out[o["unit"] + h * u + UNIT_BY_NAME[unit["unit"]]] = 1.0
        out[o["owner"] + h * n + (unit["owner"] - me) % n] = 1.0
        out[o["height"] + h] = unit["height"] / 5.0
    for h in board.locations:
        out[o["location"] + h] = 1.0
    for name, team in obs["control"].items():
        out[o["control"] + 2 * idx[name] + (team - me) % 2] = 1.0
    for seat in range(n):
        r = (seat - me) % n
        for card in obs["cards"][seat]:
            out[o["cards"] + r * u + UNIT_BY_NAME[card]] = 1.0
        for p, pile in enumerate(WC_PILES):
            base = o["piles"] + (r * len(WC_PILES) + p) * k
            for coin, count in obs[pile][seat].items():
                out[base + COIN_BY_NAME[coin]] = count / COIN_SCALE
        c = o["counts"] + 3 * r
        out[c] = obs["bag_count"][seat] / 10.0
        out[c + 1] = obs["hand_count"][seat] / 3.0
        out[c + 2] = obs["facedown_count"][seat] / 10.0
    for coin, count in obs["hand"].items():
        out[o["hand"] + COIN_BY_NAME[coin]] = count
    for coin, count in obs["facedown"].items():
        out[o["facedown"] + COIN_BY_NAME[coin]] = count / COIN_SCALE
    total = obs["markers_total"]
    for team, count in enumerate(obs["markers"]):
        out[o["markers"] + (team - me) % 2] = count / total
    out[o["phase"] + WC_PHASES.index(obs["phase"])] = 1.0
    out[o["initiative"] + (obs["initiative"] - me) % n] = 1.0
    out[o["turn"] + (obs["turn"] - me) % n] = 1.0
    out[o["flags"]] = obs["initiative_changed"]
    out[o["flags"] + 1] = obs["current_player"] == me
    out[o["flags"] + 2] = obs["round"] / 20.0
    pending = obs["pending"]
    if pending:
        top = pending[-1]
        out[o["pending_kind"] + WC_PENDING.index(top["kind"])] = 1.0
        out[o["pending_seat"] + (top["seat"] - me) % n] = 1.0
        if top.get("coin"):
            out[o["pending_coin"] + COIN_BY_NAME[top["coin"]]] = 1.0
        for name in top.get("hexes", ()):
            out[o["pending_hexes"] + idx[name]] = 1.0
        out[o["pending_more"]] = len(pending) / 3.0
        out[o["pending_more"] + 1] = bool(top.get("triggers", False))
    draft = obs["draft"]
    for card in draft["pool"]:
        out[o["draft_pool"] + UNIT_BY_NAME[card]] = 1.0
    if draft["order"]:
        out[o["draft_next"] + (draft["order"][0] - me) % n] = 1.0
    out[o["draft_next"] + n] = len(draft["order"]) / 8.0
    assert h_count == board.size


_ENCODERS: dict[tuple[str, int], Encoder] = {}


def encoder(game: str, variant: Mapping[str, str]) -> Encoder:
    """The encoder of a game (registry name) and resolved variant: it depends on the number of
    players only (built once)."""
    players = int(variant.get("players", "2"))
    key = (game, players)
    enc = _ENCODERS.get(key)
    if enc is None:
        if game == "battleline":
            enc = Encoder(f"battleline/{players}p", _bl_blocks(players), _bl_fill)
        elif game == "warchest":
            enc = Encoder(f"warchest/{players}p", _wc_blocks(players), _wc_fill)
        else:
            raise KeyError(f"no observation tensor for the game {game!r}")
        _ENCODERS[key] = enc
    return enc


__all__ = ["Encoder", "Vector", "encoder"]
