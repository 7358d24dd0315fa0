"""Every function of the product (and of the bench beside it) is under 100 lines
(docs/architecture.md): a longer one is split into well-named parts. Lines are counted from
the ``def`` (its decorators not included) to its last line, docstring and comments included."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "games", "agents", "bench")
LIMIT = 100  # lines a function may have at most


def long_functions(root: Path, limit: int = LIMIT) -> list[str]:
    """``path:line name (N lines)`` for every function under ``root`` longer than ``limit``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} "
                                 f"({lines} lines)")
    return found


def test_no_function_of_the_product_reaches_100_lines() -> None:
    found = [line for package in PACKAGES for line in long_functions(ROOT / package)]
    assert not found, ("split these into well-named parts of at most "
                       f"{LIMIT} lines: " + "; ".join(found))


def test_the_count_finds_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{k} = {k}" for k in range(LIMIT))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        f"class C:\n    async def long(self):\n{body.replace('    ', '        ')}\n\n"
        f"def short():\n{body[: body.index(chr(10))]}\n")
    assert long_functions(tmp_path / "pkg") == ["pkg/m.py:2 long (101 lines)"]
