"""One description per limit: every command that takes limits, the per-bot `@word=value`
parser, the checks, the conversions and the help are made from `records.LIMIT_OPTIONS`."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from harness.cli.app import app
from harness.cli.options import LeagueOptions, LimitChoice, limit_help
from harness.league.limits import LimitError, describe, from_options, split_limits
from harness.records import LIMIT_OPTIONS, Limits

COMMANDS = [["play"], ["validate"], ["league"], ["gauntlet"], ["ladder"], ["arena", "new"],
            ["arena", "run"], ["serve"]]


def click_command(path: list[str]) -> typer.core.TyperCommand:
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return command  # type: ignore[return-value]


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_command_that_takes_limits_takes_each_from_the_table(path: list[str]) -> None:
    options = {opt: p for p in click_command(path).params for opt in p.opts}
    for limit in LIMIT_OPTIONS:
        param = options[f"--{limit.word}"]
        said = getattr(param, "help", None)
        assert (said, param.metavar, param.default) == (limit_help(limit), limit.unit, None)


def test_a_bot_takes_every_limit_by_the_same_word_and_converts_it_once() -> None:
    spec = "x=bot.py@" + ",".join(f"{o.word}={o.minimum * 2 + 16:g}" for o in LIMIT_OPTIONS)
    head, own = split_limits(spec)
    assert head == "x=bot.py"
    assert own == {o.field: o.to_field(o.number(f"{o.minimum * 2 + 16:g}"))
                   for o in LIMIT_OPTIONS}
    assert own["memory_bytes"] == (16 * 2 + 16) << 20
    assert split_limits(f"x=bot.py@{describe(own)}") == (head, own)  # written back as read


def test_the_options_and_the_suffix_agree() -> None:
    given = {"move_time": 0.25, "memory_mb": 512, "cpu_seconds": 9}
    limits = from_options(Limits(), given)
    assert limits == LimitChoice(given).over()
    assert (limits.move_time, limits.memory_bytes, limits.cpu_seconds) == (0.25, 512 << 20, 9)
    _, own = split_limits("b@move-time=0.25,memory-mb=512,cpu-seconds=9")
    assert Limits(**{**Limits().__dict__, **own}) == limits


@pytest.mark.parametrize("limit", LIMIT_OPTIONS, ids=lambda o: o.word)
def test_a_value_below_the_minimum_is_refused_by_both(limit: object) -> None:
    from harness.records import LimitOption

    assert isinstance(limit, LimitOption)
    low = f"{limit.minimum - 1:g}"
    with pytest.raises(LimitError, match=f"give {limit.wanted}"):
        split_limits(f"b.py@{limit.word}={low}")
    with pytest.raises(LimitError, match=f"--{limit.word} {low}: give {limit.wanted}"):
        from_options(Limits(), {limit.name: limit.number(low)})


def test_the_league_commands_share_one_options_object(tmp_path: Path) -> None:
    """`league` and `gauntlet` declare no option of their own but --sprt, --format and
    --mixed-teams (a round robin's only)."""
    league = {p.name for p in click_command(["league"]).params}
    gauntlet = {p.name for p in click_command(["gauntlet"]).params}
    assert league - {"game", "bots", "sprt", "mixed_teams"} == gauntlet - {
        "game", "challenger", "opponents", "sprt", "fmt"}
    result = CliRunner().invoke(app, ["gauntlet", "bl", "random", "greedy", "-n", "2",
                                      "--move-time", "0.5", "--memory-mb", "256", "-q",
                                      "--workers", "0", "--out", str(tmp_path / "g")])
    assert result.exit_code == 0, result.output
    from harness.league.folder import load_config

    limits = load_config(tmp_path / "g").limits
    assert (limits.move_time, limits.memory_bytes) == (0.5, 256 << 20)
    assert LeagueOptions().out == Path("results/league")
    assert click_command(["gauntlet"]).params[[p.name for p in click_command(
        ["gauntlet"]).params].index("out")].default == Path("results/gauntlet")


# ------------------------------------------------------------------ where limits are named

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _limit_names() -> dict[str, str]:
    """Every name a limit goes by in code -> its field: the field (``memory_bytes``), the
    option's Python name (``memory_mb``) and its word (``memory-mb``)."""
    return {name: o.field for o in LIMIT_OPTIONS for name in (o.field, o.name, o.word)}


def _names_a_limit(path: Path) -> set[str]:
    """The limits a module names: as a variable, an attribute, a parameter, a keyword or a
    string of its own (a docstring's prose does not count)."""
    import ast

    names = _limit_names()
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            said: object = node.id
        elif isinstance(node, ast.Attribute):
            said = node.attr
        elif isinstance(node, ast.keyword | ast.arg):
            said = node.arg
        elif isinstance(node, ast.Constant):
            said = node.value
        else:
            continue
        if isinstance(said, str) and said in names:
            found.add(names[said])
    return found


def _recipe() -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    return text[text.index("<!-- limit places"):text.index("<!-- /limit places -->")]


def test_the_add_a_limit_recipe_lists_every_module_that_names_a_limit() -> None:
    """docs/architecture.md's "Add a limit" says where a new limit is touched; the code agrees
    both ways: a module that names any limit is listed, and a module listed names one. (A
    command, the league service or the configuration naming a limit fails here: limits travel
    through them as one object.)"""
    import re

    listed = set(re.findall(r"`((?:harness|bench)/[\w/]+\.py)`", _recipe()))
    naming = {str(p.relative_to(ROOT)) for folder in ("harness", "bench")
              for p in sorted((ROOT / folder).rglob("*.py")) if _names_a_limit(p)}
    assert naming - listed == set(), "name a limit but are not in the recipe"
    assert listed - naming == set(), "in the recipe but name no limit"
    assert _names_a_limit(ROOT / "harness" / "records.py") == {o.field for o in LIMIT_OPTIONS}


@pytest.mark.parametrize("doc", ["bots.md", "leagues.md"])
def test_the_docs_the_recipe_names_list_every_limit_option(doc: str) -> None:
    assert f"docs/{doc}" in _recipe()
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    assert [o.word for o in LIMIT_OPTIONS if f"`--{o.word}" not in text] == []


def test_a_league_takes_its_limits_as_one_object(tmp_path: Path) -> None:
    """League.prepare and prepare_league take one LimitChoice, laid over the stored league's
    limits on a resume (a limit not given keeps the folder's)."""
    import inspect

    from harness.league.service import League, prepare_league

    for function in (League.prepare, prepare_league, LeagueOptions.prepare):
        params = set(inspect.signature(function).parameters)
        assert params & set(_limit_names()) == set(), function
    assert "limits" in inspect.signature(League.prepare).parameters
    out = tmp_path / "lg"
    chosen = LimitChoice({"move_time": 0.25, "memory_mb": 300})
    league = League.prepare("bl", ["random", "greedy"], out=out, games=2, limits=chosen)
    assert {s.limits_of(0) for s in league.specs} == {chosen.over()}
    league.run(workers=0, progress=False)
    again = League.prepare("bl", ["random", "greedy"], out=out, games=4,
                           limits=LimitChoice({"move_time": None}))
    assert again.config.limits == chosen.over()
