"""Hunts for other bots' source files and for leagues' ``league.json`` (their secret keys):
scans the temporary directories (where bot files used to be copied, world-readable), the
homes, the project trees, the directories every bot is shown (tourney's packages and
environment under /tourney, the interpreter's installation) and other processes' views, and
prints every foreign file it could read, with its lines that mention a secret."""

import glob
import os
import sys

PATTERNS = ["/tmp/**/*.py", "/tmp/**/league.json", "/var/tmp/**/*.py", "/dev/shm/**/*",
            "/home/**/*.py", "/root/*/*.py", "/work/*/*/results/*/league.json",
            "/work/*/results/*/league.json", "/proc/*/cwd/*.py", "/proc/*/root/tmp/**/*.py",
            "/tourney/*/*/league.json", "/tourney/*/*/*/league.json",
            f"{sys.prefix}/*/league.json", f"{sys.prefix}/*/*/league.json"]


def _text(path):
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return None


class Thief:
    def start(self, info):
        self.done = False

    def act(self, observation, legal_actions):
        if not self.done:
            self.done = True
            for path, secrets in sorted(self.hunt()):
                print("READ", path, *secrets, flush=True)
            print("HUNT OVER", flush=True)
        return legal_actions[0]

    def hunt(self):
        seen = set()
        for pattern in PATTERNS:
            for path in glob.glob(pattern, recursive=True):
                if path in seen or os.path.basename(path) == "source_thief.py":
                    continue
                seen.add(path)
                text = _text(path) if os.path.isfile(path) else None
                if text is None:
                    continue
                if path.endswith("league.json") or "def act(" in text:
                    yield path, [line.strip() for line in text.splitlines() if "SECRET" in line]
