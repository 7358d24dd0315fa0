"""The sandbox and hostile-bot tests again as an unprivileged user (``make test-user``).

Most people run tourney as themselves, not as root, and the sandbox must hold for them too. CI
runs as root, so this script, run as root, makes (once) the system user ``tourney-test``, copies
the clone's files into a folder that user owns in its home, sets up that clone's environment as
that user (``make`` there, from the package index, with the system's ``python3``), and runs
the tests of the sandbox, the hostile bots, league isolation and bot identity there as that
user. Its exit status is the tests'. Run as anyone else it says that ``make test`` already runs
them as that user, and exits 0.
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

USER = "tourney-test"
ROOT = Path(__file__).resolve().parent.parent
TESTS = ["tests/harness", "tests/league/test_secret_key.py", "tests/league/test_identity.py",
         "tests/league/test_unreadable_folders.py", "tests/arena/test_arena.py",
         "tests/serve/test_api.py", "tests/serve/test_cli.py",
         "tests/serve/test_languages.py::test_a_build_is_confined_and_kept_within_its_limits",
         "tests/serve/test_languages.py::"
         "test_a_build_cannot_take_the_host_s_memory_or_fill_its_process_table"]


def ensure_user() -> Path:
    """The unprivileged user's home (the user is made on first use)."""
    try:
        return Path(pwd.getpwnam(USER).pw_dir)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", USER], check=True)
        return Path(pwd.getpwnam(USER).pw_dir)


def copy_clone(home: Path) -> Path:
    """The files git knows of (tracked, and new ones not ignored) in ``~/tourney``, the user's."""
    clone = home / "tourney"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.split(b"\0")
    keep = {clone / ".venv", clone / ".tools"}
    for entry in clone.iterdir() if clone.exists() else []:
        if entry not in keep:  # the environments are kept between runs (make syncs on change)
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    for raw in filter(None, listed):
        source = ROOT / os.fsdecode(raw)
        if source.is_file():
            target = clone / os.fsdecode(raw)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    account = pwd.getpwnam(USER)
    for folder, dirs, files in os.walk(clone):
        for path in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.lchown(path, account.pw_uid, account.pw_gid)
    os.lchown(home, account.pw_uid, account.pw_gid)
    return clone


def main() -> int:
    if os.geteuid() != 0:
        print("make test-user: you are not root, so `make test` already ran these tests as "
              "yourself")
        return 0
    home = ensure_user()
    clone = copy_clone(home)
    tests = " ".join(shlex.quote(t) for t in TESTS)
    script = (f"cd {shlex.quote(str(clone))} && make --no-print-directory .venv/.installed "
              f"PY=python3 && .venv/bin/python -m pytest -q -p no:cacheprovider -m 'not slow' "
              f"{tests}")
    print(f"running the sandbox tests as {USER} (uid {pwd.getpwnam(USER).pw_uid}) in {clone}",
          flush=True)
    done = subprocess.run(["su", "--login", USER, "--command", script], check=False)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
