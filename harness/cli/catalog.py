"""`tourney games`: what can be played."""

from __future__ import annotations

import typer


def games_cmd() -> None:
    """List the registered games, their aliases and variants."""
    from games import registry

    for name in registry.names():
        game = registry.load(name)
        info = game.info
        aliases = ", ".join(registry.aliases(name)) or "-"
        typer.echo(f"{info.name} ({info.title}, rules {info.rules_version}); aliases: {aliases}")
        for v in info.variants:
            typer.echo(f"  --variant {v.key}={'|'.join(v.choices)}  (default {v.default}) {v.help}")
