"""The game protocol every tourney game implements.

A game is a module-level object satisfying :class:`Game`; its positions satisfy :class:`State`.
The harness only ever talks to games through these two protocols, so a new game plugs into
leagues, the referee, the conformance suite and the CLI by registering itself in
:mod:`games.registry`.

Rules of the protocol (checked by :func:`games.conformance.check_game`):

* A state is a pure function of ``(seed, variant, history)``: ``new_game(seed, **variant)``
  followed by ``apply`` of every action in ``history`` rebuilds an equal state.
* ``legal_actions()`` is sorted, unique, non-empty while the game runs, and every entry parses.
* ``apply`` of a malformed string raises :class:`InvalidAction`; of a well-formed action that is
  not legal now, :class:`IllegalAction`. Both name the action and the reason.
* ``observation(seat)`` is JSON-serialisable and holds exactly what ``seat`` may know.
* ``game.sample_state(observation, rng)`` returns a full state that gives back the same
  observation for that seat: the forward model search bots need.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol, TypedDict, runtime_checkable

JSON = dict[str, Any]


class Event(TypedDict):
    """One entry of an observation's ``events``: the public part of something that happened
    since the observing seat last decided (see docs/observation.md)."""

    seat: Annotated[int, "the seat that decided (or, automatic, the seat it happened to)"]
    action: Annotated[str, "the action as every seat sees it: the action string itself, or its "
                           "public form when part of it is hidden (the game's page says which)"]
    auto: Annotated[bool, "true for what the rules did without a decision (a forced draw), "
                          "false for a decision"]


class GameError(Exception):
    """Base class of every rules-level error."""


class InvalidAction(GameError, ValueError):
    """The action string is malformed: it does not parse in this game's notation."""


class IllegalAction(GameError, ValueError):
    """The action parses but is not legal in the current position."""


class VariantError(GameError, ValueError):
    """An unknown variant key or a value outside its choices."""


class GameEnd(enum.Enum):
    """How a game ended on the board (the referee adds forfeits on top of these)."""

    NORMAL = "normal"  # someone won by the rules
    STALEMATE = "stalemate"  # the rules' own draw (e.g. both players pass)
    MOVE_CAP = "move_cap"  # the decision cap was reached: a draw by adjudication


@dataclass(frozen=True)
class Variant:
    """One selectable rules option: ``--variant key=value``."""

    key: str
    default: str
    choices: tuple[str, ...]
    help: str = ""
    # Left out of the resolved variant while at its default: an option added to a game later
    # leaves the variant (and so the records, leagues and golden files) of its existing games
    # unchanged.
    implicit: bool = False


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game, copied into every result row."""

    name: str  # registry name, e.g. "battleline"
    title: str  # human title, e.g. "Battle Line"
    rules_version: str  # bump whenever a rules change could change a game's outcome
    players: tuple[int, ...]  # the player counts the game supports
    max_decisions: int  # hard cap on decisions; reaching it is a draw by adjudication
    variants: tuple[Variant, ...] = ()
    # Per player count, the team of each seat (seats with the same number play together);
    # a count not listed has no teams: every seat plays for itself.
    teams: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    # What one seat alone may see of itself, for the views of a replay: each observation key
    # holding a seat's own hidden things (a hand), with the key holding every seat's count of
    # them (what the others see instead). The all-seeing view shows every seat's; a seat's
    # view its own and the others' counts.
    private: Mapping[str, str] = field(default_factory=dict)
    # Observation keys about the observing seat's own knowledge (what it knows of the others'
    # cards, its events): left out of the all-seeing view.
    seat_keys: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for players, seating in self.teams.items():
            if len(seating) != players:
                raise ValueError(f"{self.name}: teams for {players} players name "
                                 f"{len(seating)} seats")

    def sides_of(self, players: int) -> list[list[int]]:
        """The seats of each side in a game of ``players``: two sides make a pairing (a side
        may be a team of several seats), three or more a free-for-all.

        >>> GameInfo("g", "G", "1", (2, 4), 10, teams={4: (0, 1, 0, 1)}).sides_of(4)
        [[0, 2], [1, 3]]
        >>> GameInfo("g", "G", "1", (3,), 10).sides_of(3)
        [[0], [1], [2]]
        """
        sides: dict[int, list[int]] = {}
        for seat, team in enumerate(self.teams_of(players)):
            sides.setdefault(team, []).append(seat)
        return list(sides.values())

    def teams_of(self, players: int) -> tuple[int, ...]:
        """The team of each seat in a game of ``players`` (one team per seat without teams).

        >>> GameInfo("g", "G", "1", (2, 4), 10, teams={4: (0, 1, 0, 1)}).teams_of(4)
        (0, 1, 0, 1)
        >>> GameInfo("g", "G", "1", (2, 4), 10).teams_of(2)
        (0, 1)
        """
        return tuple(self.teams.get(players, range(players)))

    def seat_view(self, observation: Mapping[str, Any]) -> JSON:
        """What one seat sees, as the replay and the human seat draw it, made from that seat's
        observation alone: each private key (``hand``) becomes its plural (``hands``), one
        entry per seat: the seat's own things, and the others' counts of theirs.

        >>> info = GameInfo("g", "G", "1", (2,), 10, private={"hand": "hand_count"})
        >>> info.seat_view({"seat": 1, "hand": [3], "hand_count": [2, 1]})
        {'seat': 1, 'hand_count': [2, 1], 'hands': [2, [3]]}
        """
        seat = observation["seat"]
        view = {k: v for k, v in observation.items() if k not in self.private}
        for key, count in self.private.items():
            counts = observation[count]
            view[key + "s"] = [observation[key] if t == seat else counts[t]
                               for t in range(len(counts))]
        return view

    def truth_view(self, observations: Sequence[Mapping[str, Any]]) -> JSON:
        """The all-seeing view of a position, from every seat's observation: every seat's
        private things (``hands``), without any one seat's own knowledge (:attr:`seat_keys`).

        >>> info = GameInfo("g", "G", "1", (2,), 10, private={"hand": "hand_count"},
        ...                 seat_keys=frozenset({"seat"}))
        >>> info.truth_view([{"seat": 0, "hand": [1], "hand_count": [1, 2]},
        ...                  {"seat": 1, "hand": [2, 3], "hand_count": [1, 2]}])
        {'hand_count': [1, 2], 'seat': None, 'hands': [[1], [2, 3]]}
        """
        hidden = set(self.private) | set(self.seat_keys)
        truth = {k: v for k, v in observations[0].items() if k not in hidden}
        truth["seat"] = None
        for key in self.private:
            truth[key + "s"] = [o[key] for o in observations]
        return truth

    def variant(self, key: str) -> Variant:
        for v in self.variants:
            if v.key == key:
                return v
        known = ", ".join(v.key for v in self.variants) or "none"
        raise VariantError(f"{self.name} has no variant {key!r} (known: {known})")

    def resolve_variant(self, options: Mapping[str, str] | None = None) -> dict[str, str]:
        """Validate ``options`` and fill in defaults: the full, canonical variant dict."""
        options = dict(options or {})
        out: dict[str, str] = {}
        for v in self.variants:
            value = str(options.pop(v.key, v.default)).strip().lower()
            if value not in v.choices:
                raise VariantError(
                    f"{self.name} variant {v.key}={value!r} is not allowed; "
                    f"choose one of: {', '.join(v.choices)}"
                )
            if not (v.implicit and value == v.default):
                out[v.key] = value
        if options:
            self.variant(next(iter(options)))  # raises with the list of known keys
        return out


@runtime_checkable
class State(Protocol):
    """A full game position, as the referee holds it."""

    seed: int
    variant: dict[str, str]
    history: list[str]  # every action applied so far, in order

    @property
    def num_players(self) -> int: ...

    @property
    def current_player(self) -> int:
        """The seat that must decide now; -1 once the game is over."""
        ...

    def legal_actions(self) -> list[str]:
        """The actions the seat to move may take now: sorted, unique, empty once the game is
        over."""
        ...

    def apply(self, action: str) -> None:
        """Play one decision of the seat to move, in place: InvalidAction if the string does
        not parse, IllegalAction if it is not legal now (the state is then unchanged)."""
        ...

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        ...

    def returns(self) -> list[float]:
        """Per seat: 1 win, -1 loss, 0 draw (team games: the team's result for each member;
        games of three or more sides: from the final ranking, in between for middle places)."""
        ...

    def scores(self) -> list[float]:
        """Per seat game points (Battle Line series points; War Chest markers placed)."""
        ...

    def end(self) -> tuple[GameEnd, str] | None:
        """How the game ended and a readable reason, or None while it runs."""
        ...

    def clone(self) -> State:
        """An independent copy: playing on it leaves this state unchanged (cheap: search bots
        clone at every node)."""
        ...

    def observation(self, seat: int) -> JSON:
        """What ``seat`` may know, as JSON: what a bot gets (docs/observation.md)."""
        ...

    def to_json(self) -> JSON: ...


class Game(Protocol):
    """A registered game: the factory of its states."""

    info: GameInfo

    def new_game(self, seed: int, **variant: str) -> State:
        """A new game dealt from ``seed`` with these rules options."""
        ...

    def state_from_json(self, data: JSON) -> State: ...

    def sample_state(self, observation: JSON, rng: random.Random) -> State:
        """A full state consistent with ``observation``: what that seat cannot see dealt at
        random from ``rng``, so that the state gives that seat back the same observation
        (events included). The forward model of a search bot."""
        ...

    # Optional: ``board(players) -> JSON``, the static drawing data of the game's board for
    # the replay viewer (War Chest's hexes); a game without it is drawn from its views alone.


@dataclass
class Outcome:
    """A compact summary of a finished game (helper for callers)."""

    returns: list[float]
    scores: list[float]
    end: GameEnd
    reason: str
    decisions: int
    extra: JSON = field(default_factory=dict)


def outcome(state: State) -> Outcome:
    """Summarise a terminal state."""
    ended = state.end()
    if ended is None:
        raise GameError("the game is not over yet")
    return Outcome(
        returns=list(state.returns()),
        scores=list(state.scores()),
        end=ended[0],
        reason=ended[1],
        decisions=len(state.history),
    )


def winners(returns: Sequence[float]) -> list[int]:
    """The seats holding the best return; empty when every seat has the same (a draw).

    In a team game both members of the winning team are listed.
    """
    best = max(returns)
    if all(r == best for r in returns):
        return []
    return [i for i, r in enumerate(returns) if r == best]
