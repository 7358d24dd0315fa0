"""Hostile bots (tests/harness/hostile/) against the protections of issue 10.

Each test plays a purpose-written bot file the way an entrant would, sandboxed, and checks that
the hole it exploits is closed: deals no bot can compute, a referee that survives any bytes,
limits per bot (not per process), the whole tree stopped between turns, and an allow-list file
system.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.bots import cgroups, isolation, jail, sandbox
from harness.cli.app import app
from harness.match.placement import pinned_here
from harness.match.referee import play_game
from harness.records import BotRef, GameSpec, Limits, Termination
from tests.harness.leftovers import Jails
from tests.patience import patience

HOSTILE = Path(__file__).resolve().parent / "hostile"
EASY = Limits(move_time=5.0, overage=5.0, startup_time=30.0, memory_bytes=256 << 20,
              cpu_seconds=60, log_bytes=16384)


def hostile(name: str) -> str:
    return str(HOSTILE / name)


def play(game: str, *specs: str, limits: Limits = EASY, seed: int = 1) -> tuple[
        Termination, str, list[str], int | None, list[float]]:
    seats = tuple(BotRef(f"b{i}", s) for i, s in enumerate(specs))
    record = play_game(GameSpec("g", game, {}, seed, seats, limits=limits))
    return record.termination, record.reason, record.logs, record.offender, \
        [m.think_time for m in record.moves if m.seat == 0]


STATE = sandbox.report()  # what this machine gives bots for the user running the tests


def in_force(key: str) -> bool:
    """Whether the protection ``key`` of :data:`isolation.REQUIRED` holds here for this user."""
    return isolation.REQUIRED[key] not in isolation.missing(STATE)


def bot_user() -> int:
    """The uid a sandboxed bot runs as: ``nobody`` when tourney runs as root, else the user."""
    return 65534 if os.geteuid() == 0 else os.getuid()


def test_everything_is_in_force_here_as_root_and_the_rest_is_said() -> None:
    """As root (CI) the machine gives bots every protection. As a normal user, what is missing
    is what the kernel gives this user no mechanism for (per-bot limits need a cgroup this user
    may write), and the report says so; the tests below assert what holds for the user running
    them."""
    missing = isolation.missing(STATE)
    described = isolation.describe(STATE)
    # the stop between turns: the bot's group frozen wherever it has a freezer, else its
    # whole tree stopped by signals, checked, under the filter that keeps it from waking
    freezer = cgroups.backend().freezer
    assert f"stopped between turns: whole tree ({'freezer' if freezer else 'signals'})" \
        in described, described
    if os.geteuid() == 0:
        assert missing == [], described
        assert cgroups.mechanism() in ("cgroup1", "cgroup2")
        return
    limits = cgroups.mechanism() != "rlimits"
    # a user namespace gives a normal user everything else (where the kernel allows one)
    assert set(missing) <= {isolation.REQUIRED["cgroups"]}
    assert (isolation.REQUIRED["cgroups"] not in missing) == limits
    assert f"limits per bot: {cgroups.mechanism()}" in described


# ------------------------------------------------------------------- 1. the deal is computable


def _league(out: Path, seed: int | None, bot: str) -> list[str]:
    from harness.league.service import make_executor, prepare_league, run_league

    plan = prepare_league("battleline", [f"rebuilder={bot}", "random"], out=out, games=2,
                          seed=seed)
    run_league(plan, make_executor(0, out, None), progress=False)
    return [p.read_text() for p in sorted((out / "logs").glob("*.log"))]


def test_the_deal_rebuilder_cannot_find_the_deal_even_with_seed_0(tmp_path: Path) -> None:
    logs = _league(tmp_path / "lg", 0, hostile("deal_rebuilder.py"))
    assert len(logs) == 2
    assert all(log.strip() == "NOT FOUND" for log in logs), logs
    stored = json.loads((tmp_path / "lg" / "league.json").read_text())
    assert stored["deal_scheme"] == "hmac-v1" and len(stored["key"]) == 32
    assert (tmp_path / "lg" / "league.json").stat().st_mode & 0o077 == 0


def test_the_deal_rebuilder_does_rebuild_a_legacy_league(tmp_path: Path) -> None:
    """The control: in a league stored before keys (resumed under its old scheme) the same bot
    finds the deal, so the test above can fail."""
    out = tmp_path / "old"
    _league(out, 0, hostile("deal_rebuilder.py"))
    config = json.loads((out / "league.json").read_text())
    del config["key"], config["deal_scheme"]  # as league.json was written before keys
    (out / "league.json").write_text(json.dumps(config))
    shutil.rmtree(out / "games")
    shutil.rmtree(out / "moves")
    shutil.rmtree(out / "logs")
    logs = _league(out, None, hostile("deal_rebuilder.py"))
    assert any(log.startswith("FOUND league seed 0") for log in logs), logs


def test_bots_get_no_game_id_and_their_rng_seed_is_not_the_deal(toy: str,
                                                                shared_dir: Path) -> None:
    path = shared_dir / "info.py"
    path.write_text("import json\nclass B:\n    def start(self, info):\n"
                    "        print(json.dumps(info))\n    def act(self, o, legal):\n"
                    "        return legal[0]\n")
    term, reason, logs, _, _ = play(toy, str(path), "random", seed=5)
    assert not term.is_forfeit, reason
    info = json.loads(logs[0])
    assert "game_id" not in info and info["rng_seed"] != 5


def test_the_seed_searcher_finds_no_play_or_validate_deal_unless_the_seed_is_chosen_small(
        ) -> None:
    """play and validate deal from 62 random bits by default, so a bot cannot find the deal
    seed from its rng_seed by trying small seeds (validate dealt seeds 1, 2, 1001 and 1002);
    the control: the same bot finds a small seed that the user chose."""
    from harness.cli.bots import validate_bot

    searcher = hostile("seed_searcher.py")
    report = validate_bot(searcher, "battleline", games_per_seat=1)
    assert report.passed, report.lines
    seeds = [int(line.split("(seed ")[1].split(")")[0]) for line in report.lines
             if "(seed " in line]
    assert len(seeds) == 2 and min(seeds) >= 200_000
    chosen = validate_bot(searcher, "battleline", games_per_seat=1, seed=1)
    assert not chosen.passed and "FOUND deal seed 1" in " ".join(chosen.lines)
    played = CliRunner().invoke(app, ["play", "battleline", searcher, "random"])
    assert played.exit_code == 0 and "FOUND" not in played.output, played.output
    assert int(played.output.split(" seed ")[1].split(";")[0]) >= 200_000
    small = CliRunner().invoke(app, ["play", "battleline", searcher, "random", "--seed", "7"])
    assert "crash" in small.output and "FOUND deal seed 7" in small.output, small.output


# ---------------------------------------------------------- 2. a referee that survives any bytes


def test_deep_nesting_is_a_protocol_error_forfeit(toy: str) -> None:
    term, reason, _, offender, _ = play(toy, hostile("deep_nesting.py"), "random")
    assert term is Termination.PROTOCOL and offender == 0, reason
    assert "nested too deeply" in reason


def test_deep_nesting_through_play_and_validate_is_a_forfeit_not_a_traceback() -> None:
    runner = CliRunner()
    played = runner.invoke(app, ["play", "battleline", hostile("deep_nesting.py"), "random",
                                 "--seed", "3"])
    assert played.exit_code == 0, played.output
    assert "forfeits: protocol error" in played.output and "Traceback" not in played.output
    mechanism = (f"namespaces and root by: bubblewrap, limits per bot: {cgroups.mechanism()}, "
                 "file system: allow-list")
    assert f"sandbox: {mechanism}" in played.output  # what was in force, recorded
    checked = runner.invoke(app, ["validate", hostile("deep_nesting.py"), "--game", "bl",
                                  "--games", "1"])
    assert checked.exit_code == 1 and "protocol_error" in checked.output, checked.output
    assert f"isolation in force: {mechanism}" in checked.output
    assert "bots start: Python bots forked by the start-up server, commands in a new jail " \
           "each" in checked.output  # what this machine gives both the root and a normal user
    assert "Traceback" not in checked.output


def _writes(data: bytes) -> str:
    return f"sys.stdout.buffer.write({data!r})"


WRITERS = {
    "huge number": (_writes(b'{"type": "action", "action": ' + b"9" * 100_000 + b"}\n"),
                    Termination.PROTOCOL, "not JSON"),
    "invalid utf-8": (_writes(b'{"type": "action", "action": "\xff\xfe"}\n'),
                      Termination.PROTOCOL, "not JSON"),
    "overlong line": (_writes(b"x" * (5 << 20)), Termination.PROTOCOL, "without a newline"),
    "closed pipe": ("os.close(1)", Termination.PROTOCOL, "closed its protocol input or output"),
    "surrogate message": (_writes(b'{"type": "error", "message": "\\ud800' + b"y" * 100_000
                                  + b'"}\n'), Termination.CRASH, "gave up: \\ud800yyy"),
    "nan": (_writes(b'{"type": "action", "action": NaN}\n'), Termination.PROTOCOL,
            "not an action string"),
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_any_bytes_are_a_forfeit_of_the_writer(toy: str, shared_dir: Path, name: str) -> None:
    write, termination, words = WRITERS[name]
    script = shared_dir / "writer.py"
    script.write_text(textwrap.dedent(f"""
        import json, os, sys, time
        for line in sys.stdin:
            if json.loads(line)["type"] == "start":
                print(json.dumps({{"type": "ready"}}), flush=True)
            else:
                {write}
                sys.stdout.flush()
                time.sleep(30)
    """))
    script.chmod(0o644)
    term, reason, _, offender, _ = play(toy, f"cmd:{sandbox.bot_python()} {script}", "random")
    assert term is termination and offender == 0, reason
    assert words in reason
    assert len(reason) < 700 and reason.encode("utf-8")  # storable as it is


def test_output_before_ready_is_a_protocol_error(toy: str, shared_dir: Path) -> None:
    script = shared_dir / "early.py"
    script.write_text('import json\nprint(json.dumps({"type": "action", "action": "pass"}), '
                      'flush=True)\nimport time\ntime.sleep(30)\n')
    term, reason, _, offender, _ = play(toy, "random", f"cmd:{sandbox.bot_python()} {script}")
    assert term is Termination.PROTOCOL and offender == 1
    assert "answered 'action' where 'ready' was expected" in reason


# ------------------------------------------------------------------ 3. CPU theft


@pytest.mark.parametrize("thief", ["cpu_thief.py:Thief", "cpu_thief.py:Waker"])
def test_a_cpu_thief_cannot_slow_a_fair_thinker(toy: str, thief: str) -> None:
    """The thief's busy children get CPU only during its own (instant) turns, so the thinker's
    0.3 s of CPU per decision fit its time in every decision (8 spinners sharing its CPU would
    stretch each to ~2.7 s, past the budget, and the thief would have had seconds of CPU). The
    waker's children also try to SIGCONT each other: a frozen group does not wake, the filter
    refuses the signal, and a stop by signals repeats until every thread reads stopped."""
    # the times stretch with the machine's load, as the thinker's 0.3 s of CPU does (8 unstopped
    # spinners would still stretch it nine times, past them)
    limits = Limits(move_time=patience(1.5), overage=patience(3.0), startup_time=30.0,
                    memory_bytes=256 << 20, cpu_seconds=60, log_bytes=4096)
    with pinned_here():  # one CPU for the game and both bots, as play and leagues run
        term, reason, logs, offender, think = play(
            toy, hostile("fair_thinker.py"), hostile(thief), limits=limits)
    assert in_force("freeze"), STATE["freeze"]  # frozen, or (no cgroup) stopped by signals
    assert offender is None and not term.is_forfeit, reason  # the whole game, in time
    assert len(think) >= 3 and sum(think) >= 0.3 * len(think)
    # unstopped, the 8 children would have had about 8 times the thinker's CPU; stopped, they
    # run only in the thief's own turns (longer on a loaded machine, where the referee waits)
    stolen = float(logs[1].splitlines()[-1].split()[1])
    assert stolen < sum(think), (stolen, think)


def test_kernel_timers_cannot_wake_a_bot_stopped_between_its_turns(toy: str) -> None:
    """One process and a spinning thread, with six kernel timers that send it SIGCONT every 1 to
    11 ms: stopped by SIGSTOP alone, it is awake again at once and spins through its opponent's
    turns. Its CPU time in those turns stays a small part of what the opponent thinks (a
    freezer cannot be undone from inside; without one the timers are refused)."""
    limits = Limits(move_time=patience(1.5), overage=patience(3.0), startup_time=30.0,
                    memory_bytes=256 << 20, cpu_seconds=60, log_bytes=8192)
    with pinned_here():  # one CPU for the game and both bots, as play and leagues run
        term, reason, logs, offender, think = play(
            toy, hostile("fair_thinker.py"), hostile("timer_waker.py"), limits=limits)
    assert offender is None and not term.is_forfeit, reason
    said = logs[1].splitlines()
    gaps = [float(line.split()[1]) for line in said if line.startswith("gap ")]
    assert len(think) >= 3 and len(gaps) >= 3, said
    assert sum(gaps) < 0.15 * sum(think), (said[0], sum(gaps), sum(think), gaps)


SIGCONT_SENDERS = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
                   "pidfd_send_signal", "fsetsig", "pdeathsig", "clone")
UNFROZEN = ("timer", "mq_notify", "setsid", "setpgid")


def test_a_bot_cannot_have_a_sigcont_sent_to_itself(toy: str) -> None:
    """Every way a bot could send its own processes a SIGCONT, or have the kernel send one
    (high bits in the signal's register included), is refused, for every user; where the bot
    cannot be frozen (no cgroup freezer) and is stopped by signals, so are kernel timers,
    message-queue notifications and leaving its process group (what it may do where it is
    frozen: nothing wakes a frozen group)."""
    term, reason, logs, _, _ = play(toy, hostile("sigcont_sources.py"), "random")
    assert not term.is_forfeit, reason
    if os.uname().machine != "x86_64":
        return
    attempts = dict(line.split(" ", 1) for line in logs[0].splitlines())
    refused = f"REFUSED {errno.EPERM}"
    assert {name: attempts.get(name) for name in SIGCONT_SENDERS} == \
        dict.fromkeys(SIGCONT_SENDERS, refused), attempts
    assert attempts["pdeathsig_kill"] == "OK"
    frozen = STATE["freeze"] == "whole tree (freezer)"
    assert {name: attempts.get(name) for name in UNFROZEN} == \
        dict.fromkeys(UNFROZEN, "OK" if frozen else refused), attempts


# ------------------------------------------------------------------ 4. limits per bot


def test_fork_and_allocate_is_killed_at_the_per_bot_limit(toy: str) -> None:
    limits = Limits(move_time=5.0, overage=5.0, startup_time=30.0, memory_bytes=512 << 20,
                    cpu_seconds=60)
    term, reason, _, offender, _ = play(toy, hostile("fork_allocator.py"), "random",
                                        limits=limits)
    if not in_force("cgroups"):  # a normal user without a cgroup: the limit is per process
        assert STATE["mechanism"] == "rlimits" and isinstance(term, Termination), reason
        return
    assert term is Termination.CRASH and offender == 0, reason
    assert "memory limit of 512 MB for the bot and all its processes" in reason


def test_a_fork_bomb_stops_at_the_process_limit(toy: str, shared_dir: Path) -> None:
    path = shared_dir / "bomb.py"
    path.write_text(textwrap.dedent("""
        import os, time
        class Bomb:
            def start(self, info):
                n = 0
                try:
                    for _ in range(500):
                        if os.fork() == 0:
                            time.sleep(60)
                            os._exit(0)
                        n += 1
                except OSError as exc:
                    print(n, type(exc).__name__, flush=True)
            def act(self, o, legal):
                return legal[0]
    """))
    limits = Limits(move_time=5.0, overage=5.0, startup_time=30.0, max_processes=20)
    term, reason, logs, _, _ = play(toy, str(path), "random", limits=limits)
    assert not term.is_forfeit, reason
    if not STATE["processes_per_bot"]:  # no cgroup and no user namespace of its own: the
        assert STATE["mechanism"] == "rlimits"  # user's RLIMIT_NPROC would count all of the
        return  # user's processes, so no per-bot count is promised
    # a cgroup's pids.max, or (a normal user) RLIMIT_NPROC in the bot's own user namespace
    forked, error = logs[0].split()
    assert int(forked) < 20 and error == "BlockingIOError"


def _leftovers(marker: str) -> list[str]:
    found = []
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        with os.scandir(folder) as entries:
            found += [e.path for e in entries if marker in e.name]
    return found


def test_the_disk_filler_stops_at_its_scratch_limit_and_nothing_is_left(toy: str) -> None:
    limits = Limits(move_time=10.0, overage=5.0, startup_time=30.0, scratch_bytes=8 << 20)
    term, reason, logs, _, _ = play(toy, hostile("disk_filler.py"), "random", limits=limits)
    assert not term.is_forfeit, reason
    wrote = dict(line.split(" ", 1) for line in logs[0].splitlines())
    tmp_bytes, tmp_error = wrote["/tmp"].split()
    assert int(tmp_bytes) <= 8 << 20 and tmp_error == "OSError"
    assert all(wrote[f].startswith("0 ") for f in ("/var/tmp", "/dev/shm")), wrote
    assert _leftovers("tourney-disk-filler") == []


# ------------------------------------------------------------------ 4b. ways out and memory


def test_the_jailbreaker_holds_no_capability_and_every_way_out_is_refused(toy: str) -> None:
    """As a normal user the bot lives in a user namespace, where it used to hold every
    capability: it could remount the environment writable, unmount its size-limited /tmp,
    ptrace its PID 1, make new namespaces, widen its CPUs and use the host's keyring. Now it
    holds none, and a system-call filter refuses each (as root too)."""
    term, reason, logs, _, _ = play(toy, hostile("jailbreaker.py"), "random")
    assert not term.is_forfeit, reason
    first, *rest = logs[0].splitlines()
    assert first == ("caps CapEff=0000000000000000 CapPrm=0000000000000000 "
                     "CapBnd=0000000000000000 CapAmb=0000000000000000 NoNewPrivs=1 Seccomp=2")
    attempts = dict(line.split(" ", 1) for line in rest)
    assert {"remount", "umount", "mount", "ptrace", "unshare", "affinity"} <= set(attempts)
    assert all(result.startswith("REFUSED") for result in attempts.values()), attempts
    assert STATE["capabilities"] == "none" and STATE["seccomp"], isolation.describe(STATE)


def test_a_bot_opens_sockets_of_af_unix_only(toy: str) -> None:
    """A network namespace hides the network, not the families no namespace covers: AF_VSOCK
    (the virtual machine's host), AF_NETLINK, AF_ALG... opened in the jail before. The filter
    refuses socket() and socketpair() of every family but AF_UNIX with EAFNOSUPPORT, whatever
    the bits above the 32 the kernel reads, and the report says so, measured."""
    if not in_force("seccomp"):
        assert isolation.REQUIRED["seccomp"] in isolation.missing(STATE)
        return
    term, reason, logs, _, _ = play(toy, hostile("socket_families.py"), "random")
    assert not term.is_forfeit, reason
    lines = logs[0].splitlines()
    tried = [line.split() for line in lines if line.startswith(("socket ", "socketpair "))]
    assert len(tried) == 2 * 64 + 1, lines
    opened = [" ".join(words[:3]) for words in tried if words[3] == "OK"]
    assert opened == ["socket 1 AF_UNIX", "socketpair 1 AF_UNIX"], lines
    refused = {words[4] for words in tried if words[3] == "REFUSED"}
    assert refused == {"EAFNOSUPPORT"}, lines  # the filter's answer, before any kernel's
    assert lines[-1] == "socket raw AF_INET+high REFUSED EAFNOSUPPORT"
    assert STATE["sockets"] == ["AF_UNIX"]
    assert "system-call filter yes (sockets: AF_UNIX only)" in isolation.describe(STATE)


def test_the_cache_prober_cannot_ask_the_page_cache(toy: str) -> None:
    """The calls that tell, without reading, which pages of a shared file are in the page cache
    (what the other bot and the referee read) are refused; the same calls without RWF_NOWAIT
    still work. (What no filter closes, timing a first read, is in docs/sandbox-engines.md.)"""
    if not in_force("seccomp"):
        assert isolation.REQUIRED["seccomp"] in isolation.missing(STATE)
        return
    term, reason, logs, _, _ = play(toy, hostile("cache_prober.py"), "random")
    assert not term.is_forfeit, reason
    said = dict(line.split(" ", 1) for line in logs[0].splitlines())
    unsupported = f"REFUSED {errno.errorcode[errno.EOPNOTSUPP]}"
    assert said == {"mincore": "REFUSED EPERM", "cachestat": "REFUSED ENOSYS",
                    "preadv2-nowait": unsupported, "preadv2-nowait-hipri": unsupported,
                    "preadv2-plain": "OK", "pwritev2-nowait": unsupported,
                    "pwritev2-dsync": "OK", "io_setup": "REFUSED ENOSYS"}, said


def test_the_init_taker_finds_no_init_to_take_and_leaves_nothing_running(
        toy: str, jails: Jails) -> None:
    """In a normal user's jail bubblewrap's init (PID 1) had the bot's uid: the bot could write
    code into it through /proc/1/mem (the init_taker makes it leave the referee's session and
    forget to die with its parent) and leave a daemon that outlived the game with it. Now PID 1
    is tourney's own init, forked off the runner before any bot code and non-dumpable, for
    every user: the bot can neither write nor read its memory, its program counter or its map;
    and the close kills PID 1 (through a pidfd), which ends every process of the namespace (a
    daemon in a session of its own, without a parent-death signal, among them)."""
    term, reason, logs, _, _ = play(toy, hostile("init_taker.py"), "random")
    assert not term.is_forfeit, reason
    seen = dict(line.split(" ", 1) for line in logs[0].splitlines() if " " in line)
    left = jails.left(patience(10))
    assert not left, (seen, left)
    assert seen["daemon"].startswith("setsid "), seen  # the daemon was started
    assert (seen["pids"], seen["self"]) == ("1 2", "2"), seen  # the init and the bot
    refused = f"REFUSED {errno.EACCES}"
    assert seen["mem"] == seen["syscall"] == seen["maps"] == seen["init"] == refused, seen


def _host_ipc_keys() -> set[int]:
    keys = set()
    for table in ("/proc/sysvipc/shm", "/proc/sysvipc/msg"):
        with open(table) as f:
            keys |= {int(line.split()[0]) for line in f.read().splitlines()[1:] if line.strip()}
    return keys


def test_the_ipc_rememberer_finds_nothing_of_its_last_game(toy: str) -> None:
    """System V memory and queues are the bot's own namespace's: gone with its game, never on
    the host (where a bot could keep its hand for the second game of a duplicate pair, and
    leaked segments stayed charged to a reused memory group); the keyring is refused."""
    logs = [play(toy, hostile("ipc_memory.py"), "random")[2][0] for _ in range(2)]
    assert "WROTE shm" in logs[0] and "WROTE msg" in logs[0], logs[0]
    assert "FOUND" not in logs[1], logs[1]
    assert "WROTE key" not in logs[0] + logs[1]
    assert not {0x70757274, 0x70757275} & _host_ipc_keys()


def test_a_bot_finds_nothing_of_an_earlier_bot_in_its_memory(toy: str, shared_dir: Path) -> None:
    """Every Python bot's process is forked by one start-up server per referee, from the same
    process: a later bot must find in its memory nothing of an earlier bot's request (here the
    earlier bot's file name). Both seats read, so one of them is a process the server made after
    the earlier bot's request (it makes them ahead of time, two at a time)."""
    earlier = shared_dir / "previous-bot-k7q.py"
    earlier.write_text("def act(o, legal):\n    return legal[0]\n")
    reader = hostile("memory_reader.py")
    term, reason, logs, _, _ = play(toy, str(earlier), "random")
    assert not term.is_forfeit, reason
    term, reason, logs, _, _ = play(toy, reader, reader)
    assert not term.is_forfeit, reason
    assert [log.split()[:2] for log in logs] == [["FOUND", "0"]] * 2, logs


def test_the_mounts_name_no_path_of_the_organisers(toy: str, shared_dir: Path) -> None:
    """In a jail, tourney's packages and environment are shown under /tourney: the bot's mounts,
    import path and module files name no directory of the organiser's (only the interpreter's
    installation keeps its path, where its binary finds its library)."""
    if not in_force("filesystem"):
        assert isolation.REQUIRED["filesystem"] in isolation.missing(STATE)
        return
    path = shared_dir / "mounts.py"
    path.write_text(textwrap.dedent("""
        import sys, games
        def act(o, legal):
            with open("/proc/self/mountinfo") as f:
                print(" ".join(line.split()[4] for line in f))
            print(" ".join(sys.path), games.__file__, sys.executable)
            return legal[0]
    """))
    term, reason, logs, _, _ = play(toy, str(path), "random")
    assert not term.is_forfeit, reason
    seen = logs[0]
    root = str(Path(__file__).resolve().parents[2])
    assert root not in seen and str(shared_dir) not in seen, seen
    assert "/tourney/games/__init__.py" in seen
    assert ("/tourney/env" in seen) == (sys.prefix != sys.base_prefix)  # a virtual environment


def test_the_command_line_holds_no_host_path_or_referee_pid(toy: str, shared_dir: Path) -> None:
    """The confinement (host paths of the bot and of results folders, the referee's pid) reaches
    the runner on a pipe it closes (or, from the start-up server, a socket), not on the command
    line the bot can read in /proc: that is the runner's, or the start-up server's, naming only
    modules it imported."""
    path = shared_dir / "snoop.py"
    path.write_text(textwrap.dedent("""
        import os
        def act(o, legal):
            for pid in ("self", "1"):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        print(pid, f.read().replace(b"\\0", b" ").decode())
                except OSError as exc:
                    print(pid, "unreadable", exc.errno)
            return legal[0]
    """))
    term, reason, logs, _, _ = play(toy, str(path), "random")
    assert not term.is_forfeit, reason
    lines = logs[0].splitlines()
    seen = " ".join(lines)
    assert "--confine" in seen or jail.FORKSERVER in seen, lines
    assert "{" not in seen and str(shared_dir) not in seen, lines
    assert f"\"parent\": {os.getpid()}" not in seen
    assert [line.split()[0] for line in lines[:2]] == ["self", "1"]


# ------------------------------------------------------------------ 5. reading what is not theirs


def test_the_source_thief_and_seed_hunter_read_nothing_foreign(toy: str,
                                                               shared_dir: Path) -> None:
    token = os.urandom(8).hex()
    other = shared_dir / "secret_bot.py"
    other.write_text(f"# SECRET-STRATEGY-{token}\ndef act(o, legal):\n    return legal[-1]\n")
    other.chmod(0o644)
    league = shared_dir / "results" / "lg"
    league.mkdir(parents=True)
    (league / "league.json").write_text(json.dumps({"key": f"SECRET-KEY-{token}"}))
    (league / "league.json").chmod(0o644)
    for seats in ((hostile("source_thief.py"), str(other)),
                  (str(other), hostile("source_thief.py"))):
        term, reason, logs, _, _ = play(toy, *seats, limits=EASY)
        assert not term.is_forfeit, reason
        log = "".join(logs)
        assert "HUNT OVER" in log
        assert token not in log, log
        assert "league.json" not in log, log


def _shown_folder(where: str) -> Path:
    """A new folder's path inside a directory every bot is shown: tourney's ``agents`` package
    or the virtual environment (the suite runs in the clone's own ``.venv``, which ``make``
    makes for the user who runs it, as root and as ``make test-user``'s user alike)."""
    assert sys.prefix != sys.base_prefix, "run the tests in the clone's .venv: make test"
    parent = isolation.PROJECT_ROOT / "agents" if where == "agents" else Path(sys.prefix)
    assert os.access(parent, os.W_OK), f"{parent} is not yours: run make test in your own clone"
    return parent / f"tourney-test-league-{os.urandom(6).hex()}"


@pytest.mark.parametrize("where", ["agents", "environment"])
def test_a_league_folder_in_a_directory_shown_to_bots_plays_and_stays_hidden(
        toy: str, where: str) -> None:
    """--out inside a directory every bot sees: bubblewrap made the league folder's cover,
    read-only, then could not make the mount point of the logs/ folder inside it, so every
    sandboxed bot forfeited at its start. Now the folder is covered once, with all it holds: the
    league plays with no forfeit (through the real CLI), and the source thief reads neither
    league.json nor its key, even made readable by all. The control: the thief does read such a
    file there when no league hides it."""
    shown = _shown_folder(where)
    token = os.urandom(8).hex()
    try:
        shown.mkdir(mode=0o755)
        (shown / "league.json").write_text(json.dumps({"key": f"SECRET-KEY-{token}"}))
        (shown / "league.json").chmod(0o644)
        term, reason, logs, _, _ = play(toy, hostile("source_thief.py"), "random")
        assert not term.is_forfeit, reason
        assert f"/{shown.name}/league.json" in logs[0] and token in logs[0], logs[0]
    finally:
        shutil.rmtree(shown, ignore_errors=True)
    out = _shown_folder(where)
    command = [str(Path(sys.executable).parent / "tourney"), "league", "bl",
               f"thief={hostile('source_thief.py')}", "sandbox:random", "--out", str(out),
               "-q", "--json", "-j", "0"]
    try:
        first = subprocess.run([*command, "--games", "2"], capture_output=True, text=True,
                               timeout=patience(600), check=False)
        assert first.returncode == 0, first.stdout + first.stderr
        (out / "league.json").chmod(0o644)  # readable by all: only the cover keeps it hidden
        second = subprocess.run([*command, "--games", "4"], capture_output=True, text=True,
                                timeout=patience(600), check=False)
        assert second.returncode == 0, second.stdout + second.stderr
        for done in (first, second):
            summary = json.loads(done.stdout)
            assert summary["played"] == 2 and summary["forfeits"]["total"] == 0, summary
        key = json.loads((out / "league.json").read_text())["key"]
        said = "".join(path.read_text() for path in sorted((out / "logs").glob("*.log")))
        assert said.count("HUNT OVER") == 4, said
        assert key not in said and "league.json" not in said, said
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_the_var_tmp_writer_finds_nothing_in_its_next_game(toy: str) -> None:
    name = "tourney-var-tmp-writer.txt"
    before = {p for p in ("/var/tmp", "/dev/shm", "/tmp") if os.path.exists(f"{p}/{name}")}
    logs = [play(toy, hostile("var_tmp_writer.py"), "random")[2][0] for _ in range(2)]
    assert "REFUSED /var/tmp" in logs[0] and "WROTE /tmp" in logs[0]
    assert "FOUND" not in logs[1], logs[1]
    after = {p for p in ("/var/tmp", "/dev/shm", "/tmp") if os.path.exists(f"{p}/{name}")}
    assert after == before


def test_bot_files_are_readable_by_their_bot_only_and_imports_are_the_environment(
        toy: str, shared_dir: Path) -> None:
    path = shared_dir / "looker.py"
    path.write_text(textwrap.dedent("""
        import os, stat, sys
        def act(o, legal):
            mode = stat.S_IMODE(os.stat(__file__).st_mode)
            found = []
            for name in ("games", "agents", "pyarrow", "harness"):
                try:
                    __import__(name)
                    found.append(name)
                except ImportError:
                    pass
            import builtins
            found += [name for name in ("exit", "quit") if callable(getattr(builtins, name,
                                                                               None))]
            print(oct(mode), os.stat(__file__).st_uid == os.getuid(), ",".join(found),
                  sorted(os.listdir("/dev")), os.path.exists("/var"), os.path.exists("/home"))
            return legal[0]
    """))
    # numpy (which pyarrow imports) reserves more address space than EASY's 256 MB allows
    roomy = dataclasses.replace(EASY, memory_bytes=768 << 20)
    term, reason, logs, _, _ = play(toy, str(path), "random", limits=roomy)
    assert not term.is_forfeit, reason
    mode, own, found, *rest = logs[0].splitlines()[0].split(" ", 3)
    if sandbox.sandbox_user() is None:  # a user's jail: the bot's own, read-only, its alone
        assert mode == "0o400" and own == "True"
    else:  # root builds the jail: root's, read-only, readable in it (only the bot is there)
        assert mode == "0o444" and own == "False"
    assert found == "games,agents,pyarrow,exit,quit"  # the environment, never the harness
    # /var and /home exist in the bot's root only as the parents of the Python installation kept
    # at its own path (a clone's .venv is shown under /tourney), never with anything else
    kept = [p for p in isolation.python_paths() if p not in isolation.jail_paths()]
    shown = {top: any(isolation.inside(p, f"/{top}") for p in kept) for top in ("var", "home")}
    assert rest == ["['fd', 'null', 'stderr', 'stdin', 'stdout', 'urandom', 'zero'] "
                    f"{shown['var']} {shown['home']}"]


def test_a_failed_import_names_the_module_and_what_a_bot_may_import(toy: str,
                                                                    shared_dir: Path) -> None:
    path = shared_dir / "needs.py"
    path.write_text("import harness.league.schedule\ndef act(o, legal):\n    return legal[0]\n")
    term, reason, _, _, _ = play(toy, str(path), "random")
    assert term is Termination.CRASH
    assert "failed to import 'harness'" in reason
    assert f"the packages installed in tourney's Python environment ({sys.prefix})" in reason


@pytest.mark.serial  # any process that makes a control group clears a dead referee's
def test_no_stale_bot_files_after_a_referee_is_killed(toy: str, tmp_path: Path) -> None:
    """SIGKILL the referee mid-game: the bot dies with it and nothing of it stays on disk."""
    script = tmp_path / "referee.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from harness.records import BotRef, GameSpec, Limits
        from harness.match.referee import play_game
        seats = (BotRef("a", {hostile("fair_thinker.py")!r}), BotRef("b", "sandbox:random"))
        play_game(GameSpec("g", "battleline", {{}}, 1, seats, limits=Limits(move_time=5.0)))
    """))
    before = set(os.listdir(tempfile.gettempdir()))
    proc = subprocess.Popen([sys.executable, str(script)])
    left: list[Path] = []  # its bots' groups, seen while it plays (after its death another
    try:                   # process's start, a test beside this one, may sweep them first)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            if in_force("cgroups") and not left:
                left = [g for base in cgroups.backend().bases.values()
                        for g in base.glob(f"{cgroups.PREFIX}{proc.pid}-*")]
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    time.sleep(0.5)
    fresh = set(os.listdir(tempfile.gettempdir())) - before
    # (other processes on the machine may use /tmp meanwhile: only the killed referee's count)
    assert not [f for f in fresh if f.startswith(f"tourney-bot-{proc.pid}-")], fresh
    if not in_force("cgroups"):
        return  # a normal user without a cgroup: no groups to leave behind
    assert left  # the killed referee could not remove its bots' groups...
    if cgroups.backend().freezer != "cgroup1":  # (a process frozen by v1's freezer dies only
        deadline = time.monotonic() + patience(30)  # once thawed: the next referee thaws it)
        while any(cgroups._members(g) for g in left) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(cgroups._members(g) for g in left)  # ...but its bots died with it
    for base in cgroups.backend().bases.values():
        cgroups._clear_stale(base)  # what the next referee does when it starts
    assert not any(g.exists() for g in left)


def test_a_clone_in_a_private_directory_plays_sandboxed_as_root(tmp_path: Path) -> None:
    """tourney cloned into a 0700 directory (as /root is, as mktemp -d makes): sandboxed
    built-ins, a bot importing games and one importing a package installed only in the
    virtual environment all play (the interpreter here lives under /root, 0700, too)."""
    clone = tmp_path / "private" / "tourney"
    clone.parent.mkdir(mode=0o700)
    root = Path(__file__).resolve().parents[2]
    for package in ("games", "agents", "harness"):
        shutil.copytree(root / package, clone / package)
    bot = clone.parent / "mine.py"
    bot.write_text("import games.registry, pyarrow\ndef act(o, legal):\n    return legal[-1]\n")
    script = textwrap.dedent(f"""
        from harness.records import BotRef, GameSpec
        from harness.match.referee import play_game
        import harness
        assert harness.__file__.startswith({str(clone)!r}), harness.__file__
        for seats in (("sandbox:greedy", "sandbox:random"), ({str(bot)!r}, "random")):
            refs = tuple(BotRef(f"b{{i}}", s) for i, s in enumerate(seats))
            record = play_game(GameSpec("g", "battleline", {{}}, 2, refs))
            print(record.termination.value, record.offender, record.reason)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(clone)}, cwd=clone.parent,
                          timeout=patience(600), check=False)
    assert done.returncode == 0, done.stderr
    results = done.stdout.splitlines()
    assert len(results) == 2 and all(" None " in line for line in results), results


def test_where_bubblewrap_is_refused_bots_play_and_the_report_says_so(
        shared_dir: Path) -> None:
    """Where bubblewrap cannot make its namespaces (unprivileged user namespaces disabled, or
    restricted as on recent Ubuntu: simulated by a bwrap that fails as it does there), bots
    still play, confined by the runner alone, and the report names the engine and what is
    missing rather than claim the jail."""
    fake = shared_dir / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    script = textwrap.dedent(f"""
        import json
        from harness.bots import isolation, jail, sandbox
        from harness.records import BotRef, GameSpec
        from harness.match.referee import play_game
        jail.bwrap = lambda: {str(fake)!r}
        refs = (BotRef("a", "sandbox:greedy"), BotRef("b", "random"))
        record = play_game(GameSpec("g", "battleline", {{}}, 2, refs))
        state = sandbox.report()
        print(json.dumps({{"engine": state["engine"], "missing": isolation.missing(state),
                          "offender": record.offender, "line": isolation.describe(state)}}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=patience(600), check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["offender"] is None
    assert seen["engine"] == "none (the runner alone)"
    assert seen["line"].startswith("namespaces and root by: none (the runner alone)")
    for protection in ("pid_namespace", "ipc_namespace", "network", "filesystem"):
        assert isolation.REQUIRED[protection] in seen["missing"]


def test_where_the_kernel_refuses_bots_still_play_and_organisers_can_insist(
        tmp_path: Path, shared_dir: Path) -> None:
    """No cgroups and no namespaces (as in a locked-down container, simulated): bots play with
    rlimits and a private copy of their file, the report says what is missing, nothing is left
    on disk, and --require-isolation refuses to start a league."""
    bot = shared_dir / "plain.py"
    bot.write_text("import os\ndef act(o, legal):\n    print(oct(os.stat(__file__).st_mode & "
                   "0o777), os.getuid())\n    return legal[0]\n")
    bot.chmod(0o644)
    script = textwrap.dedent(f"""
        import json, os, tempfile
        from harness.bots import isolation, sandbox
        from harness.records import BotRef, GameSpec
        from harness.match.referee import play_game
        before = set(os.listdir(tempfile.gettempdir()))
        refs = (BotRef("a", {str(bot)!r}), BotRef("b", "random"))
        record = play_game(GameSpec("g", "battleline", {{}}, 2, refs))
        left = [f for f in set(os.listdir(tempfile.gettempdir())) - before
                if f.startswith(f"tourney-bot-{{os.getpid()}}-")]
        print(json.dumps({{"missing": isolation.missing(sandbox.report()),
                          "sockets": sandbox.report()["sockets"],
                          "offender": record.offender,
                          "log": record.logs[0].splitlines()[0], "left": left}}))
    """)
    env = {**os.environ, "TOURNEY_NO_CGROUPS": "1", "TOURNEY_NO_NAMESPACES": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=patience(600), check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["offender"] is None and seen["left"] == []
    assert seen["log"] == f"0o400 {bot_user()}"  # its copy: readable by the bot's user only
    assert "the allow-list file system" in seen["missing"]
    # no network namespace, but the runner's own filter still refuses every family but AF_UNIX
    assert seen["sockets"] == ["AF_UNIX"]
    assert "per-bot memory, process and CPU limits (cgroup v2 or v1)" in seen["missing"]
    refused = subprocess.run([str(Path(sys.executable).parent / "tourney"), "league", "bl", "a=" +
                              str(bot), "random", "--out", str(tmp_path / "lg"),
                              "--require-isolation", "-q"], capture_output=True, text=True,
                             env=env, timeout=patience(600), check=False)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "--require-isolation: this machine does not give bots" in refused.stderr
    assert not (tmp_path / "lg").exists()


# ------------------------------------------------------------------ 3b. a freeze that holds


WAKER = """
import os, signal, sys, time
os.setsid()
siblings = [int(p) for p in sys.argv[1:]]
while True:
    for pid in siblings:
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
"""


def _wakers(group: cgroups.BotGroup) -> list[subprocess.Popen[bytes]]:
    """Four processes on every core in ``group``, each in a session of its own sending SIGCONT
    to the ones started before it (no filter: what stops them must hold anyway)."""
    procs: list[subprocess.Popen[bytes]] = []
    for _ in range(4):
        join = " ".join(f"echo $$ > {f};" for f in group.join_files)
        procs.append(subprocess.Popen(
            ["sh", "-c", f"{join} exec {sys.executable} -c \"$0\" \"$@\"", WAKER,
             *[str(p.pid) for p in procs]]))
    deadline = time.monotonic() + patience(30)
    while len(group.pids()) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    return procs


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total


def test_processes_that_wake_each_other_are_all_stopped() -> None:
    """Where a group cannot be frozen it is stopped by signals: four processes waking each
    other in one bot group are every one stopped after stop_all, and stay stopped."""
    if not in_force("cgroups"):  # a normal user without a cgroup: no group to stop
        assert STATE["mechanism"] == "rlimits"
        return
    group = cgroups.BotGroup(256 << 20, 16)
    procs = _wakers(group)
    try:
        for _ in range(20):
            held, complete = group.stop_all()
            time.sleep(0.02)
            assert complete and sorted(held) == sorted(p.pid for p in procs)
            assert all(cgroups._is_stopped(p.pid) for p in procs), [
                Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                for p in procs]
            group.continue_all(held)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        group.close()


def test_a_frozen_group_stays_frozen_whatever_its_processes_send() -> None:
    """Where the bot's group has a freezer, it is frozen between its turns: the same four
    processes waking each other use no CPU while frozen, the kernel says the group is frozen,
    and they run again once thawed; killed while frozen, they die."""
    if not in_force("cgroups") or STATE["freeze"] != "whole tree (freezer)":
        assert STATE["freeze"] in ("whole tree (signals)", "process group only")
        return
    group = cgroups.BotGroup(256 << 20, 16)
    procs = _wakers(group)
    pids = [p.pid for p in procs]
    try:
        assert group.freezer
        for _ in range(5):
            group.freeze()
            deadline = time.monotonic() + patience(5)
            while not group.frozen() and time.monotonic() < deadline:
                time.sleep(0.001)
            assert group.frozen()
            before = _cpu_ticks(pids)
            time.sleep(0.3)
            assert _cpu_ticks(pids) == before
            group.thaw()
            deadline = time.monotonic() + patience(5)  # thawed, they run as soon as a CPU is free
            while _cpu_ticks(pids) == before and time.monotonic() < deadline:
                time.sleep(0.01)
            assert _cpu_ticks(pids) > before
        group.freeze()
    finally:
        group.kill()
        for proc in procs:
            assert proc.wait(timeout=patience(10)) == -signal.SIGKILL
        group.close()


_SHM_LEAVER = """
import ctypes, sys
for path in sys.argv[1:]:
    with open(path, "w") as f:
        f.write("0")
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
shmid = libc.shmget(0, 8 << 20, 0o1000 | 0o600)  # IPC_PRIVATE: a segment no one else names
address = libc.shmat(shmid, None, 0)
ctypes.memset(address, 1, 8 << 20)  # its pages are charged to this memory group
print(shmid)
"""


# a bot that looks up paths that do not exist: the kernel keeps a negative dentry for each, its
# own memory, charged to the bot's group and left there when the bot has gone
_DENTRY_LEAVER = """
import os, sys
for path in sys.argv[1:]:
    with open(path, "w") as f:
        f.write("0")
for i in range(400_000):
    try:
        os.stat(f"/tmp/tourney-missing-{os.getpid()}-{i}")
    except FileNotFoundError:
        pass
print(-1)
"""


@pytest.mark.parametrize("leaver", [_SHM_LEAVER, _DENTRY_LEAVER], ids=["shm", "dentries"])
def test_a_group_whose_bot_left_memory_behind_is_never_reused(leaver: str) -> None:
    """A System V segment outlives the process that made it (where a bot has no IPC namespace of
    its own, as in the fallback), and the kernel's dentries of the paths a bot looked up outlive
    it too: that memory stays charged to the bot's group and counts against its limit, so that
    group is retired rather than handed to the next bot, which would start with less than its
    limit (the dentries' check counts what the limit counts, not only user memory)."""
    if not in_force("cgroups"):
        assert "cgroup" in " ".join(isolation.missing(sandbox.report()))
        return
    group = cgroups.BotGroup(256 << 20, 8)
    done = subprocess.run([sys.executable, "-c", leaver, *group.join_files],
                          capture_output=True, text=True, timeout=patience(60), check=True)
    shmid = int(done.stdout)
    try:
        old = dict(group.dirs)
        assert cgroups._leftover_bytes(old) > cgroups.LEFTOVER_ALLOWED
        group.close()
        fresh = cgroups.BotGroup(256 << 20, 8)
        given = dict(fresh.dirs)
        assert given and given != old
        assert not any(path.exists() for path in old.values())  # retired, not kept
        fresh.close()
        clean = cgroups.BotGroup(256 << 20, 8)  # an empty group with nothing left is reused
        assert clean.dirs == given
        clean.close()
    finally:
        if shmid >= 0:
            import ctypes

            ctypes.CDLL(None).shmctl(shmid, 0, None)  # IPC_RMID


def test_a_reused_group_has_the_limits_of_its_new_bot() -> None:
    """A group handed to another bot keeps its limits only if that bot's are the same: a bot
    with a lower memory or process limit than the group's last never runs with the old one."""
    if not in_force("cgroups"):
        assert "cgroup" in " ".join(isolation.missing(sandbox.report()))
        return

    def limits(group: cgroups.BotGroup) -> tuple[int, int]:
        memory = group.dirs.get("memory") or group.dirs["unified"]
        pids = group.dirs.get("pids") or group.dirs["unified"]
        name = "memory.limit_in_bytes" if "memory" in group.dirs else "memory.max"
        return int((memory / name).read_text()), int((pids / "pids.max").read_text())

    first = cgroups.BotGroup(256 << 20, 16)
    dirs = dict(first.dirs)
    first.close()
    same = cgroups.BotGroup(256 << 20, 16)
    assert same.dirs == dirs and limits(same) == (256 << 20, 16)
    same.close()
    lower = cgroups.BotGroup(128 << 20, 8)
    assert lower.dirs == dirs and limits(lower) == (128 << 20, 8)
    lower.close()
