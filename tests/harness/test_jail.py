"""The jail's report is measured: which namespaces are the bot's own comes from the inode numbers
the runner reads from inside (and bubblewrap reports), compared with the referee's own."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from harness.bots import isolation, jail, runner, sandbox, starter
from harness.bots.spec import parse_spec
from harness.match.referee import play_game
from harness.records import BotRef, GameSpec, Limits
from tests.harness.leftovers import Jails
from tests.patience import patience


def test_a_namespace_is_the_bots_own_only_where_its_number_differs_from_the_referees() -> None:
    host = jail.own_namespaces()
    assert set(host) == set(jail.NAMESPACES)
    assert not any(jail.compare(host).values())  # the referee's own: none is the bot's
    assert not any(jail.compare({}).values())  # nothing measured: nothing claimed
    other = {name: number + 1 for name, number in host.items()}
    assert all(jail.compare(other).values())
    only_ipc = {**host, "ipc": host["ipc"] + 1}
    flags = jail.compare(only_ipc)
    assert flags["ipc_namespace"] and not flags["network"] and not flags["pid_namespace"]


def _bounding_set_after_a_cut(keep: tuple[int, ...]) -> tuple[bool, int]:
    """In a forked child: the runner's cut of the capability bounding set to ``keep``, and the
    set the kernel then reports."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        os.close(read)
        complete = runner._drop_bounding_set(runner._libc(), keep)
        with open("/proc/self/status") as f:
            left = next(line.split()[1] for line in f if line.startswith("CapBnd:"))
        os.write(write, json.dumps([complete, int(left, 16)]).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        complete, left = json.loads(f.read())
    os.waitpid(pid, 0)
    return complete, left


def test_the_runner_cuts_the_capability_bounding_set_to_what_it_keeps() -> None:
    complete, left = _bounding_set_after_a_cut((6, 7))
    if os.geteuid() == 0:  # with CAP_SETPCAP: exactly what was kept
        assert complete and left == (1 << 6) | (1 << 7)
    else:  # a normal user may drop nothing, and says so
        assert not complete and left != 0


def test_the_runner_reports_the_namespaces_it_finds_itself_in() -> None:
    agent = sandbox.SandboxedAgent(parse_spec("sandbox:random"), Limits())
    try:
        agent.start({}, 30)
        seen = agent.sandbox["namespaces"]
    finally:
        agent.close()
    assert set(seen) == set(jail.NAMESPACES) and all(isinstance(n, int) for n in seen.values())
    if sandbox.report()["engine"] == "bubblewrap":  # in a jail: every one differs
        host = {name: os.stat(f"/proc/self/ns/{name}").st_ino for name in seen}
        assert all(seen[name] != host[name] for name in seen)
        assert agent.sandbox["pid_namespace"] and agent.sandbox["ipc_namespace"]


def test_a_command_s_arguments_are_translated_only_where_they_name_a_path() -> None:
    """In a jail tourney's environment is shown under /tourney: a command's argument that names
    a file there is translated, any other argument (an option, a word) is left alone."""
    agents = str(isolation.PROJECT_ROOT / "agents")
    shown = sandbox.jail_argv(["python3", "greedy.py", "--iters=5", "games"], agents)
    assert shown == ["python3", "/tourney/agents/greedy.py", "--iters=5", "games"]
    root = str(isolation.PROJECT_ROOT)
    assert sandbox.jail_argv(["x", "nothing-here"], root) == ["x", "nothing-here"]


def test_the_referee_reads_only_regular_files_of_bounded_size(tmp_path: Path) -> None:
    """The bot's file is read by the referee: one swapped for a FIFO is refused at once (never
    waited on), one for a link to a device is refused, and one larger than a bot may be is
    refused rather than read whole."""
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.py"
    zero.symlink_to("/dev/zero")
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * 5000)
    for path, words in ((fifo, "not a regular file"), (zero, "not a regular file"),
                        (big, "larger than a bot may be")):
        with pytest.raises(OSError, match=words):
            runner.read_bot_files({"source": str(path), "name": path.name, "max_bytes": 4096})
    small = tmp_path / "small.py"
    small.write_bytes(b"x = 1\n")
    assert runner.read_bot_files({"source": str(small), "name": "small.py",
                                  "max_bytes": 4096}) == [("small.py", b"x = 1\n")]


def test_a_link_is_read_with_its_own_owners_rights_not_its_targets(tmp_path: Path) -> None:
    """As root, a bot file is read with its owner's rights: for a link, the link's owner's, so
    an entrant's link to another user's private bot reads nothing of it."""
    if os.geteuid() != 0:  # only root reads as someone else; a user reads with its own rights
        own = {"source": __file__, "name": "x.py", "max_bytes": 1 << 20}
        assert runner.read_bot_files(own)[0][1]
        return
    folder = tmp_path / "entrant"
    folder.mkdir()
    secret = tmp_path / "private.py"
    secret.write_text("SECRET = 1\n")
    secret.chmod(0o600)  # root's own, readable by root alone
    link = folder / "bot.py"
    link.symlink_to(secret)
    os.chown(link, 65534, 65534, follow_symlinks=False)  # the entrant (nobody) owns the link
    with pytest.raises(PermissionError):
        runner.read_bot_files({"source": str(link), "name": "bot.py", "max_bytes": 4096})


def test_a_bot_directory_of_many_files_under_a_low_descriptor_limit(tmp_path: Path) -> None:
    """A bot directory's files go to the start-up server in one memory file, whatever their
    number: under a low descriptor limit the bot plays, the next bot still starts, and no
    descriptor leaks."""
    many = tmp_path / "many"
    many.mkdir()
    (many / "bot.py").write_text("def act(o, legal):\n    return legal[0]\n")
    for i in range(600):
        (many / f"data{i}.txt").write_text(str(i))
    script = textwrap.dedent(f"""
        import os, resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, {{hard}}))
        from harness.records import BotRef, GameSpec
        from harness.match.referee import play_game
        for seats in (({str(many)!r} + "/", "random"), ("sandbox:greedy", "random")):
            refs = tuple(BotRef(f"b{{{{i}}}}", s) for i, s in enumerate(seats))
            record = play_game(GameSpec("g", "battleline", {{{{}}}}, 2, refs))
            print(record.offender, record.reason[:200])
        print(len(os.listdir("/proc/self/fd")))
    """)
    for hard in (400, 4096):
        done = subprocess.run([sys.executable, "-c", script.format(hard=hard)],
                              capture_output=True, text=True, timeout=patience(300),
                              check=False)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0].startswith("None"), lines  # it played
        assert lines[1].startswith("None"), lines  # the next bot still starts
        assert int(lines[2]) < 30  # nothing leaked


def test_exit_statuses_above_128_are_not_blamed_on_a_signal_alone(tmp_path: Path) -> None:
    """Bubblewrap reports a death by signal as 128 + the signal, which a bot can also exit
    with: the reason says both rather than claim the signal."""
    bot = tmp_path / "quitter.py"
    bot.write_text("import os\ndef act(o, legal):\n    os._exit(152)\n")
    record = play_game(GameSpec("g", "battleline", {}, 2,
                                (BotRef("q", str(bot)), BotRef("r", "random"))))
    assert record.offender == 0
    if sandbox.report()["engine"] == "bubblewrap":
        assert "killed by SIGXCPU: CPU time limit exceeded (or exited with status 152)" \
            in record.reason, record.reason
    else:
        assert "exited with status 152" in record.reason, record.reason


def test_results_inside_a_directory_shown_under_tourney_stay_hidden(tmp_path: Path) -> None:
    """A results folder inside an import directory the jail shows under /tourney (here one on
    PYTHONPATH) is covered at the path the jail shows it at, as everywhere else."""
    shared = tmp_path / "lib"
    (shared / "results").mkdir(parents=True)
    (shared / "results" / "league.json").write_text('{"key": "SECRET"}')
    for path in (tmp_path, shared, shared / "results"):
        path.chmod(0o755)
    (shared / "results" / "league.json").chmod(0o644)
    peek = tmp_path / "peek.py"
    peek.write_text(textwrap.dedent("""
        import os, sys
        def act(o, legal):
            for entry in sys.path:
                path = os.path.join(entry, "results", "league.json")
                if os.path.exists(path):
                    print("FOUND", path, open(path).read())
            return legal[0]
    """))
    script = textwrap.dedent(f"""
        from harness.bots import isolation
        from harness.records import BotRef, GameSpec
        from harness.match.referee import play_game
        record = play_game(GameSpec("g", "battleline", {{}}, 2,
                                    (BotRef("p", {str(peek)!r}), BotRef("r", "random"))))
        print(record.offender, "SHOWN" if {str(shared)!r} in isolation.jail_paths() else "",
              record.logs[0].replace(chr(10), " | "))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shared), str(isolation.PROJECT_ROOT)])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=shared, env=env, timeout=patience(300), check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("None"), done.stdout
    assert "SECRET" not in done.stdout and "FOUND" not in done.stdout, done.stdout


def test_a_sandboxed_bot_imports_the_engines_the_referee_plays_with(shared_dir: Path) -> None:
    """A sandboxed bot runs the environment's base interpreter, which finds the compiled engines
    only where the harness tells it (``TOURNEY_NATIVE_DIR``): without that it ran them from
    their sources, three times slower, while the referee ran them compiled."""
    from games import native

    looker = shared_dir / "engines.py"
    looker.write_text("def act(o, legal):\n"
                      "    from games import native\n"
                      "    print(sorted(native.status().items()))\n"
                      "    return legal[0]\n")
    record = play_game(GameSpec("g", "battleline", {}, 2,
                                (BotRef("l", str(looker)), BotRef("r", "random"))))
    assert record.offender is None, record.reason
    assert record.logs[0].splitlines()[0] == str(sorted(native.status().items()))


def test_a_jails_pid_1_has_the_bots_limits() -> None:
    """A jail's PID 1 is tourney's own init, forked off the runner once the bot's limits are set
    (and out of the bot's reach, tests/harness/hostile/init_taker.py): nothing run there could
    escape them."""
    probe = Path(__file__).parent / "hostile" / "init_limits.py"
    record = play_game(GameSpec("g", "battleline", {}, 2,
                                (BotRef("l", str(probe)), BotRef("r", "random"))))
    assert record.offender is None, record.reason
    own, init = record.logs[0].splitlines()[:2]
    if sandbox.report()["engine"] == "bubblewrap":
        assert own == init and "unlimited" not in own.split("|")[0], (own, init)


# the kcmp system call's number (the generic table's elsewhere: arm64, riscv64, loongarch64)
_KCMP = {"x86_64": 312, "i686": 349, "ppc64le": 354, "s390x": 343}
_KCMP_VM = 1


def _share_memory(one: int, other: int) -> bool:
    """Whether two processes share one address space (``kcmp(KCMP_VM)``)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    number = _KCMP.get(os.uname().machine, 272)
    found = int(libc.syscall(number, one, other, _KCMP_VM, 0, 0))
    assert found >= 0, os.strerror(ctypes.get_errno())
    return found == 0


def test_a_python_bots_pid_1_is_an_idle_clone_that_shares_the_servers_memory(
        jails: Jails) -> None:
    """A Python bot's PID 1 is a clone of its start-up server that shares the server's memory
    and only pauses: it costs no copy of that memory at its start and nothing at its end (it was
    a fork of the server, which forked the bot off itself: two copies of the server a bot). It
    is the first process of the bot's PID namespace (the bot is PID 2, a child of the server),
    in the bot's network, IPC, UTS and cgroup namespaces, asleep, and killing it still ends the
    bot."""
    if sandbox.report()["engine"] != "bubblewrap" or sandbox.bot_starter() is None:
        return
    agent = sandbox.SandboxedAgent(parse_spec("sandbox:random"), Limits())
    try:
        agent.start({"game": "battleline", "seat": 0, "rng_seed": 1}, patience(30))
        assert isinstance(agent.proc, starter.ForkedBot) and agent._starter is not None
        init, bot, server = agent.proc.init_pid, agent.proc.pid, agent._starter._pid
        assert _share_memory(init, server) and not _share_memory(bot, server)
        with open(f"/proc/{init}/status") as f:
            status = dict(line.split(":\t", 1) for line in f.read().splitlines())
        assert status["State"].startswith("S") and status["Threads"] == "1", status
        assert status["NSpid"].split()[-1] == "1", status  # PID 1 of the bot's namespace
        with open(f"/proc/{bot}/status") as f:
            assert f"PPid:\t{server}\n" in f.read()  # the server's child, PID 2 inside
        for name in ("pid", "net", "ipc", "uts", "cgroup"):  # (a normal user's bot then has a
            # user namespace and a mount namespace of its own, inside its init's)
            assert os.stat(f"/proc/{init}/ns/{name}").st_ino == \
                os.stat(f"/proc/{bot}/ns/{'pid_for_children' if name == 'pid' else name}").st_ino
        agent.resume()  # (a process frozen by the v1 freezer dies only once thawed)
        assert agent._init is not None
        jail.end(agent._init)
        assert agent.proc.exit_status(patience(10)) == 128 + signal.SIGKILL
    finally:
        agent.close()
    assert not jails.left(patience(10))


_FREEZE_PROBE = """
import gc
import sys


class Bot:
    def start(self, info):
        print("frozen", gc.get_freeze_count())
        print("collector", gc.isenabled())
        print("ahead", ",".join(sorted(sys.modules["tourney_runner"]._AHEAD)))
        print("mine", __file__)

    def act(self, observation, legal):
        return legal[0]
"""


def test_a_python_bot_starts_with_the_servers_objects_out_of_the_collectors_reach(
        tmp_path: Path) -> None:
    """The start-up server freezes its objects (``gc.freeze()``) before it forks any bot's
    process, as docs/bots.md says: a bot's collections scan only what the bot made, and never
    write to (so copy) the server's pages. The collector itself is on, as in any Python (the
    server imports with it off). The built-in bots' files are compiled in the server, at the
    path their processes load them from; a bot's own file of that name runs its own code."""
    if sandbox.report()["engine"] != "bubblewrap" or sandbox.bot_starter() is None:
        return
    probe = tmp_path / "random.py"  # loaded from /bot/random.py, as the built-in random is
    probe.write_text(_FREEZE_PROBE)
    record = play_game(GameSpec("g", "battleline", {}, 3, (BotRef("f", f"sandbox:{probe}"),
                                                           BotRef("r", "sandbox:random"))))
    assert record.offender is None, record.reason
    frozen = int(record.logs[0].split("frozen ", 1)[1].split()[0])
    assert frozen > 1000  # the interpreter's, the engines' and the runner's objects
    assert "collector True" in record.logs[0]
    assert "ahead /bot/greedy.py,/bot/mcts.py,/bot/random.py" in record.logs[0]
    assert "mine /bot/random.py" in record.logs[0]


def test_a_file_compiled_ahead_is_used_only_for_its_very_source_and_path(
        tmp_path: Path) -> None:
    """What the server compiled ahead (:func:`harness.bots.runner.compile_ahead`) stands in for
    a bot file only when the file's bytes and path are those it was compiled from."""
    from harness.bots import runner

    path = tmp_path / "ahead.py"
    source = b"class Bot:\n    def act(self, observation, legal):\n        return legal[-1]\n"
    path.write_bytes(source)
    runner.compile_ahead(str(path), source)
    try:
        code = runner._AHEAD[str(path)][1]
        assert runner._compiled(source, str(path)) is code
        assert runner._compiled(source + b"\n", str(path)) is not code
        assert runner._compiled(source, str(tmp_path / "other.py")) is not code
        assert runner.load_bot_file(path)().act({}, ["a", "b"]) == "b"
        path.write_bytes(source.replace(b"[-1]", b"[0]"))  # edited since: compiled anew
        assert runner.load_bot_file(path)().act({}, ["a", "b"]) == "a"
    finally:
        runner._AHEAD.pop(str(path), None)


def test_the_forked_start_probe_is_held_until_the_referee_has_looked() -> None:
    """``sandbox.report()`` probes the forked start with a runner that reports what holds. One
    that exited at once took its PID 1, and the namespaces, with it before a slow referee read
    them from outside, and the report said that Python bots got no forked start (20 of 60
    probes beside two busy loops). The probe now waits until the referee has looked."""
    if sandbox.report()["engine"] != "bubblewrap" or sandbox.bot_starter() is None:
        return
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(min(os.cpu_count() or 1, 8))]
    try:
        probes = [sandbox._probe_forked() for _ in range(20)]
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert all(probe.get("pid_namespace") for probe in probes), probes


@pytest.mark.parametrize("stopped", [False, True], ids=["running", "stopped"])
@pytest.mark.parametrize("forked", [True, False], ids=["forked", "own-jail"])
def test_a_jail_ends_when_its_bubblewrap_dies(forked: bool, stopped: bool, jails: Jails,
                                              shared_dir: Path) -> None:
    """A referee killed outright takes bubblewrap's outer process with it, whose death signal
    kills the jail's PID 1, which ends every process of the namespace: running, or stopped
    between its turns. For a Python bot that outer process is the start-up server's, whose
    PID 1 is the server (every bot it forked is in its PID namespace); for a command, the bot's
    own jail's. As root too, where the bot is nobody: PID 1 keeps root's uid (without a
    capability) because the outer process, root's without capabilities, may signal only its
    own uid (a PID 1 that had become nobody outlived it). A bot frozen by the v1 freezer dies
    only once thawed, which the next tourney process does for the groups of a dead referee
    (as the test does here)."""
    if sandbox.report()["engine"] != "bubblewrap":
        return
    script = shared_dir / "wire.py"
    script.write_text(WIRE_BOT)
    spec = "sandbox:random" if forked else f"cmd:{sandbox.bot_python()} {script}"
    agent = sandbox.SandboxedAgent(parse_spec(spec), Limits())
    try:
        agent.start({"game": "battleline", "seat": 0, "rng_seed": 1}, patience(30))
        if not stopped:
            agent.resume()
        outer = agent._starter._proc.pid if agent._starter is not None else agent.proc.pid
        assert isinstance(agent.proc, starter.ForkedBot) == forked
        os.kill(outer, signal.SIGKILL)  # as the referee's death does to it
        if stopped and agent.group.freezer == "cgroup1":
            time.sleep(0.2)
            assert jails.processes()  # frozen, with SIGKILL pending
            agent.group.thaw()
        assert not jails.left(patience(10))
    finally:
        agent.close()


WIRE_BOT = """import sys
for line in sys.stdin:
    print('{"type": "ready"}' if '"start"' in line else '{"type": "ok"}', flush=True)
"""


def _state(pid: int) -> str:
    """A process's state letter ("" once it is gone; "Z" until its new parent reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except OSError:
        return ""


def _hold_at_the_race(program: list[str]) -> tuple[subprocess.Popen[bytes], int, int]:
    """Start bubblewrap as a referee does (its own session) and hold its outer process in the
    window where the jail's init is cloned but not yet told to go on (``--userns-block-fd``
    stops it just there): the outer process, the init's pid and the descriptor that holds it."""
    path = jail.bwrap()
    assert path is not None
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    proc = subprocess.Popen(
        [path, "--unshare-user", "--unshare-pid", "--die-with-parent", "--info-fd", str(info_w),
         "--userns-block-fd", str(block_r), "--ro-bind", "/", "/", "--", *program],
        pass_fds=(info_w, block_r), start_new_session=True, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    os.close(info_w)
    os.close(block_r)
    with os.fdopen(info_r, "rb") as info:  # written once the init is cloned, then it blocks
        child = int(json.loads(info.read())["child-pid"])
    return proc, child, block_w


@pytest.mark.serial  # any process's first jail clears the strays of its user, this one too
def test_a_jail_stranded_by_a_referee_killed_while_starting_it_is_cleared() -> None:
    """Bubblewrap's init arms its death signal only after the outer process tells it to go on
    (bubblewrap issue #633): a referee killed in that window (its outer bubblewrap dies with it)
    leaves the init waiting forever, with the bot's memory files open. The next process that
    starts a jail kills such strays, and only them: a jail whose outer process lives, or a
    process without tourney's runner in its command line, is left alone. (Where bubblewrap
    cannot build jails, a user without user namespaces, bots run without one: nothing to
    strand, and nothing is killed.)"""
    if sandbox.report()["engine"] != "bubblewrap":
        assert jail.clear_stranded() == []
        return
    program = [sys.executable, "-c", "pass", jail.RUNNER]
    stranded, init, hold = _hold_at_the_race(program)
    live, live_init, live_hold = _hold_at_the_race(program)
    other, other_init, other_hold = _hold_at_the_race([sys.executable, "-c", "pass"])
    try:
        for proc in (stranded, other):
            proc.kill()  # as the referee's death does to it
            proc.wait()
        time.sleep(0.3)
        assert _state(init) not in ("", "Z")  # the bug: the init outlives its jail's start
        assert _state(other_init) not in ("", "Z")
        killed = jail.clear_stranded()
        assert init in killed
        assert live_init not in killed and live.pid not in killed and other_init not in killed
        deadline = time.monotonic() + patience(10)
        while _state(init) not in ("", "Z") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _state(init) in ("", "Z")
        assert _state(live_init) not in ("", "Z") and live.poll() is None
    finally:
        for fd in (hold, live_hold, other_hold):
            os.close(fd)
        live.kill()
        live.wait()
        for pid in (init, live_init, other_init):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
