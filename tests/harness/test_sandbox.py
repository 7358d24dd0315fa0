"""Sandboxed bots behaving badly: the harness goes on and says exactly what happened.

Small limits keep these fast. Every bad bot here plays the toy game in its own process.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from harness.bots import starter
from harness.bots.sandbox import bot_python, jail_python, report, sandbox_user
from harness.match.referee import bot_seed, play_game
from harness.records import BotRef, GameSpec, Limits, Termination
from tests.patience import patience

# Generous time (a loaded machine must not turn a good move into a timeout) except in the
# tests about time, which use FAST.
EASY = Limits(move_time=5.0, overage=5.0, startup_time=30.0, memory_bytes=256 << 20,
              cpu_seconds=20, log_bytes=4096)
FAST = Limits(move_time=0.3, overage=0.2, startup_time=30.0, memory_bytes=256 << 20,
              cpu_seconds=20, log_bytes=4096)


def bot(tmp: Path, source: str, name: str = "bot.py") -> str:
    path = tmp / name
    path.write_text(textwrap.dedent(source))
    path.chmod(0o644)
    return str(path)


def play(game: str, *specs: str, seed: int = 1, limits: Limits = EASY,
         game_id: str = "g") -> tuple[Termination, str, list[str], float, int | None]:
    seats = tuple(BotRef(f"b{i}", s) for i, s in enumerate(specs))
    t0 = time.perf_counter()
    record = play_game(GameSpec(game_id, game, {}, seed, seats, limits=limits))
    return (record.termination, record.reason, record.logs, time.perf_counter() - t0,
            record.offender)


def test_a_good_bot_file_plays_sandboxed_and_hooks_run(toy: str, tmp_path: Path) -> None:
    path = bot(tmp_path, """
        class Bot:
            def start(self, info):
                print("start", info["seat"], info["game"], info["num_players"])
            def act(self, observation, legal_actions):
                print("hand", observation["hand"])
                return legal_actions[-1]
            def end(self, result):
                print("end", result["termination"])
    """)
    seats = (BotRef("mine", path), BotRef("other", "random"))
    record = play_game(GameSpec("g7", toy, {}, 1, seats, limits=EASY), log_dir=tmp_path / "logs")
    assert not record.termination.is_forfeit, record.reason
    log = record.logs[0]
    assert log.startswith("start 0 toyduel 2\nhand [")
    assert f"end {record.termination.value}" in log
    assert (tmp_path / "logs" / "g7.seat0.log").read_text() == log
    assert not (tmp_path / "logs" / "g7.seat1.log").exists()  # nothing printed, no file


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def act(o, legal:\n    return legal[0]\n", "syntax error in bot.py line 1"),
        ("import no_such_module_here\n", "ModuleNotFoundError: No module named"),
        ("x = 1\n", "defines no bot; define a class with a method act"),
        ("class A:\n    def act(self, o, l): return l[0]\nclass B:\n    def act(self, o, l): "
         "return l[0]\n", "defines several bots (A, B); choose one with bot.py:A"),
        ("def act(o, legal):\n    raise ValueError('boom')\n", "act raised ValueError: boom"),
        ("raise RuntimeError('at import')\n", "raised while loading: RuntimeError: at import"),
    ],
    ids=["syntax", "import", "no-act", "ambiguous", "raises", "raises-at-import"],
)
def test_broken_bot_files_crash_with_the_reason(toy: str, tmp_path: Path, source: str,
                                                expected: str) -> None:
    term, reason, _, _, offender = play(toy, "random", bot(tmp_path, source))
    assert term is Termination.CRASH and offender == 1
    assert expected in reason
    assert reason.startswith("seat 1 (b1) ")


def test_explicit_entry_point_picks_one_of_several(toy: str, tmp_path: Path) -> None:
    path = bot(tmp_path, """
        class A:
            def act(self, o, legal): return 42
        class B:
            def act(self, o, legal): return legal[0]
    """)
    term, reason, _, _, _ = play(toy, f"{path}:B", "random")
    assert not term.is_forfeit, reason
    term, reason, _, _, _ = play(toy, f"{path}:A", "random")
    assert term is Termination.PROTOCOL and "answered 42 (int), not an action string" in reason
    term, reason, _, _, _ = play(toy, f"{path}:C", "random")
    assert term is Termination.CRASH and "bot.py has no 'C' (bots found: A, B)" in reason


def test_missing_file_and_illegal_and_unserialisable_answers(toy: str, tmp_path: Path) -> None:
    term, reason, _, _, offender = play(toy, str(tmp_path / "gone.py"), "random")
    assert term is Termination.CRASH and offender == 0 and "not found" in reason
    illegal = bot(tmp_path, "def act(o, legal):\n    return 'play 0'\n")
    term, reason, _, _, _ = play(toy, illegal, "random")
    assert term is Termination.ILLEGAL and "seat 0 (b0) played 'play 0'" in reason
    odd = bot(tmp_path, "def act(o, legal):\n    return object()\n", "odd.py")
    term, reason, _, _, _ = play(toy, "random", odd)
    assert term is Termination.PROTOCOL and "unserialisable" in reason


def test_sleeping_past_the_deadline_is_killed_at_the_deadline(toy: str, tmp_path: Path) -> None:
    sleeper = bot(tmp_path, "import time\ndef act(o, legal):\n    time.sleep(30)\n")
    term, reason, _, took, offender = play(toy, sleeper, "random", limits=FAST)
    assert term is Termination.TIMEOUT and offender == 0
    assert "no answer to act within 0.5 s; killed" in reason
    assert took < patience(5, cap=25)  # its sleep: 30 s


def test_an_endless_loop_is_killed_and_the_bank_is_drawn_down(toy: str, tmp_path: Path) -> None:
    looper = bot(tmp_path, "def act(o, legal):\n    while True:\n        pass\n")
    term, reason, _, took, _ = play(toy, "random", looper, limits=FAST)
    assert term is Termination.TIMEOUT and "killed" in reason and took < patience(5, cap=25)
    # 0.6 s a move with 0.2 s per move and a 1.0 s bank: 0.6 s left after the first move,
    # 0.2 s after the second, so the third (deadline 0.4 s) times out; 0.1 s of slack per move
    slow = bot(tmp_path, "import time\ndef act(o, legal):\n    time.sleep(0.6)\n"
               "    return 'pass'\n", "slow.py")
    seats = (BotRef("slow", slow), BotRef("r", "random"))
    limits = Limits(move_time=0.2, overage=1.0, startup_time=30.0)
    record = play_game(GameSpec("g", toy, {}, 1, seats, limits=limits))
    assert record.termination is Termination.TIMEOUT and record.offender == 0
    assert re.search(r"no answer to act within 0\.[34]\d* s; killed", record.reason)
    assert [m.seat for m in record.moves].count(0) == 2
    assert all(m.think_time >= 0.6 for m in record.moves if m.seat == 0)
    assert record.think_time[0] >= 1.2 + 0.4


def test_slow_start_up_is_a_timeout(toy: str, tmp_path: Path) -> None:
    lazy = bot(tmp_path, "import time\ntime.sleep(30)\ndef act(o, legal):\n    return legal[0]\n")
    limits = Limits(move_time=0.3, overage=0.2, startup_time=0.6)  # start-up is what is tested
    term, reason, _, took, _ = play(toy, lazy, "random", limits=limits)
    assert term is Termination.TIMEOUT and "no answer to start within 0.6 s" in reason
    assert took < patience(5, cap=25)  # its sleep: 30 s


def test_allocating_too_much_memory_crashes_with_the_limit_named(toy: str,
                                                                 tmp_path: Path) -> None:
    hog = bot(tmp_path, "def act(o, legal):\n    x = bytearray(1 << 30)\n    return legal[0]\n")
    term, reason, logs, _, _ = play(toy, hog, "random")
    assert term is Termination.CRASH
    assert "MemoryError" in reason and "(memory limit 256 MB)" in reason
    assert "Traceback" in logs[0]


def test_printing_megabytes_does_not_corrupt_the_protocol(toy: str, tmp_path: Path) -> None:
    noisy = bot(tmp_path, """
        import os, sys
        def act(o, legal):
            print("x" * 1_000_000)
            sys.stderr.write("y" * 500_000)
            os.write(1, b'{"type": "action", "action": "forged"}\\n' * 1000)
            print("LAST LINE")
            return legal[0]
    """)
    term, reason, logs, _, _ = play(toy, noisy, "random")
    assert not term.is_forfeit, reason
    assert len(logs[0].encode()) < FAST.log_bytes + 100
    assert logs[0].startswith("[... ") and "earlier bytes dropped" in logs[0]
    assert logs[0].rstrip().endswith("LAST LINE")


def test_os_exit_mid_game_is_a_crash_and_the_next_game_gets_a_fresh_process(
        toy: str, tmp_path: Path) -> None:
    quitter = bot(tmp_path, """
        import os
        class Quitter:
            def start(self, info):
                self.first, self.moves = info["rng_seed"] == FIRST, 0
            def act(self, o, legal):
                self.moves += 1
                if self.first and self.moves == 2:
                    os._exit(3)
                return legal[0]
    """.replace("FIRST", str(bot_seed(1, 0))))
    term, reason, _, _, offender = play(toy, quitter, "random", seed=1)
    assert term is Termination.CRASH and offender == 0
    assert "process exited with status 3 during act" in reason
    term, reason, _, _, _ = play(toy, quitter, "random", seed=2)
    assert not term.is_forfeit, reason


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        if marker.encode() in cmdline and "State:\tZ" not in status:
            found.append(int(entry))
    return found


def test_no_child_process_outlives_the_game(toy: str, tmp_path: Path) -> None:
    marker = f"tourney-orphan-{os.getpid()}-{time.monotonic_ns()}"
    spawner = bot(tmp_path, f"""
        import os, subprocess, sys
        class Spawner:
            def start(self, info):
                # a plain child, and a double-forked one in a session of its own (where the
                # filter allows it: not where the bot cannot be frozen)
                subprocess.Popen(["sleep", "1000", "{marker}"])
                if os.fork() == 0:
                    try:
                        os.setsid()
                    except OSError:
                        pass
                    if os.fork() == 0:
                        os.execvp("sleep", ["sleep", "1001", "{marker}"])
                    os._exit(0)
            def act(self, o, legal):
                return legal[0]
    """)
    term, reason, _, _, _ = play(toy, spawner, "random")
    assert not term.is_forfeit, reason
    deadline = time.monotonic() + patience(30)
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(marker) == []


def test_a_bot_cannot_see_the_referee_or_the_network(toy: str, tmp_path: Path) -> None:
    spy = bot(tmp_path, """
        import gc, os, socket
        class Spy:
            def start(self, info):
                found = []
                for pid in [p for p in os.listdir("/proc") if p.isdigit()] + [str(os.getppid())]:
                    try:
                        with open(f"/proc/{pid}/mem", "rb") as f:
                            found.append(pid)
                    except OSError as exc:
                        pass
                states = [o for o in gc.get_objects() if type(o).__name__ == "ToyState"]
                try:
                    socket.create_connection(("1.1.1.1", 53), timeout=1)
                    net = "open"
                except OSError:
                    net = "closed"
                with open("/proc/1/cmdline", "rb") as f:
                    init = f.read().split(bytes(1))[0].decode()
                print(json.dumps({"uid": os.getuid(), "pid": os.getpid(), "init": init,
                                  "pids": sorted(os.listdir("/proc")),
                                  "mem": found, "states": len(states), "net": net}))
            def act(self, o, legal):
                return legal[0]
        import json
    """)
    term, reason, logs, _, _ = play(toy, spy, "random")
    assert not term.is_forfeit, reason
    seen = json.loads(logs[0].splitlines()[0])
    assert seen["states"] == 0  # the true state lives only in the referee's process
    assert seen["net"] == "closed"
    user = sandbox_user()
    if user is not None:  # running as root (tests here and in CI): bots run as nobody
        assert seen["uid"] == user[0]
    if report()["engine"] == "bubblewrap":  # in a jail, for root and a normal user alike
        # its own PID namespace: only itself and the jail's idle init are visible
        assert [p for p in seen["pids"] if p.isdigit()] == ["1", "2"] and seen["pid"] == 2
        assert seen["init"] == jail_python()  # tourney's runner, forked off before the bot
        # its own memory alone (as root it is nobody's, not dumpable: not even that), neither
        # its init's nor the referee's
        assert seen["mem"] == ([] if user is not None else ["2"])
    # and the referee itself is not dumpable (no ptrace, no /proc/<pid>/mem by its user)
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(3, 0, 0, 0, 0) == 0  # PR_GET_DUMPABLE


STANDALONE = '''
import json, random, sys
rng = None
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        rng = random.Random(msg["info"]["rng_seed"])
        reply = {"type": "ready"}
    elif msg["type"] == "act":
        reply = {"type": "action", "action": rng.choice(msg["legal_actions"])}
    elif msg["type"] == "end":
        reply = {"type": "ok"}
    else:
        break
    print(json.dumps(reply), flush=True)
'''


def test_a_standalone_script_speaks_the_wire_protocol(toy: str, shared_dir: Path) -> None:
    script = bot(shared_dir, STANDALONE, "standalone.py")
    term, reason, _, _, _ = play(toy, f"cmd:{bot_python()} {script}", "random")
    assert term in (Termination.NORMAL, Termination.STALEMATE), reason
    garbage = bot(shared_dir, "print('hello there', flush=True)\nimport time\ntime.sleep(5)\n",
                  "garbage.py")
    term, reason, _, _, _ = play(toy, "random", f"cmd:{bot_python()} {garbage}")
    assert term is Termination.PROTOCOL and "sent a line that is not JSON: 'hello there'" in reason
    term, reason, _, _, _ = play(toy, "random", "cmd:/no/such/program --fast")
    assert term is Termination.CRASH
    assert "could not run '/no/such/program': No such file or directory" in reason


def test_sandboxed_builtins_play_the_same_game_as_in_process(toy: str) -> None:
    seats = (BotRef("a", "random"), BotRef("b", "greedy"))
    boxed = (BotRef("a", "sandbox:random"), BotRef("b", "sandbox:greedy"))
    fast = play_game(GameSpec("g", toy, {}, 9, seats))
    slow = play_game(GameSpec("g", toy, {}, 9, boxed))
    assert [m.action for m in fast.moves] == [m.action for m in slow.moves]
    assert fast.returns == slow.returns


def test_the_cpu_limit_is_an_rlimit_in_the_bot_process(toy: str, tmp_path: Path) -> None:
    spinner = bot(tmp_path, "def act(o, legal):\n    while True:\n        pass\n")
    limits = Limits(move_time=20.0, overage=0.0, cpu_seconds=1)
    term, reason, _, took, _ = play(toy, spinner, "random", limits=limits)
    assert term is Termination.CRASH and "SIGXCPU: CPU time limit exceeded" in reason
    assert took < 10


def test_results_folders_are_hidden_from_external_commands(
        toy: str, shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cmd: bot sees its own directory (cmd[cwd=DIR]:); a results folder there (league.json
    holds the league's secret key) is covered."""
    from harness.bots import sandbox

    results = shared_dir / "out"
    results.mkdir(mode=0o755)
    (results / "league.json").write_text('{"key": "secret"}')
    (results / "league.json").chmod(0o644)
    reader = bot(shared_dir, STANDALONE.replace(
        'reply = {"type": "ready"}',
        f'reply = {{"type": "ready"}}; print(os.path.exists({str(results / "league.json")!r}),'
        ' file=sys.stderr, flush=True)').replace("import json", "import json, os"),
        "reader.py")
    monkeypatch.chdir(shared_dir)
    monkeypatch.setattr(sandbox, "_HIDDEN", set())
    own = f"cmd[cwd={shared_dir}]:{bot_python()} {reader}"
    term, reason, logs, _, _ = play(toy, own, "random")
    assert not term.is_forfeit, reason
    assert logs[0].strip() == "True"  # visible when not hidden: the test can fail
    sandbox.hide_from_bots(results)
    assert str(results.resolve()) in sandbox.hidden_paths()
    term, reason, logs, _, _ = play(toy, own, "random")
    assert not term.is_forfeit, reason
    assert logs[0].strip() == "False"


def test_a_bot_file_cannot_see_results_or_its_own_original(toy: str, shared_dir: Path) -> None:
    (shared_dir / "league.json").write_text('{"key": "secret"}')
    (shared_dir / "league.json").chmod(0o644)
    peek = bot(shared_dir, f"""
        import os
        def act(o, legal):
            print(os.path.exists({str(shared_dir / "league.json")!r}),
                  os.path.exists({str(shared_dir / "peek.py")!r}), __file__)
            return legal[0]
    """, "peek.py")
    seats = (BotRef("peek", peek), BotRef("r", "random"))
    record = play_game(GameSpec("g", toy, {}, 1, seats, limits=EASY),
                       log_dir=shared_dir / "logs")
    assert not record.termination.is_forfeit, record.reason
    assert set(record.logs[0].splitlines()) == {"False False /bot/peek.py"}
    assert (shared_dir / "logs" / "g.seat0.log").exists()


def test_nothing_of_a_bot_is_left_on_disk_and_its_group_is_removed() -> None:
    from harness.bots import cgroups
    from harness.bots.sandbox import FALLBACK_PREFIX, SandboxedAgent
    from harness.bots.spec import parse_spec

    ours = f"{FALLBACK_PREFIX}{os.getpid()}-*"  # other processes may use the sandbox too
    before = set(Path(tempfile.gettempdir()).glob(ours))
    agent = SandboxedAgent(parse_spec("sandbox:random"), EASY)
    agent.start({"game": "toyduel", "seat": 0, "rng_seed": 1}, 30.0)
    assert agent.sandbox["filesystem"] == "allow-list"
    assert agent.act({"game": "toyduel"}, ["pass", "play 1"], 5.0) in ("pass", "play 1")
    groups = list(agent.group.dirs.values())
    assert all(g.is_dir() for g in groups)
    agent.close()
    assert set(Path(tempfile.gettempdir()).glob(ours)) == before
    assert agent.fallback_dir is None or not agent.fallback_dir.exists()
    if not isinstance(agent.proc, starter.ForkedBot):  # the start-up server reaps its own
        assert agent.proc.returncode is not None
    deadline = time.monotonic() + patience(30)
    while any(cgroups._members(g) for g in groups) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(cgroups._members(g) for g in groups)  # every process of the bot is gone
    cgroups.remove_groups()  # what happens when the referee exits
    assert not any(g.exists() for g in groups)


def test_two_external_commands_from_one_directory_cannot_read_each_other(
        toy: str, shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two cmd: bots started from the same directory see the files on their own command line,
    not the directory: neither reads the other's source (both could, sharing it, before)."""
    token = os.urandom(8).hex()
    rival = bot(shared_dir, STANDALONE.replace("import json, random, sys",
                                               f"import json, random, sys  # RIVAL-{token}"),
                "rival.py")
    reader = bot(shared_dir, STANDALONE.replace(
        'reply = {"type": "ready"}',
        'reply = {"type": "ready"}; print(sorted(os.listdir(".")), os.path.exists("rival.py"),'
        ' file=sys.stderr, flush=True)').replace("import json,", "import os, json,"),
        "reader.py")
    monkeypatch.chdir(shared_dir)
    term, reason, logs, _, _ = play(toy, f"cmd:{bot_python()} {Path(reader).name}",
                                    f"cmd:{bot_python()} {Path(rival).name}")
    assert not term.is_forfeit, reason
    assert logs[0].strip() == "['reader.py'] False", logs[0]
    assert token not in logs[0]
