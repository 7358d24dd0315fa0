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
    limits = from_options(Limits(), **given)
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
        from_options(Limits(), **{limit.name: limit.number(low)})


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
    from harness.league.config import load_config

    limits = load_config(tmp_path / "g").limits
    assert (limits.move_time, limits.memory_bytes) == (0.5, 256 << 20)
    assert LeagueOptions().out == Path("results/league")
    assert click_command(["gauntlet"]).params[[p.name for p in click_command(
        ["gauntlet"]).params].index("out")].default == Path("results/gauntlet")
