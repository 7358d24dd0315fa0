"""Tries, at the start of its game, each way out of a sandbox that a process holding
capabilities in its own user namespace could take, and prints one line per attempt:
``<name> OK`` where it worked, ``<name> REFUSED <errno>`` where the kernel said no.

- remount: make the read-only view of the Python environment writable (then a ``.pth`` file
  there would run as the user at the next ``tourney`` command);
- umount: remove the size-limited /tmp (to write an unlimited one underneath);
- mount: mount a fresh, unlimited tmpfs;
- ptrace: attach to PID 1 of its namespace (the sandbox's own process);
- unshare: a new user namespace (all capabilities again);
- affinity: widen its CPU set to every core;
- keyring: add a key to the user keyring (it outlives the game).
It also prints its capability sets as the kernel reports them (``caps ...``).
"""

import ctypes
import ctypes.util
import os
import sysconfig

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.syscall.restype = ctypes.c_long
MS_REMOUNT, MS_BIND, MS_RDONLY = 32, 4096, 1
MNT_DETACH = 2
PTRACE_ATTACH = 16
CLONE_NEWUSER = 0x10000000
SYS_ADD_KEY = 248  # x86_64


def attempt(name, result):
    if result == 0 or (name == "keyring" and result > 0):
        print(name, "OK", flush=True)
    else:
        print(name, "REFUSED", ctypes.get_errno(), flush=True)


def caps():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
    return " ".join(f"{k}={fields[k].strip()}" for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb",
                                                           "NoNewPrivs", "Seccomp"))


def mount_point(path):
    """The mount point that holds ``path`` (the sandbox binds the environment read-only)."""
    with open("/proc/self/mountinfo") as f:
        points = [line.split()[4] for line in f]
    return max((p for p in points if path == p or path.startswith(p.rstrip("/") + "/")), key=len)


class Jailbreaker:
    def start(self, info):
        print("caps", caps(), flush=True)
        target = mount_point(sysconfig.get_paths()["purelib"]).encode()
        attempt("remount", libc.mount(None, target, None, MS_REMOUNT | MS_BIND, None))
        attempt("umount", libc.umount2(b"/tmp", MNT_DETACH))
        attempt("mount", libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"size=2g"))
        attempt("ptrace", libc.ptrace(PTRACE_ATTACH, 1, None, None))
        attempt("unshare", libc.unshare(CLONE_NEWUSER))
        try:
            os.sched_setaffinity(0, range(os.cpu_count() or 1))
            attempt("affinity", 0)
        except OSError as exc:
            ctypes.set_errno(exc.errno)
            attempt("affinity", -1)
        if os.uname().machine == "x86_64":
            attempt("keyring", libc.syscall(SYS_ADD_KEY, b"user", b"tourney-jail", b"x", 1,
                                            ctypes.c_int(-4)))

    def act(self, observation, legal_actions):
        return legal_actions[0]
