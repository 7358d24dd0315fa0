"""Bot processes made ahead of their game (harness.bots.spares): fresh, never shared, and running
no code of their bot before their game starts it."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.bots import spares
from harness.bots.sandbox import SandboxedAgent
from harness.bots.spec import parse_spec
from harness.match.referee import play_game
from harness.records import BotRef, GameSpec, Limits
from harness.run.local import InlineExecutor, ProcessExecutor
from tests.harness.test_sandbox import EASY, bot
from tests.patience import patience

CHATTY = """
    print("module code ran", flush=True)
    class Bot:
        def start(self, info):
            print("started", info["seat"], flush=True)
        def act(self, observation, legal_actions):
            return legal_actions[0]
"""


@pytest.fixture(autouse=True)
def no_spares_left() -> Iterator[None]:
    yield
    spares.drop()


def _waiting_confined(agent: SandboxedAgent) -> None:
    """Wait until the spare's process is made and has confined itself (its first line, the
    runner's report, is waiting on its output)."""
    assert agent.usable()
    ready = select.poll()
    ready.register(agent._out, select.POLLIN)
    assert ready.poll(int(patience(30) * 1000)), "the spare never reported its confinement"


def test_a_spare_runs_no_code_of_its_bot_before_its_game(toy: str, shared_dir: Path) -> None:
    path = bot(shared_dir, CHATTY)
    game = GameSpec("g", toy, {}, 1, (BotRef("a", path), BotRef("b", "random")), limits=EASY)
    spares.expect(game)
    assert spares.waiting() == 1  # the trusted built-in gets none
    agent = spares.take(parse_spec(path), EASY)
    assert agent is not None and agent.forked
    _waiting_confined(agent)
    time.sleep(0.2)  # time enough for an import to print, had it run
    agent._drain_log()
    assert "module code ran" not in agent.logs()
    agent.start({"game": toy, "seat": 0, "num_players": 2, "rng_seed": 1}, 30.0)
    assert "module code ran" in agent.logs() and "started 0" in agent.logs()
    agent.close()


def test_a_spare_waits_on_the_servers_cpus_and_starts_on_the_referees(toy: str) -> None:
    """A process made ahead is confined and waits on the start-up server's CPUs, off the game
    being played, and cannot move itself (its filter refuses it); when its game starts it, the
    referee moves it onto its own CPUs: one still being confined too (its report not sent yet,
    which one in five of a fast league's second seats was), since the referee would only wait."""
    from harness.match.placement import pinned_here

    if (os.cpu_count() or 1) < 2:
        return
    game = GameSpec("g", toy, {}, 1, (BotRef("a", "sandbox:random"), BotRef("b", "random")),
                    limits=EASY)
    with pinned_here():
        spares.expect(game)
        agent = spares.take(parse_spec("sandbox:random"), EASY)
        if agent is None:  # no start-up server here: nothing is made ahead
            return
        try:
            _waiting_confined(agent)
            ours = os.sched_getaffinity(0)
            # where the server makes it (the server's CPUs: others than the referee's, from the
            # first request made while the referee keeps to them)
            os.sched_setaffinity(agent.proc.pid, set(range(os.cpu_count() or 1)) - ours)
            agent._buf += os.read(agent._out, 65536)  # its report read out: as if not sent yet
            agent._onto_our_cpus()
            assert os.sched_getaffinity(agent.proc.pid) == ours
            agent.start({"game": toy, "seat": 0, "num_players": 2, "rng_seed": 1}, 30.0)
            assert agent.sandbox.get("seccomp") is not None  # its report, read before it
        finally:
            agent.close()


def test_a_spare_serves_one_game_and_the_next_gets_a_new_one(toy: str,
                                                             shared_dir: Path) -> None:
    path = bot(shared_dir, CHATTY)
    game = GameSpec("g", toy, {}, 1, (BotRef("a", path), BotRef("b", path)), limits=EASY)
    spares.expect(game)
    assert spares.waiting() == 2
    first = spares.take(parse_spec(path), EASY)
    second = spares.take(parse_spec(path), EASY)
    assert first is not None and second is not None and first is not second
    assert spares.take(parse_spec(path), EASY) is None  # none left: the game starts its own
    assert spares.take(parse_spec(path), Limits()) is None  # other limits: never that one
    for agent in (first, second):
        agent.close()
    record = play_game(game)
    assert not record.termination.is_forfeit, record.reason
    assert spares.waiting() == 0


def test_a_spare_of_a_bot_changed_since_is_not_used(toy: str, shared_dir: Path) -> None:
    path = bot(shared_dir, CHATTY)
    game = GameSpec("g", toy, {}, 1, (BotRef("a", path), BotRef("b", "random")), limits=EASY)
    spares.expect(game)
    bot(shared_dir, CHATTY.replace("module code ran", "the new version ran"))
    assert spares.take(parse_spec(path), EASY) is None
    assert spares.waiting() == 0
    record = play_game(game)
    assert "the new version ran" in record.logs[0]


def test_spares_are_closed_with_nothing_left(toy: str, shared_dir: Path) -> None:
    path = bot(shared_dir, CHATTY)
    game = GameSpec("g", toy, {}, 1, (BotRef("a", path), BotRef("b", path)), limits=EASY)
    for _ in range(spares.MOST):  # more than may wait: the oldest are closed
        spares.expect(game)
    assert spares.waiting() == spares.MOST
    spares.drop()
    assert spares.waiting() == 0  # (and the autouse check finds no process of them left)


def test_a_league_worker_plays_the_same_games_with_its_spares(toy: str,
                                                              shared_dir: Path) -> None:
    """A worker process makes each next game's bots during a game; the games are the ones the
    referee plays without (inline, where nothing is made ahead)."""
    path = bot(shared_dir, """
        import random
        class Bot:
            def start(self, info):
                self.rng = random.Random(info["rng_seed"])
            def act(self, observation, legal_actions):
                return self.rng.choice(legal_actions)
    """)
    games = [GameSpec(f"g{i}", toy, {}, i, (BotRef("a", path), BotRef("b", "sandbox:random")),
                      limits=EASY) for i in range(6)]

    def moves(executor: InlineExecutor | ProcessExecutor) -> dict[str, list[str]]:
        with executor:
            return {r.game_id: [m.action for m in r.moves] for r in executor.run(games)}

    inline = moves(InlineExecutor())
    assert moves(ProcessExecutor(1)) == inline
    assert all(inline.values())


def test_a_worker_keeps_its_start_up_server_from_its_first_game(toy: str,
                                                                 tmp_path: Path) -> None:
    """A league's play hides the results folder before the worker makes its first game's bots
    ahead (``DefaultPlay.prepare``): those bots and every later one come from one start-up
    server. The folder was hidden only at the first game: the server was replaced there, and
    every game after ran about a third slower on the new one (issue 44, point 6). A logs folder
    made inside the hidden results folder changes nothing either."""
    from harness.bots import sandbox
    from harness.run.base import DefaultPlay

    folder = tmp_path / "league"
    folder.mkdir()
    play = DefaultPlay(folder / "logs", hide=(folder,))  # what a league's workers play
    play.prepare()
    assert not (folder / "logs").exists()  # made by the first game that logs, not before
    server = sandbox.bot_starter()
    game = GameSpec("g", toy, {}, 1, (BotRef("a", "sandbox:random"), BotRef("b", "random")),
                    limits=EASY)
    spares.expect(game)
    record = play(game)
    assert record.offender is None, record.reason
    assert (folder / "logs").is_dir() and sandbox.bot_starter() is server


def _count_servers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Each start-up server started from now on, in this process or one forked from it, is a
    line (the starter's pid) in the file returned."""
    from harness.bots import sandbox

    started = tmp_path / "servers-started"
    real = sandbox._start_server

    def counted() -> object:
        with started.open("a") as f:
            f.write(f"{os.getpid()}\n")
        return real()

    monkeypatch.setattr(sandbox, "_start_server", counted)
    return started


def test_a_leagues_first_worker_takes_over_its_start_up_server(
        toy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The league's own process has a start-up server (its isolation probe's and preflight's);
    its first worker takes it over rather than start one of its own, and the league's process
    lets go of it: the server ends with that worker, and the next one the league's process
    needs is a new one."""
    from harness.bots import sandbox
    from harness.run.base import DefaultPlay

    if sandbox.report()["engine"] != "bubblewrap" or sandbox.bot_starter() is None:
        return
    folder = tmp_path / "league"
    folder.mkdir()
    play = DefaultPlay(folder / "logs", hide=(folder,))
    play.prepare()  # what the league's process hides before its workers start
    server = sandbox.bot_starter()
    assert server is not None
    started = _count_servers(monkeypatch, tmp_path)
    games = [GameSpec(f"g{i}", toy, {}, i, (BotRef("a", "sandbox:random"),
                                            BotRef("b", "sandbox:random")), limits=EASY)
             for i in range(3)]
    with ProcessExecutor(1, play) as executor:
        records = list(executor.run(games))
    assert all(r.offender is None for r in records), [r.reason for r in records]
    assert not started.exists()  # the worker started none: it played on the one it took
    assert not sandbox._starters  # let go of here
    deadline = time.monotonic() + patience(10)
    running = Path(f"/proc/{server._pid}")  # (or a zombie)
    while running.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server._pid and not running.exists()  # ended with the worker that had it
    again = sandbox.bot_starter()
    assert again is not None and again is not server and again.alive()
    assert started.read_text().split() == [str(os.getpid())]


def test_a_persistent_pool_leaves_its_process_its_start_up_server(
        toy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool that outlives its runs (a living arena's, the competition server's) belongs to a
    process that plays games of its own meanwhile (the human seat, in threads): its worker
    starts a server of its own, and the process keeps its own, in use."""
    from harness.bots import sandbox
    from harness.run.base import DefaultPlay

    if sandbox.report()["engine"] != "bubblewrap" or sandbox.bot_starter() is None:
        return
    folder = tmp_path / "arena"
    folder.mkdir()
    play = DefaultPlay(folder / "logs", hide=(folder,))
    play.prepare()
    server = sandbox.bot_starter()
    started = _count_servers(monkeypatch, tmp_path)
    games = [GameSpec("g", toy, {}, 1, (BotRef("a", "sandbox:random"),
                                        BotRef("b", "sandbox:random")), limits=EASY)]
    executor = ProcessExecutor(1, play, persistent=True)
    try:
        records = list(executor.run(games))
    finally:
        executor.close()
    assert records[0].offender is None, records[0].reason
    assert server is not None and sandbox.bot_starter() is server and server.alive()
    lines = started.read_text().split()
    assert len(lines) == 1 and lines[0] != str(os.getpid())  # the worker's own


def test_a_sandboxed_league_starts_one_start_up_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tourney league`` with sandboxed bots and one worker: the server its isolation probe
    (or preflight) starts hides the league's folder already (made and hidden first), and its
    worker plays every game on it."""
    from typer.testing import CliRunner

    from harness.bots import sandbox
    from harness.cli.app import app

    if sandbox.report()["engine"] != "bubblewrap" or sandbox.bot_starter() is None:
        return
    started = _count_servers(monkeypatch, tmp_path)
    out = tmp_path / "lg"
    result = CliRunner().invoke(app, ["league", "battleline", "sandbox:random", "greedy",
                                      "--games", "4", "-j", "1", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert "4 of 4 scheduled games stored" in result.output
    assert started.read_text().split() == [str(os.getpid())]  # one, and not in the worker
