"""Steals its opponent's CPU: at start it leaves busy children in sessions of their own
(setsid where allowed, so stopping its process group would miss them), which spin through the
opponent's turns. At each of its turns it prints how much CPU time its children have had so
far (it sees them in its own /proc).

``Waker`` (``cpu_thief.py:Waker``) also tries to undo the stop between its turns: it first
tries to widen its CPU set to every core, so its children run beside the referee rather than
behind it, and its children keep sending SIGCONT to the ones started before them (which the
filter now refuses), so a referee that stopped each process once, in order, would find the
earlier ones running again by the time it reached the last."""

import contextlib
import os
import signal


def _spin():
    with contextlib.suppress(OSError):  # refused where the bot cannot be frozen
        os.setsid()
    while True:
        pass


def _wake(siblings):
    with contextlib.suppress(OSError):
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


class Waker(Thief):
    def start(self, info):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
        self.children = []
        for _ in range(8):
            pid = os.fork()
            if pid == 0:
                _wake(list(self.children))  # the earlier children; each later one wakes them
            self.children.append(pid)
