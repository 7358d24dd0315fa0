"""The harness's rooms and the one-way arrows between them (docs/architecture.md).

Every import in the source counts, including those inside functions and under
``TYPE_CHECKING``: a lazy import is still an arrow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Lowest first: a module may import its own room and the rooms below it, never one above.
LAYERS = ["records", "stats", "bots", "match", "envs", "run", "league", "figures", "arena", "serve",
          "api", "cli"]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(p for p in parts if p != "__init__")


def modules(package: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}


def imported(path: Path, name: str, known: set[str] | None = None) -> Iterator[str]:
    """Every module name ``path`` imports (relative imports made absolute). ``from P import x``
    names the module ``P.x`` when ``known`` holds it (a submodule), else ``P``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if known is not None and sub in known else base


def graph(package: str) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports."""
    mods = modules(package)
    return {name: {t for t in imported(path, name, set(mods)) if t in mods and t != name}
            for name, path in mods.items()}


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "records"  # the root package is part of the kernel


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles (strongly connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_module_lives_in_a_known_room() -> None:
    rooms = {room(m) for m in modules("harness")}
    assert rooms <= set(LAYERS), f"place these rooms in LAYERS: {sorted(rooms - set(LAYERS))}"


def test_arrows_point_down() -> None:
    upward = [f"{src} imports {dst}" for src, targets in graph("harness").items()
              for dst in sorted(targets)
              if LAYERS.index(room(dst)) > LAYERS.index(room(src))]
    assert not upward, "imports that point up the arrows " + " > ".join(LAYERS[::-1]) + \
        ":\n" + "\n".join(upward)


def test_the_harness_has_no_import_cycle() -> None:
    assert cycles(graph("harness")) == []


def test_the_games_have_no_import_cycle() -> None:
    """Inside a game package the modules above the state (codec, observe, explain, render,
    setup, tactics) import it; the state reaches them through what the package hands it
    (``state.PARTS``), never by importing them, not even lazily or for type checking."""
    assert cycles(graph("games")) == []
    for game in ("battleline", "warchest"):
        state = f"games.{game}.state"
        above = {name for name, targets in graph("games").items() if state in targets}
        assert {f"games.{game}.codec", f"games.{game}.observe", f"games.{game}.explain"} <= above
        assert not above & graph("games")[state]


def test_games_import_nothing_of_ours_and_the_bot_runner_only_the_stdlib() -> None:
    ours = ("harness", "agents", "tests")
    leaks = [f"{name} imports {target}" for name, path in modules("games").items()
             for target in imported(path, name) if target.split(".")[0] in ours]
    assert not leaks
    for program in ("runner", "forkserver"):  # they run in the jail from /tourney, alone
        path = ROOT / "harness" / "bots" / f"{program}.py"
        assert not [t for t in imported(path, f"harness.bots.{program}")
                    if t.split(".")[0] in (*ours, "games")]


def test_the_product_imports_nothing_of_the_bench() -> None:
    """The bench (``bench/``, ``make bench``) measures the product from outside: it is not
    installed with it, and nothing installed imports it."""
    leaks = [f"{name} imports {target}" for package in ("games", "harness", "agents")
             for name, path in modules(package).items()
             for target in imported(path, name) if target.split(".")[0] == "bench"]
    assert not leaks


def test_the_checks_catch_a_cycle_and_an_upward_arrow() -> None:
    edges = {"harness.bots.a": {"harness.bots.b"}, "harness.bots.b": {"harness.bots.a"},
             "harness.match.m": set()}
    assert cycles(edges) == [["harness.bots.a", "harness.bots.b"]]
    assert LAYERS.index(room("harness.cli.app")) > LAYERS.index(room("harness.league.store"))
    assert room("harness.records") == room("harness") == "records"
