"""Name and alias -> game.

Games register lazily (by module path) so that ``import games.registry`` stays cheap and the CLI
answers ``--help`` quickly. An alias may carry a variant preset: ``schotten-totten`` is Battle
Line with the Schotten-Totten rules selected.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from games.protocol import Game, GameError, VariantError


class UnknownGame(GameError, LookupError):
    """No game is registered under that name."""


@dataclass(frozen=True)
class Entry:
    name: str
    module: str  # module exposing a module-level ``GAME`` object
    aliases: dict[str, dict[str, str]] = field(default_factory=dict)  # alias -> variant preset


_ENTRIES: dict[str, Entry] = {}
_LOADED: dict[str, Game] = {}


def register(name: str, module: str, aliases: dict[str, dict[str, str]] | None = None) -> None:
    """Register a game by module path (the module defines ``GAME``)."""
    _ENTRIES[name] = Entry(name, module, dict(aliases or {}))
    _LOADED.pop(name, None)


def register_game(game: Game, aliases: dict[str, dict[str, str]] | None = None) -> None:
    """Register an already-built game object (used by tests and plug-ins)."""
    name = game.info.name
    _ENTRIES[name] = Entry(name, "", dict(aliases or {}))
    _LOADED[name] = game


def unregister(name: str) -> None:
    _ENTRIES.pop(name, None)
    _LOADED.pop(name, None)


def names() -> list[str]:
    """Registered game names (not aliases), sorted."""
    return sorted(_ENTRIES)


def aliases(name: str) -> list[str]:
    """The aliases of the game registered as ``name``."""
    return list(_ENTRIES[name].aliases)


def _canon(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def resolve(name: str) -> tuple[Game, dict[str, str]]:
    """Look up a name or alias: the game and the variant preset the alias implies.

    Case, spaces, hyphens and underscores are ignored: ``Battle_Line`` finds ``battleline``.
    """
    key = _canon(name)
    for entry in _ENTRIES.values():
        if key == _canon(entry.name):
            return load(entry.name), {}
        for alias, preset in entry.aliases.items():
            if key == _canon(alias):
                return load(entry.name), dict(preset)
    known = ", ".join(sorted([*_ENTRIES, *(a for e in _ENTRIES.values() for a in e.aliases)]))
    raise UnknownGame(f"unknown game {name!r}; known games: {known}")


def parse_variants(items: Iterable[str]) -> dict[str, str]:
    """``["key=value", ...]`` (the ``--variant`` options) -> a dict; a malformed item raises
    :class:`~games.protocol.VariantError` naming it.

    >>> parse_variants(["rules = advanced", "players=4"])
    {'rules': 'advanced', 'players': '4'}
    """
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise VariantError(f"--variant expects key=value, got {item!r} "
                               f"(e.g. --variant rules=standard)")
        out[key.strip()] = value.strip()
    return out


def choose(name: str, options: Mapping[str, str] | None = None) -> tuple[Game, dict[str, str]]:
    """The game behind a name or alias and its full, checked variant: the game's defaults,
    then the alias's preset, then ``options``. Raises :class:`UnknownGame` or
    :class:`~games.protocol.VariantError`.

    >>> game, variant = choose("schotten-totten")
    >>> game.info.name, variant["rules"]
    ('battleline', 'schotten-totten')
    """
    game, preset = resolve(name)
    return game, game.info.resolve_variant({**preset, **(options or {})})


def get(name: str) -> Game:
    """The game registered under ``name`` or one of its aliases."""
    return resolve(name)[0]


def load(name: str) -> Game:
    if name not in _LOADED:
        entry = _ENTRIES[name]
        module = importlib.import_module(entry.module)
        _LOADED[name] = module.GAME
    return _LOADED[name]


# The built-in games. Each module defines GAME.
register(
    "battleline",
    "games.battleline",
    aliases={
        "battle-line": {},
        "bl": {},
        "schotten-totten": {"rules": "schotten-totten"},
    },
)
register("warchest", "games.warchest", aliases={"war-chest": {}, "wc": {}})
