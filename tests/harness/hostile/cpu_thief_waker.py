"""Steals its opponent's CPU as cpu_thief.py does, and undoes the freeze between its turns:
its busy children live in sessions of their own and keep sending SIGCONT to each other, so a
referee that stops each process once, in order, finds the earlier ones running again by the
time it reaches the last. It first tries to widen its CPU set to every core, so its children
run beside the referee rather than behind it. At each of its turns it prints how much CPU time
its children have had so far."""

import contextlib
import os
import signal


def _spin(siblings):
    os.setsid()
    while True:
        for pid in siblings:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)


def _cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Waker:
    def start(self, info):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
        self.children = []
        for _ in range(8):
            pid = os.fork()
            if pid == 0:
                _spin(list(self.children))  # the earlier children; each later one wakes them
            self.children.append(pid)

    def act(self, observation, legal_actions):
        print(f"stolen {sum(_cpu_seconds(p) for p in self.children):.2f}", flush=True)
        return legal_actions[0]
