"""The keys of a Battle Line observation, typed and explained: the schema docs/observation.md is
generated from and the tests check every real observation against.

Each key is ``Annotated[type, "meaning"]``; keys marked ``NotRequired`` appear with three
players only. Seats are 0-based, flags 1-9, cards are named as in the action notation (``r10``,
``fog``), and "decision" counts every decision of the game from 0.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict

from games.protocol import Event

Phase = Literal["play", "claim", "draw", "scout-draw", "scout-return", "over"]


class Flag(TypedDict):
    """One of the nine flags."""

    flag: Annotated[int, "its number, 1-9"]
    claimed: Annotated[int, "the seat that claimed it, -1 while unclaimed"]
    fog: Annotated[int, "the seat whose Fog card lies beside it, -1 if none"]
    mud: Annotated[int, "the seat whose Mud card lies beside it, -1 if none"]
    sides: Annotated[list[list[tuple[str, int]]],
                     "per seat, the cards on its side in the order they arrived, each with the "
                     "decision at which it arrived (ties between complete formations go to the "
                     "side completed first)"]
    seats: NotRequired[Annotated[list[int],
                                 "three players only: the two seats that face each other at "
                                 "this flag (the third seat's side stays empty)"]]


class Decks(TypedDict):
    """Cards left in each deck."""

    troops: Annotated[int, "cards in the troop deck"]
    tactics: Annotated[int, "cards in the tactics deck (0 without tactics)"]


class DeckTops(TypedDict):
    """Cards put back on top of the decks by Scout and not drawn yet, top first."""

    troops: Annotated[list[str], "the card's name if this seat put it back, else \"?\""]
    tactics: Annotated[list[str], "the card's name if this seat put it back, else \"?\""]


class DeckTopsBy(TypedDict):
    """Who put back each card of ``deck_tops``, top first."""

    troops: Annotated[list[int], "the seat that put back each returned troop"]
    tactics: Annotated[list[int], "the seat that put back each returned tactic"]


class BattleLineObservation(TypedDict):
    """What one seat of a Battle Line game may know (``state.observation(seat)``)."""

    game: Annotated[Literal["battleline"], "the game's registry name"]
    seat: Annotated[int, "the observing seat"]
    current_player: Annotated[int, "the seat to decide now, -1 once the game is over"]
    variant: Annotated[dict[str, str], "the rules options, e.g. {\"rules\": \"standard\"}"]
    rules_version: Annotated[str, "the engine's rules version"]
    decisions: Annotated[int, "decisions taken so far in the game"]
    flags: Annotated[list[Flag], "the nine flags, in order"]
    discards: Annotated[list[list[str]],
                        "per seat, its discard pile in order (tactics played to it, cards "
                        "Redeploy or Deserter sent there)"]
    decks: Annotated[Decks, "cards left in each deck"]
    deck_tops: Annotated[DeckTops, "the returned cards on top of each deck, as far as known"]
    hand: Annotated[list[str], "this seat's hand, sorted"]
    hand_sizes: Annotated[list[int], "per seat, cards in hand"]
    hand_counts: Annotated[list[list[int]],
                           "per seat, [troops, tactics] in hand (public: every draw names "
                           "its deck)"]
    opponent_known: Annotated[list[str],
                              "cards this seat knows in the other hands (it put them back with "
                              "Scout and an opponent drew them)"]
    known_by_opponent: Annotated[list[str],
                                 "cards of this seat's hand an opponent knows (returned by it, "
                                 "then drawn by this seat)"]
    phase: Annotated[Phase, "the step of the current turn"]
    turn: Annotated[int, "the seat whose turn it is"]
    fog_ply: Annotated[int, "the decision at which Fog was played, -1 if it is not down"]
    mud_ply: Annotated[int, "the decision at which Mud was played, -1 if it is not down"]
    tactics_played: Annotated[list[int], "per seat, tactics cards played (the tactics limit)"]
    leader_played: Annotated[list[bool], "per seat, whether it has played a leader"]
    passes: Annotated[int, "consecutive passing turns with no claim between (all pass: the "
                           "game ends)"]
    passed: Annotated[bool, "whether the player to move passed this turn (no draw follows)"]
    scouted: Annotated[bool, "whether the player to move played Scout this turn"]
    scout_draws: Annotated[int, "Scout draws still to take"]
    scout_returns: Annotated[int, "Scout put-backs still to make"]
    end: Annotated[str | None,
                   "null while the game runs, then how it ended (normal, stalemate, move_cap)"]
    winner: Annotated[int, "the winning seat, -1 if none (yet)"]
    reason: Annotated[str, "why the game ended, empty while it runs"]
    claimable: Annotated[list[int], "in the claim phase, the flags the player to move may claim"]
    events: Annotated[list[Event],
                      "what happened since this seat last decided, oldest first: every "
                      "decision of the others (and the automatic draws), in public form; a "
                      "Scout put-back reads \"scout-return troops\" or \"scout-return tactics\" "
                      "(the deck, not the card); a draw names the deck, never the card"]
    known_in_hands: NotRequired[Annotated[list[list[str]],
                                          "three players only: per seat, the cards of that hand "
                                          "this seat knows (its own entry empty)"]]
    known_by: NotRequired[Annotated[list[list[str]],
                                    "three players only: per seat, the cards of this "
                                    "seat's hand that seat knows (its own entry empty)"]]
    deck_tops_by: NotRequired[Annotated[DeckTopsBy, "three players only: who put back each "
                                                   "card of deck_tops"]]
