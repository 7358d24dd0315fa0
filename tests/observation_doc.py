"""docs/observation.md, generated from the observation schemas and from real games.

``python -m tests.observation_doc`` (``make docs``) rewrites the page;
``tests/test_observation_doc.py`` regenerates it in memory and fails if the file differs, so the
page cannot drift from the code. The tables come from the ``TypedDict`` schemas
(:mod:`games.battleline.schema`, :mod:`games.warchest.schema`: each key's type and meaning),
the state methods from the docstrings of :mod:`games.protocol`, and every example is the
observation of a seeded random game, printed as the bot receives it.

:func:`problems` checks a value against a schema type (the tests run it on every observation
of random games).
"""

from __future__ import annotations

import functools
import inspect
import json
import random
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NotRequired, Required, get_args, get_origin, get_type_hints

from games import registry
from games.battleline.schema import BattleLineObservation
from games.protocol import Event, Game, State
from games.warchest.schema import WarChestObservation

PAGE = Path(__file__).resolve().parent.parent / "docs" / "observation.md"

#: (title, schema) of each game, in page order.
SCHEMAS: list[tuple[str, str, type]] = [
    ("Battle Line", "battleline", BattleLineObservation),
    ("War Chest", "warchest", WarChestObservation),
]


@dataclass(frozen=True)
class Example:
    """A printed example: the observation of the seat to move at the first start of a turn
    at or after decision ``after`` of a seeded random game."""

    title: str
    game: str
    seed: int
    variant: dict[str, str]
    after: int


EXAMPLES = [
    Example("Battle Line, 2 players", "battleline", 3, {}, 24),
    Example("Battle Line, 3 players", "battleline", 5, {"players": "3"}, 36),
    Example("War Chest, 2 players", "warchest", 9, {}, 30),
    Example("War Chest, 4 players", "warchest", 35, {"players": "4"}, 40),
]


# ---------------------------------------------------------------------- reading the schemas

@functools.cache
def fields(schema: type) -> list[tuple[str, Any, str, bool]]:
    """``(key, type, meaning, required)`` of every key of a TypedDict schema, in order."""
    hints = get_type_hints(schema, include_extras=True)
    out = []
    for key, hint in hints.items():
        # (read from the hint: with postponed annotations __required_keys__ misses NotRequired)
        required = get_origin(hint) is not NotRequired
        tp, doc = _unwrap(hint)
        out.append((key, tp, doc, required))
    return out


def _unwrap(hint: Any) -> tuple[Any, str]:
    """The bare type and the meaning of a field (NotRequired and Annotated taken off)."""
    while get_origin(hint) in (NotRequired, Required):
        hint = get_args(hint)[0]
    if get_origin(hint) is typing.Annotated:
        tp, *extras = get_args(hint)
        return tp, str(extras[0]) if extras else ""
    return hint, ""


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing.is_typeddict(tp)


def _nested(schema: type, found: list[type]) -> list[type]:
    """Every TypedDict a schema uses, depth first, each once."""
    def walk(tp: Any) -> None:
        if _is_typeddict(tp):
            if tp not in found:
                found.append(tp)
                for _, sub, _, _ in fields(tp):
                    walk(sub)
            return
        for arg in get_args(tp):
            walk(arg)
    walk(schema)
    return found


def type_text(tp: Any) -> str:
    """A type as the page writes it."""
    if tp is type(None) or tp is None:
        return "null"
    simple = {int: "int", str: "string", bool: "bool", float: "number"}
    if tp in simple:
        return simple[tp]
    if _is_typeddict(tp):
        return f"[{tp.__name__}](#{tp.__name__.lower()})"
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return " or ".join(json.dumps(a) for a in args)
    if origin is list:
        return f"list of {type_text(args[0])}"
    if origin is tuple:
        return "[" + ", ".join(type_text(a) for a in args) + "]"
    if origin is dict:
        return f"object {{{type_text(args[0])}: {type_text(args[1])}}}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_text(a) for a in args)
    raise TypeError(f"no text for type {tp!r}")


def problems(value: Any, tp: Any, path: str = "observation") -> list[str]:
    """Where ``value`` does not match the schema type ``tp`` (empty: it matches). A TypedDict
    must have every required key, no key it does not declare, and each value of its type."""
    if tp is type(None) or tp is None:
        return [] if value is None else [f"{path}: {value!r} is not null"]
    if tp is bool:
        return [] if isinstance(value, bool) else [f"{path}: {value!r} is not a bool"]
    if tp in (int, float, str):
        ok = isinstance(value, tp) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not {tp.__name__}"]
    if _is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not an object"]
        out = []
        declared = {key: (sub, required) for key, sub, _, required in fields(tp)}
        for key in value:
            if key not in declared:
                out.append(f"{path}: key {key!r} is not in the schema {tp.__name__}")
        for key, (sub, required) in declared.items():
            if key in value:
                out += problems(value[key], sub, f"{path}.{key}")
            elif required:
                out.append(f"{path}: key {key!r} of {tp.__name__} is missing")
        return out
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} is not one of {args}"]
    if origin in (typing.Union, types.UnionType):
        return [] if any(not problems(value, a, path) for a in args) else [
            f"{path}: {value!r} matches none of {type_text(tp)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {value!r} is not a list"]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{path}[{i}]")]
    if origin is tuple:
        if not isinstance(value, list | tuple) or len(value) != len(args):
            return [f"{path}: {value!r} is not a list of {len(args)}"]
        return [p for i, (v, a) in enumerate(zip(value, args, strict=True))
                for p in problems(v, a, f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not an object"]
        return [p for k, v in value.items()
                for p in problems(k, args[0], f"{path} key") + problems(v, args[1],
                                                                        f"{path}[{k!r}]")]
    raise TypeError(f"cannot check against {tp!r}")


# ---------------------------------------------------------------------- examples

def example_state(ex: Example) -> State:
    """The state of an example: random play (``random.Random(seed)``) up to the first start of
    a turn at or after decision ``after``."""
    game = registry.get(ex.game)
    state = game.new_game(ex.seed, **game.info.resolve_variant(ex.variant))
    rng = random.Random(ex.seed)
    while True:
        if len(state.history) >= ex.after and _turn_starts(state):
            return state
        state.apply(rng.choice(state.legal_actions()))


def _turn_starts(state: State) -> bool:
    obs = state.observation(state.current_player)
    if obs["game"] == "battleline":
        return bool(obs["phase"] == "play" and not obs["claimable"])
    return bool(obs["phase"] == "play" and not obs["pending"])


def render_observation(obs: dict[str, Any]) -> str:
    """JSON as the bot receives it, laid out one key per line (lists of objects: one per
    line)."""
    lines = ["{"]
    items = list(obs.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"  {json.dumps(key)}: [")
            for j, v in enumerate(value):
                lines.append(f"    {json.dumps(v)}{',' if j < len(value) - 1 else ''}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the page

INTRO = """\
# What a bot sees

<!-- generated by `python -m tests.observation_doc` (`make docs`) from games/*/schema.py,
games/protocol.py and real games; tests/test_observation_doc.py fails if this page differs -->

Every decision, a bot gets `act(observation, legal_actions)`: `legal_actions` is the sorted list
of action strings it may answer (the notation is in docs/rules/), and `observation` is a JSON
object holding exactly what its seat may know. This page lists every key of each game's
observation, with its type and meaning, and prints one observation of each game, taken from a
seeded random game. The schemas are `TypedDict`s in `games/battleline/schema.py` and
`games/warchest/schema.py`; the tests check every observation of random games of every variant
against them (no key missing, none undeclared, every value of its type).

## Events: what happened since you last decided

`events` lists, oldest first, everything that happened since this seat's previous decision (its
own decisions are not repeated, what the rules did for it since are: a forced draw; on a seat's
first decision, everything since the start). Each
entry names the seat and the action as every seat saw it, so a bot keeping its own picture of
the game applies the events to what it knew instead of comparing two observations. Hidden parts
stay hidden: a Battle Line Scout put-back shows only the deck (`scout-return troops`), a draw
names the deck and never the card, and a War Chest face-down payment shows that it was made and
what for, with `?` for the coin (`? recruit archer`). The events are the same for every seat
(each seat sees the part after its own last decision), so they reveal nothing one seat could see
and another could not. `sample_state` keeps them: a sampled state shows the observer the same
events.
"""

METHODS_INTRO = """\
## The forward model

A search bot imports the game (`from games import registry; game = registry.get("battleline")`)
and plays ahead on full states it deals from what it sees. These are the methods it uses
(`games/protocol.py`):
"""

METHODS: list[tuple[type, str]] = [
    (Game, "sample_state"), (State, "clone"), (State, "legal_actions"), (State, "apply"),
    (State, "returns"), (State, "current_player"), (State, "is_terminal"),
    (State, "observation"), (Game, "new_game"),
]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _table(schema: type) -> list[str]:
    doc = inspect.getdoc(schema) or ""
    lines = [f"### {schema.__name__}", "", doc, "", "| key | type | meaning |", "|---|---|---|"]
    for key, tp, meaning, required in fields(schema):
        name = f"`{key}`" if required else f"`{key}` (optional)"
        lines.append(f"| {name} | {_cell(type_text(tp))} | {_cell(meaning)} |")
    return [*lines, ""]


def _method(owner: type, name: str) -> str:
    member = inspect.getattr_static(owner, name)
    func: Any = member.fget if isinstance(member, property) else member
    doc = " ".join((inspect.getdoc(func) or "").split())
    if isinstance(member, property):
        return f"- `state.{name}` (property): {doc}"
    sig = str(inspect.signature(func)).replace("(self, ", "(").replace("(self)", "()")
    sig = sig.replace("'", "")
    who = "game" if owner is Game else "state"
    return f"- `{who}.{name}{sig}`: {doc}"


def page() -> str:
    """The whole page."""
    parts = [INTRO]
    parts += ["### Event", "", inspect.getdoc(Event) or "", "", "| key | type | meaning |",
              "|---|---|---|"]
    parts += [f"| `{k}` | {_cell(type_text(t))} | {_cell(m)} |" for k, t, m, _ in fields(Event)]
    parts.append("")
    for title, _, schema in SCHEMAS:
        parts += [f"## {title}", ""]
        parts += [line for tp in _nested(schema, []) if tp is not Event for line in _table(tp)]
    parts += ["## Examples", ""]
    for ex in EXAMPLES:
        state = example_state(ex)
        seat = state.current_player
        variant = " ".join(f"{k}={v}" for k, v in sorted(state.variant.items()))
        parts += [f"### {ex.title}", "",
                  f"Seed {ex.seed}, `{variant}`, random play (`random.Random({ex.seed})`): seat "
                  f"{seat}'s observation at decision {len(state.history)}.", "", "```json",
                  render_observation(state.observation(seat)), "```", ""]
    parts.append(METHODS_INTRO)
    parts += [_method(owner, name) for owner, name in METHODS]
    return "\n".join(parts) + "\n"


def main() -> None:
    PAGE.write_text(page())
    print(f"wrote {PAGE}", file=sys.stderr)


if __name__ == "__main__":
    main()
