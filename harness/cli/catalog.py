"""`tourney games` and `tourney bench`: what can be played, and how fast."""

from __future__ import annotations

from typing import Annotated

import typer

from harness.cli.options import fail


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


def bench_cmd(
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help="Run only these sections (repeatable), e.g. battleline."),
    ] = None,
    quick: Annotated[bool, typer.Option(help="Shorter runs, rougher figures.")] = False,
) -> None:
    """Print the benchmark figures: engines, sandbox round trips, league throughput."""
    from harness.bench import SECTIONS, run_sections

    unknown = [s for s in only or [] if s not in SECTIONS]
    if unknown:
        fail(f"unknown bench section {unknown[0]!r}; choose from {', '.join(SECTIONS)}")
    run_sections(only or [], quick=quick)
