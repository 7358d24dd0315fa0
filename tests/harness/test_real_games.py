"""The harness on the real games (every registered one), and the README's minimal bot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from games import registry
from harness.cli.app import app
from harness.match.referee import play_game
from harness.records import BotRef, GameSpec

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("name", registry.names())
def test_builtins_play_every_registered_game_and_the_record_replays(name: str) -> None:
    game = registry.load(name)
    for seed in (1, 2):
        seats = tuple(BotRef(f"b{i}", "greedy" if i % 2 else "random")
                      for i in range(game.new_game(seed).num_players))
        record = play_game(GameSpec(f"{name}-{seed}", name, {}, seed, seats))
        assert not record.termination.is_forfeit, record.reason
        assert record.rules_version == game.info.rules_version
        state = game.new_game(seed, **record.variant)
        for move in record.moves:
            assert state.current_player == move.seat
            state.apply(move.action)
        assert state.is_terminal() or record.decisions == game.info.max_decisions
        assert [float(r) for r in state.returns()] == record.returns


def test_builtin_options_reach_the_bot_in_process_and_in_the_sandbox() -> None:
    # greedy:p=1 plays uniformly at random: not greedy's game, and the same game sandboxed
    def moves(spec: str) -> list[str]:
        seats = (BotRef("a", spec), BotRef("b", "random"))
        return [m.action for m in play_game(GameSpec("bl", "battleline", {}, 4, seats)).moves]

    noisy = moves("greedy:p=1")
    assert noisy == moves("sandbox:greedy:p=1") != moves("greedy")
    assert moves("greedy:p=0") == moves("greedy")


def test_sandboxed_builtins_reproduce_the_in_process_game_on_battle_line() -> None:
    trusted = (BotRef("r", "random"), BotRef("g", "greedy"))
    boxed = (BotRef("r", "sandbox:random"), BotRef("g", "sandbox:greedy"))
    a = play_game(GameSpec("bl", "battleline", {}, 5, trusted))
    b = play_game(GameSpec("bl", "battleline", {}, 5, boxed))
    assert [m.action for m in a.moves] == [m.action for m in b.moves]
    assert a.returns == b.returns and not b.termination.is_forfeit


def readme_bot() -> str:
    """The first Python block of the README's `bots` section: the minimal complete bot."""
    text = README.read_text()
    section = text[text.index("<!-- section: bots -->"): text.index("<!-- /section: bots -->")]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the bots section must show a minimal bot in a python block"
    return match.group(1)


def test_the_readme_minimal_bot_validates_on_battle_line(tmp_path: Path) -> None:
    path = tmp_path / "mybot.py"
    path.write_text(readme_bot())
    result = CliRunner().invoke(app, ["validate", str(path), "--game", "battleline",
                                      "--games", "1"])
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output
    record = play_game(GameSpec("readme", "battleline", {}, 3,
                                (BotRef("mine", str(path)), BotRef("greedy", "greedy"))))
    assert not record.termination.is_forfeit, record.reason


def test_a_forfeit_in_four_player_war_chest_loses_for_the_whole_team(tmp_path: Path) -> None:
    raiser = tmp_path / "raiser.py"
    raiser.write_text("def act(observation, legal_actions):\n    raise RuntimeError('no')\n")
    seats = tuple(BotRef(f"s{i}", str(raiser) if i == 1 else "random") for i in range(4))
    record = play_game(GameSpec("wc4", "warchest", {"players": "4"}, 2, seats))
    assert record.offender == 1 and record.termination.value == "crash"
    assert record.returns == [1.0, -1.0, 1.0, -1.0] and record.winners == [0, 2]
