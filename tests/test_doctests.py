"""The examples in the packages' docstrings run and give what they show."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _modules_with_examples() -> list[str]:
    found = []
    for package in ("games", "harness", "agents"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT).with_suffix("").parts
                found.append(".".join(p for p in parts if p != "__init__"))
    return found


MODULES = _modules_with_examples()


def test_the_core_entry_points_have_examples() -> None:
    core = {"games.conformance", "games.battleline.cards", "harness.league.schedule"}
    assert core <= set(MODULES)


FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    if str(module.__file__).endswith(".py"):
        result = doctest.testmod(module, optionflags=FLAGS)
    else:  # compiled (games.native): its functions keep no docstrings, its source has them
        result = _run_source_examples(module, ROOT.joinpath(*name.split(".")).with_suffix(".py"))
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def _run_source_examples(module: ModuleType, source: Path) -> doctest.TestResults:
    """The examples of every docstring in ``source``, run in the compiled ``module``'s
    namespace, so they exercise the code that actually runs."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text and ">>>" in text:
                where = f"{module.__name__}.{getattr(node, 'name', '')}"
                runner.run(parser.get_doctest(text, dict(module.__dict__), where, str(source),
                                              getattr(node, "lineno", 0)))
    return runner.summarize(verbose=False)
