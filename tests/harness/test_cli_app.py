"""The command line's own surface: --version, `tourney games`, `tourney bench`, and the one
place where errors become an exit status."""

from __future__ import annotations

import re
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from games import registry
from harness.cli.app import app
from harness.league.config import StoreError
from harness.records import TourneyError

runner = CliRunner()
FIGURE = re.compile(r"^  [^:]+: [\d,]+\.\d \S+( .*)?$")


def test_version_prints_the_installed_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"tourney {version('tourney-harness')}\n"


def test_games_lists_every_game_its_aliases_and_variants() -> None:
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for name in registry.names():
        info = registry.load(name).info
        head = next(line for line in lines if line.startswith(f"{name} ("))
        assert f"rules {info.rules_version}" in head
        assert all(alias in head for alias in registry.aliases(name))
        for variant in info.variants:
            assert any(line.startswith(f"  --variant {variant.key}=") and
                       f"(default {variant.default})" in line for line in lines)
    assert "schotten-totten" in next(line for line in lines if line.startswith("battleline"))


def test_bench_runs_a_quick_section_and_prints_figures() -> None:
    result = runner.invoke(app, ["bench", "--only", "league", "--quick"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    # first which engines run compiled (the figures depend on it), then the section: compiled
    # where make built them (its stamp), from their sources where it did not (no compiler)
    built = (Path(sys.prefix) / ".native").exists()
    how = "compiled" if built else "from sources (not compiled: make setup builds it)"
    assert lines[0] == f"engines: battleline {how}; warchest {how}"
    assert lines[1] == "[league]" and lines[-1].startswith("  (section took ")
    figures = [line for line in lines if FIGURE.match(line)]
    names = [line.split(":")[0].strip() for line in figures]
    assert {"bare engine loop", "league in-process", "league, 2 workers"} <= set(names)
    assert all(float(line.split(": ")[1].split()[0].replace(",", "")) > 0 for line in figures)


def test_bench_names_the_sections_when_one_is_unknown() -> None:
    result = runner.invoke(app, ["bench", "--only", "nosuch"])
    assert result.exit_code == 2
    assert result.stderr == ("tourney: error: unknown bench section 'nosuch'; choose from "
                             "battleline, warchest, mcts, sandbox, league, eta, cluster, stats, "
                             "matchmaking, arena, serve, startup\n")


@pytest.mark.parametrize("error", [TourneyError("the message"), StoreError("the message")])
def test_a_tourney_error_anywhere_is_one_line_and_its_exit_code(
        error: TourneyError, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> list[str]:
        raise error

    monkeypatch.setattr(registry, "names", broken)
    result = runner.invoke(app, ["games"])
    assert result.exit_code == error.exit_code == 2
    assert result.stderr == "tourney: error: the message\n"
