"""Steals its opponent's CPU: at start it leaves busy children in sessions of their own
(setsid, so killing its process group misses them), which spin through the opponent's turns.
At each of its turns it prints how much CPU time its children have had so far (it sees them
in its own /proc)."""

import os


def _spin():
    os.setsid()
    while True:
        pass


def _cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Thief:
    def start(self, info):
        self.children = []
        for _ in range(8):
            pid = os.fork()
            if pid == 0:
                _spin()
            self.children.append(pid)

    def act(self, observation, legal_actions):
        print(f"stolen {sum(_cpu_seconds(p) for p in self.children):.2f}", flush=True)
        return legal_actions[0]
