"""One game, one CPU: league workers keep to CPUs of their own, and a sandboxed bot runs on its
referee's CPU (harness.placement)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from harness.match import placement
from harness.match.referee import play_game
from harness.records import BotRef, GameRecord, GameSpec, Limits
from harness.run.local import ProcessExecutor
from tests.league.helpers import record, spec


def test_spare_cpu_gives_each_worker_its_own_cpu_or_none_when_oversubscribed() -> None:
    cpus = placement.available_cpus()
    assert cpus, "this platform reports no CPU affinity"
    assert placement.spare_cpu(set(), len(cpus)) == cpus[0]
    assert placement.spare_cpu(set(cpus[:-1]), len(cpus)) == cpus[-1]
    assert placement.spare_cpu(set(cpus), len(cpus)) is None
    assert placement.spare_cpu(set(), len(cpus) + 1) is None


def test_pinned_here_pins_to_one_cpu_and_restores_the_affinity() -> None:
    before = placement.available_cpus()
    with placement.pinned_here() as cpu:
        assert cpu in before
        assert placement.available_cpus() == [cpu]
    assert placement.available_cpus() == before


def _affinity(s: GameSpec) -> GameRecord:
    rec = record(s.game_id)
    rec.reason = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    return rec


def _with_sandboxed_seat(game_id: str) -> GameSpec:
    return dataclasses.replace(spec(game_id), seats=(BotRef("a", "bot.py"), BotRef("b", "random")))


def test_league_workers_keep_to_cpus_of_their_own_for_games_with_a_sandboxed_bot() -> None:
    cpus = placement.available_cpus()
    workers = min(2, len(cpus))
    specs = [_with_sandboxed_seat(f"g{i:02d}") for i in range(40)]
    with ProcessExecutor(workers, _affinity) as ex:
        seen = {r.reason for r in ex.run(specs)}
    assert all("," not in cpu_list for cpu_list in seen), seen  # each worker on one CPU
    assert len(seen) <= workers


def test_games_between_in_process_bots_are_left_to_the_kernel() -> None:
    cpus = placement.available_cpus()
    mixed = [_with_sandboxed_seat(f"s{i:02d}") if i % 2 else spec(f"g{i:02d}") for i in range(30)]
    with ProcessExecutor(min(2, len(cpus)), _affinity) as ex:
        seen = {r.game_id: r.reason for r in ex.run(mixed)}
    everywhere = ",".join(map(str, cpus))
    assert {seen[f"g{i:02d}"] for i in range(0, 30, 2)} == {everywhere}
    assert all("," not in seen[f"s{i:02d}"] for i in range(1, 30, 2))


def test_more_workers_than_cpus_are_left_to_the_kernel() -> None:
    cpus = placement.available_cpus()
    specs = [_with_sandboxed_seat(f"g{i:02d}") for i in range(10)]
    with ProcessExecutor(len(cpus) + 1, _affinity) as ex:
        seen = {r.reason for r in ex.run(specs)}
    assert seen == {",".join(map(str, cpus))}


def test_a_sandboxed_bot_runs_on_its_referees_cpu(tmp_path: Path) -> None:
    bot = tmp_path / "where.py"
    bot.write_text(
        "import os\n"
        "class Where:\n"
        "    def start(self, info):\n"
        "        print('cpus', sorted(os.sched_getaffinity(0)), flush=True)\n"
        "    def act(self, observation, legal_actions):\n"
        "        return legal_actions[0]\n"
    )
    refs = (BotRef("where", str(bot)), BotRef("random", "random"))
    game = GameSpec("where", "battleline", {}, 1, refs, limits=Limits(move_time=5.0))
    with placement.pinned_here() as cpu:
        rec = play_game(game)
    assert cpu is not None
    assert f"cpus [{cpu}]" in rec.logs[0]
