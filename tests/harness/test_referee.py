"""The referee on the toy game with trusted in-process bots: records, terminations, forfeits."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from games.conformance import check_game
from harness.match.referee import bot_seed, play_game
from harness.records import BotRef, GameSpec, Limits, Termination
from tests.harness import toygame


def spec_for(game: str, *bots: str, seed: int = 1, variant: dict[str, str] | None = None,
             limits: Limits | None = None) -> GameSpec:
    seats = tuple(BotRef(f"b{i}", b) for i, b in enumerate(bots))
    return GameSpec(f"g{seed}", game, dict(variant or {}), seed, seats, limits=limits or Limits())


def write_bot(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def test_toy_game_passes_the_conformance_suite() -> None:
    assert check_game(toygame.GAME, seeds=range(8)).games == 8
    assert check_game(toygame.GAME, {"players": "3", "hand": "3"}, seeds=range(8)).games == 8


def test_random_vs_random_plays_to_a_normal_end_and_records_every_move(toy: str) -> None:
    record = play_game(spec_for(toy, "random", "random", seed=3))
    assert record.termination in (Termination.NORMAL, Termination.STALEMATE)
    assert record.decisions == len(record.moves) > 0
    assert [m.ply for m in record.moves] == list(range(record.decisions))
    assert record.seats == ["b0", "b1"]
    assert record.offender is None
    assert record.rules_version == "1"
    assert record.variant == {"players": "2", "hand": "2"}
    assert sorted(record.returns) in ([-1.0, 1.0], [0.0, 0.0])
    # the moves replay to the recorded end
    state = toygame.GAME.new_game(3, **record.variant)
    for move in record.moves:
        assert state.current_player == move.seat
        state.apply(move.action)
    assert state.is_terminal()
    assert state.scores() == record.scores


def test_same_seed_same_game_and_bots_seeded_per_seat(toy: str) -> None:
    a = play_game(spec_for(toy, "random", "random", seed=11))
    b = play_game(spec_for(toy, "random", "random", seed=11))
    assert [m.action for m in a.moves] == [m.action for m in b.moves]
    assert bot_seed(11, 0) != bot_seed(11, 1) != 11
    games = {tuple(m.action for m in play_game(spec_for(toy, "random", "random", seed=s)).moves)
             for s in range(8)}
    assert len(games) > 4


def test_three_players_and_alias_presets(toy: str) -> None:
    record = play_game(spec_for("toy3", "random", "greedy", "random", seed=5))
    assert record.variant["players"] == "3"
    assert len(record.returns) == 3 and len(record.think_time) == 3


def test_wrong_number_of_bots_is_the_callers_error(toy: str) -> None:
    with pytest.raises(ValueError, match="played by 2 bots, the spec has 3"):
        play_game(spec_for(toy, "random", "random", "random"))


def test_move_cap_and_stalemate(toy: str, tmp_path: Path) -> None:
    passer = write_bot(tmp_path, "passer.py", "def act(observation, legal_actions):\n"
                       "    return 'pass'\n")
    record = play_game(spec_for(toy, f"inproc:{passer}", f"inproc:{passer}"))
    assert record.termination is Termination.MOVE_CAP
    assert record.returns == [0.0, 0.0] and record.winners == []
    assert record.decisions == toygame.MAX_DECISIONS


def test_in_process_faults_forfeit_with_a_reason(toy: str, tmp_path: Path) -> None:
    raiser = write_bot(tmp_path, "raiser.py", "class Bot:\n    def act(self, o, legal):\n"
                       "        raise ValueError('boom')\n")
    record = play_game(spec_for(toy, "random", f"inproc:{raiser}"))
    assert record.termination is Termination.CRASH
    assert record.offender == 1 and record.returns == [1.0, -1.0] and record.winners == [0]
    assert "seat 1 (b1) act raised ValueError: boom" in record.reason
    cheat = write_bot(tmp_path, "cheat.py", "def act(o, legal):\n    return 'play 9' "
                      "if 'play 9' not in legal else 'play 1'\n")
    record = play_game(spec_for(toy, f"inproc:{cheat}", "random", seed=2))
    assert record.termination is Termination.ILLEGAL and record.offender == 0
    assert "not in the hand" in record.reason or "not among" in record.reason
    number = write_bot(tmp_path, "number.py", "def act(o, legal):\n    return 42\n")
    record = play_game(spec_for(toy, "random", f"inproc:{number}"))
    assert record.termination is Termination.PROTOCOL
    assert "answered 42 (int), not an action string" in record.reason
    record = play_game(spec_for(toy, "random", "inproc:" + str(tmp_path / "missing.py")))
    assert record.termination is Termination.CRASH and record.offender == 1
    assert "not found" in record.reason


def test_forfeit_in_a_team_game_loses_for_the_whole_team(toy: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    teamed = dataclasses.replace(toygame.INFO, teams={3: (0, 1, 0)})
    monkeypatch.setattr(toygame.GAME, "info", teamed)
    record = play_game(spec_for("toy3", "random", "random", "inproc:nothing.py", seed=1))
    assert record.offender == 2
    assert record.returns == [-1.0, 1.0, -1.0] and record.winners == [1]
    assert record.teams == [0, 1, 0]


@pytest.mark.parametrize("offender", [0, 1, 2])
def test_a_forfeit_in_a_free_for_all_ends_it_with_the_others_sharing_first(
        toy: str, tmp_path: Path, offender: int) -> None:
    raiser = write_bot(tmp_path, "raiser.py", "def act(o, legal):\n    raise ValueError('no')\n")
    bots = ["random"] * 3
    bots[offender] = f"inproc:{raiser}"
    record = play_game(spec_for("toy3", *bots, seed=2))
    assert record.termination is Termination.CRASH and record.offender == offender
    # ranked last below two sides sharing first: (0 - 2) / 2 and (1 - 0) / 2
    assert record.returns == [-1.0 if s == offender else 0.5 for s in range(3)]
    assert record.winners == [s for s in range(3) if s != offender]
    assert record.decisions < toygame.MAX_DECISIONS


def test_a_forfeit_in_three_player_battle_line(tmp_path: Path) -> None:
    late = write_bot(tmp_path, "late.py", "import random\nclass Late:\n    n = 0\n"
                     "    def act(self, o, legal):\n        self.n += 1\n"
                     "        if self.n > 3:\n            raise RuntimeError('gone')\n"
                     "        return random.Random(self.n).choice(legal)\n")
    spec = spec_for("battleline", "random", f"inproc:{late}", "random", seed=9,
                    variant={"players": "3"})
    record = play_game(spec)
    assert record.offender == 1 and record.termination is Termination.CRASH
    assert record.returns == [0.5, -1.0, 0.5] and record.teams == [0, 1, 2]
    assert sum(m.seat == 1 for m in record.moves) == 3  # it ended at the offence


def test_hooks_get_the_game_info_and_the_result(toy: str, tmp_path: Path) -> None:
    out = tmp_path / "seen.txt"
    bot = write_bot(tmp_path, "hooks.py", f"""
import json
class Hooks:
    def start(self, info):
        self.info = info
    def act(self, observation, legal_actions):
        return legal_actions[0]
    def end(self, result):
        with open({str(out)!r}, 'w') as f:
            json.dump({{'info': self.info, 'result': result}}, f)
""")
    record = play_game(spec_for(toy, "random", f"inproc:{bot}", seed=4))
    import json

    seen = json.loads(out.read_text())
    info, result = seen["info"], seen["result"]
    assert {k: info[k] for k in ("game", "seat", "num_players", "rules_version")} == {
        "game": "toyduel", "seat": 1, "num_players": 2, "rules_version": "1"}
    assert info["variant"] == record.variant and info["rng_seed"] == bot_seed(4, 1)
    assert result["returns"] == record.returns
    assert result["termination"] == record.termination.value and result["seat"] == 1


LOGGER = """
import logging
import threading

_log = logging.getLogger(__name__)
ASIDE = True  # log from another thread too


class Talker:
    def start(self, info):
        self.seat = info["seat"]
        logging.getLogger("some.library").warning("seat %d starts", self.seat)

    def act(self, observation, legal_actions):
        _log.warning("seat %d thinks", self.seat)
        _log.info("seat %d: below the root's level, as before", self.seat)
        if ASIDE:
            aside = threading.Thread(target=_log.warning, args=("another thread",))
            aside.start()
            aside.join()
        return legal_actions[0]

    def end(self, result):
        _log.error("seat %d is done", self.seat)
"""


def test_an_in_process_bots_log_records_go_to_its_own_seat_log_only(
        toy: str, tmp_path: Path, capfd: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As a sandboxed bot's stderr: each of two in-process bots' records (start, act, end) in
    its own seat's log and nowhere else; a record of another thread, or emitted outside a bot's
    call, goes where it went before (logging's last resort on stderr, pytest's handlers put
    aside to see it)."""
    import logging

    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    talker = write_bot(tmp_path, "talker.py", LOGGER)
    record = play_game(spec_for(toy, f"inproc:{talker}", f"inproc:{talker}", seed=3),
                       log_dir=tmp_path / "logs")
    for seat in (0, 1):
        lines = record.logs[seat].splitlines()
        assert lines[0] == f"WARNING some.library: seat {seat} starts"
        assert lines[-1] == f"ERROR: seat {seat} is done"
        thinks = sum(1 for m in record.moves if m.seat == seat)
        assert lines[1:-1] == [f"WARNING: seat {seat} thinks"] * thinks
        assert (tmp_path / "logs" / f"g3.seat{seat}.log").read_text() == record.logs[seat]
    logging.getLogger("harness.test").warning("a warning of the harness, after the game")
    err = capfd.readouterr().err
    assert err.splitlines() == ["another thread"] * record.decisions + [
        "a warning of the harness, after the game"]
    assert not logging.getLogger().handlers  # the handler left with the game


def test_an_in_process_bots_log_is_kept_to_its_tail(toy: str, tmp_path: Path) -> None:
    chatty = write_bot(tmp_path, "chatty.py", "import logging\n\ndef act(o, legal):\n"
                       "    logging.getLogger('chat').warning('x' * 100)\n"
                       "    return legal[0]\n")
    record = play_game(spec_for(toy, "random", f"inproc:{chatty}", seed=2,
                                limits=Limits(log_bytes=1000)))
    assert record.logs[0] == ""
    head, tail = record.logs[1].split("\n", 1)
    assert head.startswith("[... ") and head.endswith(" earlier bytes dropped ...]")
    assert len(tail.encode()) == 1000 and tail.endswith("WARNING chat: " + "x" * 100 + "\n")


def test_the_command_line_keeps_an_in_process_bots_log_off_the_terminal(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    talker = write_bot(tmp_path, "talker.py", LOGGER.replace("ASIDE = True", "ASIDE = False"))
    done = subprocess.run(
        [sys.executable, "-c", "from harness.cli.app import main; main()", "play", "bl",
         f"inproc:{talker}", "random", "--seed", "5", "--log-dir", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and "thinks" not in done.stdout
    log = (tmp_path / "logs" / "play-battleline-5.seat0.log").read_text()
    assert "WARNING: seat 0 thinks" in log and "ERROR: seat 0 is done" in log
    assert not (tmp_path / "logs" / "play-battleline-5.seat1.log").exists()
