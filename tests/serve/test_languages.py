"""Any language on the server (issue 47): a zip of a bot directory whose manifest names a
command (here a Node.js bot) and a build step; the build runs once, sandboxed, within its own
limits, its output in the entry check's report; the bot then plays its games in the sandbox.
Tried through the application as `tourney serve` assembles it."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest

from harness.arena import build
from harness.league import store
from tests.patience import patience
from tests.serve.conftest import BOTS, Site

NODE_BOT = BOTS / "nodebot"


def _zip(directory: Path, replace: dict[str, str] | None = None) -> bytes:
    """``directory`` as a zip of a bot directory (``replace``: files whose text differs)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for path in sorted(directory.rglob("*")):
            rel = path.relative_to(directory).as_posix()
            if path.is_file() and not rel.startswith("built/"):
                text = (replace or {}).get(rel)
                archive.writestr(f"{directory.name}/{rel}",
                                 text if text is not None else path.read_bytes())
        for rel, text in (replace or {}).items():
            if not (directory / rel).exists():
                archive.writestr(f"{directory.name}/{rel}", text)
    return out.getvalue()


def _mine(site: Site, token: str) -> dict[str, dict[str, str]]:
    subs = site.client.get("/api/me", headers=site.bearer(token)).json()["submissions"]
    return {v["bot"]: v for v in subs}


@pytest.fixture(autouse=True)
def _node() -> None:
    assert shutil.which("node"), "Node.js is part of the test machine (make setup)"


def test_a_nodejs_bot_is_built_once_checked_and_plays(site: Site) -> None:
    alice, bob = site.add("alice"), site.add("bob")
    r = site.upload(alice, "nodebot.zip", _zip(NODE_BOT))
    assert r.status_code == 202, r.text
    site.settle()
    version = _mine(site, alice)["alice.v1"]
    assert version["status"] == "active", version
    report = version["report"]
    assert "ok   build `node make.js`" in report and "built built/bot.js" in report
    assert "PASS" in report or "ok   self-play" in report
    site.send(bob, "first.py")
    site.play(6)
    games = site.client.get("/api/me/games", headers=site.bearer(alice)).json()["games"]
    assert len(games) >= 3 and all(g["result"] in ("win", "draw", "loss") for g in games)
    rows = store.load_games([site.folder]).games.to_pylist()
    assert all(r["rated"] and r["termination"] in ("normal", "stalemate", "move_cap")
               for r in rows), [(r["termination"], r["reason"]) for r in rows]
    # the build ran once: its outcome is kept in the copy, and a second check reads it
    copy = next((site.folder / "bots" / "alice" / "v1").iterdir())
    assert (copy / "built" / "bot.js").read_text().startswith("// built by make.js")
    again = build.build_once(f"cmd[cwd={copy}]:node built/bot.js")
    assert again is not None and again.ok and again.lines[0] == report.splitlines()[0]


def test_a_failing_build_refuses_the_version_with_its_output(site: Site) -> None:
    alice = site.add("alice")
    broken = "const fs = require('fs');\nconsole.error('cannot find the compiler');\n" \
             "process.exit(4);\n"
    assert site.upload(alice, "nodebot.zip",
                       _zip(NODE_BOT, {"make.js": broken})).status_code == 202
    site.settle()
    version = _mine(site, alice)["alice.v1"]
    assert version["status"] == "failed"
    assert "the build failed (exit status 4)" in version["reason"]
    assert "cannot find the compiler" in version["report"]
    public = site.client.get("/api/entrants/alice").json()
    assert "compiler" not in str(public)  # the build's output is the entrant's own


def test_a_build_is_confined_and_kept_within_its_limits(tmp_path: Path) -> None:
    work = tmp_path / "bot"
    work.mkdir()
    probe = build.run_build(work, "id -u; ls /; cat /etc/shadow; touch /usr/x; "
                                  "echo made > here.txt; exit 0")
    assert probe.ok, probe
    text = "\n".join(probe.lines)
    assert "| 65534" in text  # not root
    assert "Read-only file system" in text  # the system is read-only
    assert "work" not in text.split("| ", 2)[-1]  # the host's folders are not in sight
    assert (work / "here.txt").read_text() == "made\n"  # its own directory is writable
    slow = build.run_build(work, "sleep 60", seconds=1.0)
    assert not slow.ok and "ran past its 1 s" in slow.reason
    big = build.run_build(work, f"head -c {build.BUILD_BYTES + 1} /dev/zero > big")
    assert not big.ok and "over the" in big.reason


def test_a_build_cannot_take_the_host_s_memory_or_fill_its_process_table(
        tmp_path: Path) -> None:
    """A build is a stranger's code on the server too: one that wants 1.5 GB is stopped at its
    1 GB (by its control group, or without one by its address space), and a fork bomb meets
    the build's process limit; whatever it left running dies with it."""
    work = tmp_path / "bot"
    work.mkdir()
    hog = build.run_build(work, "python3 -c \"b = b'x' * (1536 << 20); print(len(b))\"")
    assert not hog.ok, hog
    text = "\n".join(hog.lines)
    assert "ran out of its 1024 MB of memory" in hog.reason or "MemoryError" in text, hog
    assert str(1536 << 20) not in text  # it never held the memory
    bomb = build.run_build(work, f"i=0; while [ $i -lt {build.BUILD_PROCESSES + 50} ]; do "
                                 "sleep 2.71828 & i=$((i+1)); done; wait")
    assert "Cannot fork" in "\n".join(bomb.lines), bomb
    assert not _running("sleep\0" + "2.71828"), "a process of the build outlived it"


def _running(cmdline: str) -> bool:
    """Whether a process of the host has this command line (NUL-separated)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().rstrip(b"\0") == cmdline.encode():
                    return True
            except OSError:
                continue
    return False


def test_a_manifest_with_a_bad_command_is_refused_at_once(site: Site) -> None:
    alice = site.add("alice")
    r = site.upload(alice, "nodebot.zip", _zip(NODE_BOT, {
        "bot.toml": 'command = "node bot.js"\nbuild = "make"\ncompiler = "gcc"\n'}))
    assert r.status_code == 422 and "unknown keys (compiler)" in r.json()["error"]
    assert site.client.get("/api/me", headers=site.bearer(alice)).json()["submissions"] == []


def test_locally_a_command_manifest_says_how_to_run_it(tmp_path: Path) -> None:
    """`tourney validate DIR/` of such a directory names the cmd: spec that runs it here."""
    import subprocess
    import sys

    copy = tmp_path / "nodebot"
    shutil.copytree(NODE_BOT, copy)
    done = subprocess.run([sys.executable, "-m", "harness.cli.app", "validate", "-g",
                           "battleline", f"{copy}/"], capture_output=True, text=True,
                          timeout=patience(120), cwd=Path(__file__).resolve().parents[2])
    assert done.returncode != 0
    line = done.stderr.strip()
    assert len(line.splitlines()) == 1 and f"cmd[cwd={copy}]:node built/bot.js" in line, line
