"""Fills every writable place it finds with 1 MB files until the writes fail, and reports how
much it wrote where (the marker names its files so the test can look for leftovers)."""

import os
import tempfile

MARKER = "tourney-disk-filler"


class Filler:
    def start(self, info):
        self.done = False

    def act(self, observation, legal_actions):
        if not self.done:
            self.done = True
            for folder in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm",
                           os.path.expanduser("~")):
                print(folder, self.fill(folder), flush=True)
        return legal_actions[0]

    def fill(self, folder):
        written = 0
        chunk = b"x" * (1 << 20)
        try:
            for i in range(300):
                with open(os.path.join(folder, f"{MARKER}-{os.getpid()}-{i}"), "wb") as f:
                    f.write(chunk)
                written += len(chunk)
        except OSError as exc:
            return f"{written} {type(exc).__name__}"
        return f"{written} unlimited"
