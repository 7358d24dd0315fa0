"""Every command's `--help` reads well in an 80-column terminal: plain text wrapped at word
boundaries, a value's name instead of typer's type labels (no `<bool>`), each option's help a
whole sentence, the commands listed with whole sentences, the `--sprt` help complete."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from harness.cli.app import app
from harness.cli.sprt import SPRT_EXAMPLE

runner = CliRunner()


def command_paths() -> Iterator[list[str]]:
    group = typer.main.get_command(app)
    ctx = typer.Context(group)

    def walk(command: object, path: list[str]) -> Iterator[list[str]]:
        yield path
        sub = getattr(command, "commands", {})
        for name in sorted(sub):
            yield from walk(sub[name], [*path, name])

    del ctx
    yield from walk(group, [])


PATHS = list(command_paths())


def help_of(path: list[str]) -> str:
    result = runner.invoke(app, [*path, "--help"], terminal_width=80, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.stdout


def entries(text: str, section: str) -> dict[str, str]:
    """A help section's rows: the row's first word -> its whole help, lines joined."""
    rows: dict[str, str] = {}
    inside = False
    key = ""
    for line in text.splitlines():
        if line.endswith(":") and not line.startswith(" "):
            inside = line == f"{section}:"
            continue
        if not inside or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 2:
            head, _, tail = line.strip().partition("  ")
            key = head.split(", ")[-1].split(" ")[0]
            rows[key] = tail.strip()
        else:
            rows[key] += " " + line.strip()
    return rows


def test_every_command_is_seen() -> None:
    names = {" ".join(p) for p in PATHS}
    assert {"", "play", "validate", "league", "gauntlet", "ladder", "arena run",
            "serve-admin settings"} <= names


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "tourney")
def test_a_help_fits_80_columns_and_shows_no_type_labels(path: list[str]) -> None:
    text = help_of(path)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "<bool>" not in text
    assert not re.search(r"<(str|int|float|path|list)[^>]*>", text), text
    assert "╭" not in text  # no boxes: plain text


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "tourney")
def test_every_help_row_is_whole(path: list[str]) -> None:
    """No option's help stops mid-sentence; no command's summary is cut short with '...'."""
    text = help_of(path)
    for name, said in entries(text, "Options").items():
        said = re.sub(r"(\s*\[[^\]]*\])+$", "", said)  # [default: ...], [required], [x>=1]
        assert said.endswith((".", ".)")), f"{name}: {said!r}"
    for name, said in entries(text, "Commands").items():
        assert said.endswith("."), f"{name}: {said!r}"
        assert not said.endswith("..."), f"{name}: {said!r}"


def test_the_sprt_help_is_complete_and_its_example_parses() -> None:
    from harness.stats.sprt import SPEC_HELP, parse_sprt

    said = entries(help_of(["gauntlet"]), "Options")["--sprt"]
    assert SPRT_EXAMPLE in said and said.endswith("(default model=normalized)."), said
    for key in re.findall(r"(\w+)=", SPEC_HELP):  # every key the parser reads is named
        assert f"{key}=" in said, key
    assert parse_sprt(SPRT_EXAMPLE).elo1 == 10
    assert parse_sprt(SPRT_EXAMPLE + ",model=logistic").model == "logistic"
    assert entries(help_of(["league"]), "Options")["--sprt"] == said


def test_a_limit_reads_its_unit_and_default() -> None:
    text = help_of(["play"])
    assert "--memory-mb MB" in text and "--move-time SECONDS" in text
    assert entries(text, "Options")["--memory-mb"] == (
        "Memory of a bot and all its processes, in MB (default 1024).")


def test_the_constants_the_help_shows_are_the_ones_used() -> None:
    import inspect

    from harness.cli.league import CALIBRATION_GAMES, LADDER_GAMES
    from harness.cli.options import LeagueOptions
    from harness.league import BATCH_SIZE, ladder_table
    from harness.league.ladder import DEFAULT_GAMES
    from harness.league.store import ResultsStore

    stored = inspect.signature(ResultsStore.__init__).parameters["batch_size"].default
    assert (LeagueOptions().batch_size, stored) == (BATCH_SIZE, BATCH_SIZE)
    assert LADDER_GAMES == DEFAULT_GAMES
    assert CALIBRATION_GAMES == ladder_table.CALIBRATION_GAMES
