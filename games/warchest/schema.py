"""The keys of a War Chest observation, typed and explained: the schema docs/observation.md is
generated from and the tests check every real observation against.

Each key is ``Annotated[type, "meaning"]``. Seats are 0-based; with four players seats 0 and 2
form team 0 and seats 1 and 3 team 1, and control markers belong to teams. Hexes are named as
in the action notation (``f4`` is the centre), coins by unit name or ``royal``; a pile of coins
is an object from coin name to count, coins with count 0 left out.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from games.protocol import Event

Coins = dict[str, int]


class Unit(TypedDict):
    """A unit on the board."""

    hex: Annotated[str, "where it stands"]
    unit: Annotated[str, "its unit type"]
    owner: Annotated[int, "the seat it belongs to"]
    height: Annotated[int, "coins in its stack"]


class Pending(TypedDict):
    """A decision the rules owe before the turn goes on (innermost last)."""

    kind: Annotated[Literal["use", "guard", "repeat", "sword", "merc", "footman"],
                    "use: a Warrior Priest's drawn coin must be used now; guard: a Royal Guard "
                    "is attacked and its owner chooses what it loses; repeat: a Berserker may "
                    "maneuver again; sword: a Swordsman may move after attacking; merc: a "
                    "Mercenary may maneuver after being recruited; footman: the Footman units "
                    "that still owe their maneuver"]
    seat: Annotated[int, "the seat that decides it"]
    coin: NotRequired[Annotated[str | None,
                                "use only: the coin to use, null for other seats (hidden)"]]
    hexes: NotRequired[Annotated[list[str],
                                 "guard: [target, attacker]; the others: the unit(s) concerned"]]
    triggers: NotRequired[Annotated[bool,
                                    "guard only: whether the attacker's after-attack effects "
                                    "run once it is decided"]]


class Draft(TypedDict):
    """The draft (variant setup=draft), empty once play starts."""

    pool: Annotated[list[str], "unit cards still to pick"]
    order: Annotated[list[int], "the seats still to pick, in order"]


class End(TypedDict):
    """How the game ended."""

    kind: Annotated[str, "normal or move_cap"]
    reason: Annotated[str, "readable text"]
    winner_team: Annotated[int, "the winning team, -1 for none"]


class WarChestObservation(TypedDict):
    """What one seat of a War Chest game may know (``state.observation(seat)``)."""

    game: Annotated[Literal["warchest"], "the game's registry name"]
    seat: Annotated[int, "the observing seat"]
    current_player: Annotated[int, "the seat to decide now (out of turn for a pending "
                                   "decision), -1 once the game is over"]
    players: Annotated[int, "number of seats, 2 or 4"]
    variant: Annotated[dict[str, str], "the rules options"]
    decisions: Annotated[int, "decisions taken so far in the game"]
    phase: Annotated[Literal["draft", "play", "over"], "the stage of the game"]
    round: Annotated[int, "the round number, from 1 once play starts"]
    initiative: Annotated[int, "the seat holding the initiative (it starts each round)"]
    initiative_changed: Annotated[bool, "whether the initiative was taken this round"]
    turn: Annotated[int, "the seat whose turn it is in the round"]
    board: Annotated[list[Unit], "every unit on the board"]
    control: Annotated[dict[str, int], "per controlled location hex, the team controlling it"]
    markers: Annotated[list[int], "per team, control markers on the board"]
    markers_total: Annotated[int, "markers a team must place to win"]
    cards: Annotated[list[list[str]], "per seat, its unit cards"]
    supply: Annotated[list[Coins], "per seat, its supply"]
    faceup: Annotated[list[Coins], "per seat, its face-up discard pile"]
    box: Annotated[list[Coins], "per seat, its coins removed from the game"]
    pool: Annotated[list[Coins],
                    "per seat, its bag, hand and face-down coins taken together (public: every "
                    "coin entering them was seen)"]
    bag_count: Annotated[list[int], "per seat, coins in its bag"]
    hand_count: Annotated[list[int], "per seat, coins in its hand"]
    facedown_count: Annotated[list[int], "per seat, coins in its face-down discard pile"]
    hand: Annotated[Coins, "this seat's hand"]
    facedown: Annotated[Coins, "this seat's face-down discard pile"]
    pending: Annotated[list[Pending], "decisions owed before the turn goes on, innermost last"]
    draft: Annotated[Draft, "the draft, if any"]
    end: Annotated[End | None, "null while the game runs"]
    events: Annotated[list[Event],
                      "what happened since this seat last decided, oldest first: every "
                      "decision of the others, in public form; a face-down payment shows that "
                      "it was made and what for, with \"?\" for the coin (\"? initiative\", "
                      "\"? recruit archer\", \"? pass\"); draws are not events (each seat "
                      "draws up to 3 coins at the start of a round, refilling its bag from "
                      "its discards when empty: the counts follow)"]
