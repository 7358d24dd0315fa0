"""Bot directories: a bot of several modules and data files, named by its directory.

``tests/fixtures/dirbot/`` is a real one: a manifest choosing the module ``engine`` and its
class ``TableBot``, its own package ``lib`` (two modules) and a data file it opens by a path
relative to its directory. It plays sandboxed as the unprivileged user with its files copied
read-only to ``/bot``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.bots import spec as spec_module
from harness.bots.spec import (
    MAX_DIR_BYTES,
    BotSpecError,
    directory_files,
    directory_sha256,
    parse_spec,
)
from harness.cli.app import app
from harness.match.referee import play_game
from harness.records import BotRef, GameSpec, Limits, Termination
from tests.patience import patience

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "dirbot"
LIMIT = MAX_DIR_BYTES  # what the referee tells the runner a bot may hold


def _listing(bot: Path, *files: str) -> dict[str, Any]:
    """What the referee hands the runner for the files ``files`` of the bot directory ``bot``."""
    return {"source": str(bot), "name": "bot", "max_bytes": LIMIT, "files": list(files)}
FIXTURE_FILES = ["bot.toml", "data/table.json", "engine.py", "lib/__init__.py", "lib/choice.py"]
EASY = Limits(move_time=5.0, overage=5.0, startup_time=30.0, memory_bytes=512 << 20,
              cpu_seconds=30, log_bytes=8192)


@pytest.fixture
def dirbot(tmp_path: Path) -> Path:
    """A private copy of the fixture bot directory (tests may change it)."""
    return Path(shutil.copytree(FIXTURE, tmp_path / "dirbot"))


def make_dir(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def play(*specs: str, seed: int = 3) -> tuple[Termination, str, list[str], list[str]]:
    """One sandboxed Battle Line game: termination, reason, logs and the moves' actions."""
    seats = tuple(BotRef(f"b{i}", s) for i, s in enumerate(specs))
    record = play_game(GameSpec("g", "battleline", {}, seed, seats, limits=EASY))
    return record.termination, record.reason, record.logs, [m.action for m in record.moves]


def first_legal(index: int, seed: int = 3) -> str:
    """A legal action of the first decision of :func:`play`'s game (seat 0 decides first)."""
    from games import registry

    state = registry.get("battleline").new_game(seed)
    assert state.current_player == 0
    return state.legal_actions()[index]


# ------------------------------------------------------------------------------ specs


def test_a_directory_spec_reads_the_manifest_and_prints_back_to_itself(dirbot: Path) -> None:
    spec = parse_spec(f"{dirbot}/")
    assert (spec.path, spec.module, spec.entry, spec.name) == (dirbot, "engine", "TableBot",
                                                                "tablebot")
    assert spec.is_directory and spec.sandboxed and spec.label == "dirbot/:TableBot"
    assert str(spec) == f"{dirbot}/:TableBot" and parse_spec(str(spec)) == spec
    assert parse_spec(str(dirbot)) == spec  # an existing directory without the slash
    chosen = parse_spec(f"sandbox:{dirbot}/:Contrary")
    assert chosen.entry == "Contrary" and parse_spec(str(chosen)) == chosen
    assert str(chosen) == f"sandbox:{dirbot}/:Contrary"


def test_without_a_manifest_bot_py_is_the_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                ) -> None:
    make_dir(tmp_path / "plain", {"bot.py": "def act(o, legal):\n    return legal[0]\n"})
    monkeypatch.chdir(tmp_path)
    spec = parse_spec("plain/")
    assert (spec.path, spec.module, spec.entry, spec.name) == (tmp_path / "plain", "bot", None,
                                                                "plain")
    assert parse_spec("plain/:Fast").name == "plain.Fast"


@pytest.mark.parametrize(("files", "text", "message"), [
    ({"notes.txt": "x"}, "d/", "has neither bot.py nor bot.toml; add bot.py"),
    ({"bot.toml": 'module = "main"\n'}, "d/", "has no main.py, the module bot.toml names"),
    ({"bot.toml": 'entry = "x"\n', "bot.py": ""}, "d/", "unknown keys (entry); a manifest sets"),
    ({"bot.toml": "protocol = 2\n", "bot.py": ""}, "d/", "asks for protocol 2, but tourney speaks"),
    ({"bot.toml": "module = [\n", "bot.py": ""}, "d/", "is not valid TOML"),
    ({"bot.toml": 'name = "a b"\n', "bot.py": ""}, "d/", "name must be letters, digits"),
    ({"bot.py": ""}, "inproc:d/", "a bot directory always runs sandboxed"),
    ({}, "nowhere/", "bot directory 'nowhere/' not found"),
])
def test_a_bad_bot_directory_says_what_to_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              files: dict[str, str], text: str,
                                              message: str) -> None:
    make_dir(tmp_path / "d", files)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BotSpecError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_spec(text)


def test_the_text_alone_says_a_directory_runs_sandboxed() -> None:
    assert parse_spec("mybot/", check=False).sandboxed
    assert parse_spec("mybot/:Fast", check=False).entry == "Fast"


def test_cmd_takes_a_working_directory(tmp_path: Path) -> None:
    spec = parse_spec(f"cmd[cwd={tmp_path}]:./engine --fast")
    assert (spec.cwd, spec.command, spec.name) == (tmp_path, ("./engine", "--fast"), "engine")
    assert str(spec) == f"cmd[cwd={tmp_path}]:./engine --fast" and parse_spec(str(spec)) == spec
    assert parse_spec("cmd:./engine").cwd is None
    with pytest.raises(BotSpecError, match=r"write cmd\[cwd=DIR\]:<command line>"):
        parse_spec("cmd[dir=/tmp]:./engine")
    with pytest.raises(BotSpecError, match="working directory '/no/such' not found"):
        parse_spec("cmd[cwd=/no/such]:./engine")


# ------------------------------------------------------------------------------ identity


def test_the_content_hash_is_the_files_and_their_paths(dirbot: Path, tmp_path: Path) -> None:
    digest = directory_sha256(dirbot)
    assert [rel for rel, _ in directory_files(dirbot)] == FIXTURE_FILES
    assert parse_spec(f"{dirbot}/").sha256() == digest == directory_sha256(FIXTURE)
    # not part of the bot: byte code and hidden files
    (dirbot / "lib" / "__pycache__").mkdir()
    (dirbot / "lib" / "__pycache__" / "choice.cpython-311.pyc").write_bytes(b"\0")
    (dirbot / ".git").mkdir()
    (dirbot / ".git" / "HEAD").write_text("ref")
    assert directory_sha256(dirbot) == digest
    # a changed data file is a changed bot; so is a renamed file with the same bytes
    table = dirbot / "data" / "table.json"
    table.write_text(table.read_text().replace("first", "last"))
    changed = directory_sha256(dirbot)
    assert changed != digest
    table.rename(dirbot / "data" / "table2.json")
    assert directory_sha256(dirbot) not in (digest, changed)


def test_links_and_oversized_directories_are_refused(
        dirbot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (dirbot / "data" / "elsewhere").symlink_to("/etc/passwd")
    with pytest.raises(BotSpecError, match="data/elsewhere is a symbolic link; replace it"):
        directory_sha256(dirbot)
    (dirbot / "data" / "elsewhere").unlink()
    monkeypatch.setattr(spec_module, "MAX_DIR_BYTES", 1000)
    with pytest.raises(BotSpecError, match="too large: a bot directory may hold at most 2000 "
                                           "files and 0 MB"):
        directory_sha256(dirbot)


# ------------------------------------------------------------------------------ playing


def test_the_fixture_plays_sandboxed_with_its_modules_and_data(dirbot: Path) -> None:
    term, reason, logs, actions = play(f"{dirbot}/", "random")
    assert not term.is_forfeit, reason
    assert "table fixture-table loaded: pick first" in logs[0]
    contrary = play(f"{dirbot}/:Contrary", "random")
    assert not contrary[0].is_forfeit, contrary[1]
    # the manifest's class plays the first legal action (its data file says so), the other
    # class the last one
    assert (actions[0], contrary[3][0]) == (first_legal(0), first_legal(-1))


def test_a_directory_bot_sees_its_copy_read_only_and_not_its_original(tmp_path: Path) -> None:
    source = tmp_path / "peek"
    make_dir(source, {"bot.py": f"""
        import os
        from probe import probe

        class Peek:
            def start(self, info):
                print(probe(), os.getcwd(), __file__, os.path.exists({str(source)!r}),
                      flush=True)

            def act(self, observation, legal_actions):
                return legal_actions[0]
    """, "probe.py": """
        def probe():
            try:
                with open("note.txt", "w") as f:
                    f.write("x")
            except OSError as exc:
                return f"cannot write: {exc.strerror}"
            return "wrote its own directory"
    """})
    term, reason, logs, _ = play(f"{source}/", "random")
    assert not term.is_forfeit, reason
    words = logs[0].split()
    assert " ".join(words[:5]) == "cannot write: Read-only file system"
    assert words[5:] == ["/bot", "/bot/bot.py", "False"]
    assert not (source / "note.txt").exists()


def test_a_failing_import_names_the_module_and_what_a_bot_may_import(tmp_path: Path) -> None:
    bad = make_dir(tmp_path / "bad", {"bot.py": "import helper\n",
                                      "helper.py": "import no_such_module\n"})
    term, reason, _, _ = play(f"{bad}/", "random")
    assert term is Termination.CRASH
    assert "bad/ failed to import 'no_such_module'" in reason
    assert "a bot may import its own modules, the standard library" in reason


def test_play_and_validate_take_a_bot_directory(dirbot: Path) -> None:
    runner = CliRunner()
    played = runner.invoke(app, ["play", "bl", f"{dirbot}/", "random", "--seed", "4"])
    assert played.exit_code == 0, played.output
    assert "seat 0: tablebot, seat 1: random" in played.output
    assert "forfeits" not in played.output
    checked = runner.invoke(app, ["validate", str(dirbot), "--game", "bl", "--games", "1"])
    assert checked.exit_code == 0, checked.output
    assert f"PASS: {dirbot} is ready for bl" in checked.output
    reads = next(line for line in checked.output.splitlines() if "may read:" in line)
    writes = next(line for line in checked.output.splitlines() if "may write:" in line)
    if "file system allow-list" in checked.output:
        assert "its own directory at /bot, read-only and its working directory (5 files" in reads
        assert "nothing else" in reads
        assert "only /tmp (also $HOME): private, in memory, 64 MB" in writes
    else:  # a machine without mount namespaces: the report must say so
        assert "no allow-list file system here" in reads


def test_an_external_command_runs_in_the_directory_it_is_given(
        shared_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.bots.sandbox import bot_python

    engine = shared_dir / "engine"
    make_dir(engine, {"rule.txt": "last\n", "wire.py": """
        import json, sys
        rule = open("rule.txt").read().strip()  # relative to its working directory
        for line in sys.stdin:
            msg = json.loads(line)
            if msg["type"] == "start":
                reply = {"type": "ready"}
            elif msg["type"] == "act":
                legal = msg["legal_actions"]
                reply = {"type": "action", "action": legal[0] if rule == "first" else legal[-1]}
            elif msg["type"] == "end":
                reply = {"type": "ok"}
            else:
                break
            print(json.dumps(reply), flush=True)
    """})
    for path in (engine, *engine.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    monkeypatch.chdir("/")
    term, reason, _, actions = play(f"cmd[cwd={engine}]:{bot_python()} wire.py", "random")
    assert not term.is_forfeit, reason
    assert actions[0] == first_legal(-1)  # it read its rule file: the last legal action
    term, reason, _, _ = play(f"cmd:{bot_python()} wire.py", "random")
    assert term is Termination.CRASH  # without it, wire.py is not found in /


def test_without_namespaces_the_directory_is_a_private_copy_removed_after(
        dirbot: Path) -> None:
    """Where the kernel gives no root of its own (a locked-down container), the runner copies
    the directory into a private folder, which is the bot's working directory, and the referee
    removes it after the game."""
    script = textwrap.dedent(f"""
        import json, os, tempfile
        from harness.bots import isolation, sandbox
        from harness.match.referee import play_game
        from harness.records import BotRef, GameSpec
        before = set(os.listdir(tempfile.gettempdir()))
        refs = (BotRef("a", {f"{dirbot}/"!r}), BotRef("b", "random"))
        record = play_game(GameSpec("g", "battleline", {{}}, 2, refs))
        left = [f for f in set(os.listdir(tempfile.gettempdir())) - before
                if f.startswith(f"tourney-bot-{{os.getpid()}}-")]
        print(json.dumps({{"offender": record.offender, "log": record.logs[0], "left": left,
                          "missing": isolation.missing(sandbox.report())}}))
    """)
    env = {**os.environ, "TOURNEY_NO_NAMESPACES": "1"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=patience(600), check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert "the allow-list file system" in seen["missing"]  # the fallback was tested
    assert seen["offender"] is None and seen["left"] == []
    assert "table fixture-table loaded: pick first" in seen["log"]


def _swapped_directory(tmp_path: Path) -> tuple[Path, Path]:
    """A bot directory as the referee listed it (``lib/data.txt``), then, before the copy, its
    ``lib`` swapped for a link to a folder holding a file only its owner may read."""
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.py").write_text("def act(o, legal):\n    return legal[0]\n")
    (bot / "lib" / "data.txt").write_text("mine")
    secret = tmp_path / "private"
    secret.mkdir(mode=0o700)
    (secret / "data.txt").write_text("SECRET")
    (secret / "data.txt").chmod(0o600)
    shutil.rmtree(bot / "lib")
    (bot / "lib").symlink_to(secret)
    return bot, secret


def test_the_copy_follows_no_link_at_any_depth(tmp_path: Path) -> None:
    """A directory swapped for a symbolic link between the listing and the copy: the copy
    fails (ELOOP) instead of reading through it; so does a FIFO put where a file was."""
    from harness.bots import runner

    bot, _ = _swapped_directory(tmp_path)
    with pytest.raises(OSError) as refused:
        runner._read_bot(_listing(bot, "bot.py", "lib/data.txt"))
    assert refused.value.errno in (20, 40)  # ENOTDIR or ELOOP: the link is not followed
    os.mkfifo(bot / "pipe")
    with pytest.raises(OSError, match="not a regular file"):
        runner._read_bot(_listing(bot, "pipe"))
    for bad in ("../bot/bot.py", "/etc/passwd", "lib//data.txt", "./bot.py"):
        with pytest.raises(OSError, match="not a path inside"):
            runner._read_bot(_listing(bot, bad))
    assert runner._read_bot(_listing(bot, "bot.py"))[0][0] == "bot.py"


def test_a_bot_file_is_read_with_its_owners_rights_only(tmp_path: Path) -> None:
    """As root the runner reads a bot's files as their owner would: a bot file owned by
    another user cannot pull in a file only root may read."""
    from harness.bots import runner

    if os.geteuid() != 0:  # a normal user reads with their own rights already
        bot = tmp_path / "mine.py"
        bot.write_text("x = 1\n")
        read = runner._as_owner(runner._libc(), {"source": str(bot)}, lambda b: [("x", b"")])
        assert read == [("x", b"")]
        return
    secret = tmp_path / "root-only.txt"
    secret.write_text("SECRET")
    secret.chmod(0o600)
    folder = tmp_path / "entrant"
    folder.mkdir()
    os.chown(folder, 65534, 65534)
    listed = {"source": str(folder), "name": "entrant", "max_bytes": LIMIT,
              "files": ["secret.txt"]}
    (folder / "secret.txt").symlink_to(secret)  # even a link the listing missed
    with pytest.raises(OSError):
        runner._as_owner(runner._libc(), listed, runner._read_bot)
    (folder / "secret.txt").unlink()
    os.link(secret, folder / "secret.txt")  # a hard link: the same root-only file
    with pytest.raises(PermissionError):
        runner._as_owner(runner._libc(), listed, runner._read_bot)
    assert runner._read_bot(listed)[0][1] == b"SECRET"  # what root alone could read
