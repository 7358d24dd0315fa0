"""The command line's own surface: --version, `tourney games`, the bench beside it, and the one
place where errors become an exit status."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from games import registry
from harness.cli.app import app
from harness.league.config import StoreError
from harness.records import TourneyError
from tests.patience import patience

ROOT = Path(__file__).resolve().parents[2]
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


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m bench ARGS`` (what ``make bench`` runs) from the project's root."""
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=patience(600), check=False)


def test_bench_runs_a_quick_section_and_prints_figures() -> None:
    result = _bench("--only", "league", "--quick")
    assert result.returncode == 0, result.stderr
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
    result = _bench("--only", "nosuch")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("bench: error: unknown section 'nosuch'; choose from "
                             "battleline, warchest, mcts, sandbox, league, eta, cluster, stats, "
                             "matchmaking, arena, serve, startup, envs\n")


def test_the_bench_is_no_command_of_tourneys() -> None:
    """The bench measures tourney from outside (``make bench``): ``tourney bench`` is gone."""
    result = runner.invoke(app, ["bench"])
    assert result.exit_code == 2 and "No such command 'bench'" in result.output


@pytest.mark.parametrize("error", [TourneyError("the message"), StoreError("the message")])
def test_a_tourney_error_anywhere_is_one_line_and_its_exit_code(
        error: TourneyError, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> list[str]:
        raise error

    monkeypatch.setattr(registry, "names", broken)
    result = runner.invoke(app, ["games"])
    assert result.exit_code == error.exit_code == 2
    assert result.stderr == "tourney: error: the message\n"
