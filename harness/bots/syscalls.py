"""The system-call filter every sandboxed bot runs under (seccomp), built by libseccomp.

The filter is compiled here, in the harness, with libseccomp (through its ``pyseccomp``
bindings), once per process and kind, into the kernel's BPF form; bubblewrap (or, where there
is no jail, the runner) installs those bytes as the last step of the confinement, after
``no_new_privs`` and before any bot code, so they hold for the bot and for everything it starts
or executes. Every other system call is allowed: the filter removes what a bot could use to leave
its sandbox, to inspect other processes, or to keep state on the host, and nothing a game needs.

A refused call fails with ``EPERM`` (:data:`REFUSED`), or as a kernel without it would, so that
the C library and runtimes take the path they have for such a kernel (:data:`ABSENT`,
``ENOSYS``); some calls are refused only with some arguments (:data:`REFUSED_WITH`): sockets of
any family but ``AF_UNIX``, reads and writes that ask not to wait for the disk, ``clone`` with a
namespace flag. Where libseccomp is missing the filter is ``None``: bots run without it and
:func:`harness.bots.isolation.missing` says so.

What no filter closes, measured on Linux 6.18 and documented in docs/sandbox-engines.md: a bot
can still tell whether a page of a file it may read was in the page cache by the time its
first read of it takes, by its count of major faults, or (``/proc/self/pagemap``) by the
neighbouring pages the kernel maps with a fault. The files it shares with anyone are the
environment's (the system, the interpreter, the installed packages, ``games`` and
``agents``), which every process reads the same way whatever the deal; the deal and the league's
key are in no file a bot can open, and each bot's own files are private copies in its own root.

A bot is stopped between its turns (:meth:`harness.bots.sandbox.SandboxedAgent.suspend`), and a
SIGCONT resumes a stopped process whoever sends it: every way a bot could send one, or have the
kernel send one for it, is refused (:data:`SIGNAL_ARGUMENT`, and a child's exit signal, a death
signal, a file's signal). Where the bot cannot be frozen by its control group and is stopped by
signals, the filter is built with ``unfrozen``: what the kernel would fire later (timers,
message-queue notices) and what takes a process out of the process group stopped are refused
too (:data:`UNFROZEN`).
"""

from __future__ import annotations

import errno
import signal
import socket
import tempfile
from functools import cache
from typing import Any

# name -> why a bot may not call it
REFUSED = {
    "ptrace": "inspect or control another process (the referee's helpers, PID 1)",
    "process_vm_readv": "read another process's memory",
    "process_vm_writev": "write another process's memory",
    "kcmp": "compare other processes' resources",
    "keyctl": "the kernel keyrings outlive a game (a channel between games)",
    "add_key": "the kernel keyrings outlive a game",
    "request_key": "the kernel keyrings outlive a game",
    "mount": "remount the read-only view, or mount a larger /tmp",
    "umount2": "uncover what the sandbox mounted over",
    "move_mount": "mount (new API)",
    "open_tree": "mount (new API)",
    "fsopen": "mount (new API)",
    "fsmount": "mount (new API)",
    "fsconfig": "mount (new API)",
    "fspick": "mount (new API)",
    "mount_setattr": "mount (new API)",
    "pivot_root": "change the root",
    "chroot": "change the root",
    "unshare": "new namespaces (a user namespace gives back every capability)",
    "setns": "join another namespace",
    "bpf": "load kernel programs",
    "perf_event_open": "observe other processes and the CPU",
    "userfaultfd": "a common kernel-exploit primitive",
    "io_uring_setup": "a large kernel attack surface, and calls a filter cannot see",
    "sched_setaffinity": "widen the bot's CPU set to every core (another bot's time)",
    "open_by_handle_at": "open files by handle, around the mount view",
    "name_to_handle_at": "make handles for open_by_handle_at",
    "init_module": "load kernel modules",
    "finit_module": "load kernel modules",
    "delete_module": "unload kernel modules",
    "kexec_load": "replace the kernel",
    "kexec_file_load": "replace the kernel",
    "reboot": "reboot the host",
    "swapon": "change the host's swap",
    "swapoff": "change the host's swap",
    "syslog": "read the kernel log",
    "acct": "process accounting",
    "quotactl": "disk quotas",
    "settimeofday": "the host's clock",
    "clock_settime": "the host's clock",
    "clock_adjtime": "the host's clock",
    "adjtimex": "the host's clock",
    "mincore": "which pages of a file it maps are in the page cache (the kernel answers for the "
               "files the bot's user owns: a normal user's virtual environment and tourney's "
               "packages), that is which of them others on the machine read lately; no bot "
               "needs it",
}
# name -> why it is refused with ENOSYS, as a kernel without it answers (libraries fall back)
ABSENT = {
    "clone3": "its flags lie in memory, where a filter cannot read them: the C library falls "
              "back to clone, whose flags it can",
    "cachestat": "the page-cache state of a file (as mincore; Linux 6.5 on)",
    "io_setup": "kernel AIO, whose reads may ask not to wait (RWF_NOWAIT, in memory, out of a "
                "filter's sight) and so tell which pages of a file are in the page cache",
    "io_submit": "kernel AIO (see io_setup)",
}
# calls refused only with some arguments: name -> what is refused, with which error, and why
REFUSED_WITH = {
    "socket": "every address family but AF_UNIX, with EAFNOSUPPORT (what a kernel built without "
              "that family answers, so libraries take their no-such-family path). A network "
              "namespace hides the network, not these: AF_VSOCK reaches the virtual machine's "
              "host; AF_NETLINK, AF_ALG, AF_KEY, AF_PACKET and AF_XDP are kernel interfaces, and "
              "the rarer families (AF_TIPC, AF_RDS...) kernel code that a kernel may load on "
              "demand; AF_INET and AF_INET6 would reach only the bot's own loopback. A bot's "
              "processes talk over AF_UNIX (socketpair, multiprocessing's pipes, asyncio); "
              "nothing in the runner or the interpreter's start opens a socket, and without "
              "AF_NETLINK glibc's getaddrinfo answers as on a host without network, as the jail "
              "already is",
    "socketpair": "every address family but AF_UNIX, with EAFNOSUPPORT (see socket)",
    "preadv2": "with RWF_NOWAIT, with EOPNOTSUPP (what a file that cannot read without waiting "
               "answers, so the caller reads as usual): it tells, without reading, whether a "
               "page of a shared file is in the page cache",
    "pwritev2": "with RWF_NOWAIT, with EOPNOTSUPP (see preadv2)",
    "clone": "with a flag that makes a namespace (NAMESPACE_FLAGS), with EPERM, as unshare",
}
RWF_NOWAIT = 0x00000008
# clone() with any of these flags makes a namespace: refused like unshare()
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000, "CLONE_NEWTIME": 0x00000080,
}


_INT = 0xFFFFFFFF  # an int argument: the kernel reads only the register's low 32 bits
SIGCONT = int(signal.SIGCONT)
PR_SET_PDEATHSIG = 1
F_SETSIG = 10
CSIGNAL = 0xFF  # clone's flags: the signal its parent gets when the child exits
# calls that send a signal, and the argument that names it: refused for SIGCONT, which resumes a
# stopped process (and all of a bot's are stopped between its turns) whoever sends it
SIGNAL_ARGUMENT = {"kill": 1, "tkill": 1, "tgkill": 2, "rt_sigqueueinfo": 1,
                   "rt_tgsigqueueinfo": 2, "pidfd_send_signal": 1}
# where a bot cannot be frozen between its turns (no cgroup freezer: a normal user's), the stop
# is SIGSTOP to its process group, so also refused: what has the kernel send SIGCONT later, and
# what leaves the process group (an orphaned group with a stopped process gets one, too)
UNFROZEN = {
    "timer_create": "a kernel timer whose signal (SIGCONT) fires while the bot is stopped",
    "mq_notify": "a message queue's notification signal (SIGCONT)",
    "setsid": "leave the process group the referee stops",
    "setpgid": "leave the process group the referee stops",
}


# what a bot's process from the start-up server (harness.bots.forkserver) still calls once it is
# given its bot, after the rest of the filter is in place (installed ahead of time, off the bot's
# start): refused from then on by a second, small filter (filters add up: a call passes only
# if every filter lets it)
LATE = ("mount", "sched_setaffinity")


@cache
def bot_filter(unfrozen: bool = False, part: str = "whole") -> bytes | None:
    """The filter as BPF bytes for ``prctl(PR_SET_SECCOMP)``, or None without libseccomp;
    ``unfrozen``: for a bot stopped between its turns by signals (:data:`UNFROZEN` refused too).
    ``part``: the whole filter; or for the start-up server, the ``"early"`` part (all but
    :data:`LATE` and :data:`UNFROZEN`) and the ``"late"`` one (those alone), which together
    refuse what the whole does.

    Arguments are compared as the kernel reads them (an ``int`` in its register's low 32 bits):
    a bot cannot slip a SIGCONT past a rule with high bits set."""
    try:
        import pyseccomp as seccomp

        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    except (ImportError, OSError, RuntimeError):  # the bindings or libseccomp.so are missing
        return None
    refuse = seccomp.ERRNO(errno.EPERM)
    names = [*REFUSED, *(UNFROZEN if unfrozen else ())]
    if part == "early":
        names = [name for name in REFUSED if name not in LATE]
    elif part == "late":
        names = [*LATE, *(UNFROZEN if unfrozen else ())]
    for name in names:
        try:
            rules.add_rule(refuse, name)
        except (ValueError, RuntimeError, OSError):
            continue  # a call this kernel's architecture does not have
    if part == "late":
        return _export(rules)
    for name in ABSENT:
        try:
            rules.add_rule(seccomp.ERRNO(errno.ENOSYS), name)
        except (ValueError, RuntimeError, OSError):
            continue  # a call this libseccomp or architecture does not know
    for flag in NAMESPACE_FLAGS.values():
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # the family is an int, compared here as the whole register: a family with bits set above
    # the 32 the kernel reads is refused too, never taken for AF_UNIX
    for name in ("socket", "socketpair"):
        rules.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), name,
                       seccomp.Arg(0, seccomp.NE, socket.AF_UNIX))
    for name in ("preadv2", "pwritev2"):  # (fd, iov, count, offset low, offset high, flags)
        rules.add_rule(seccomp.ERRNO(errno.EOPNOTSUPP), name,
                       seccomp.Arg(5, seccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    for name, argument in SIGNAL_ARGUMENT.items():
        rules.add_rule(refuse, name, seccomp.Arg(argument, seccomp.MASKED_EQ, _INT, SIGCONT))
    # the kernel's own SIGCONTs on a bot's behalf: a child's exit (clone's exit signal), its
    # parent's death (any death signal but SIGKILL: the jail's PID 1 must also die with
    # bubblewrap's outer process, which dies with the referee), a file's I/O readiness (F_SETSIG)
    rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CSIGNAL, SIGCONT))
    rules.add_rule(refuse, "prctl", seccomp.Arg(0, seccomp.MASKED_EQ, _INT, PR_SET_PDEATHSIG),
                   seccomp.Arg(1, seccomp.NE, int(signal.SIGKILL)))
    rules.add_rule(refuse, "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, _INT, F_SETSIG),
                   seccomp.Arg(2, seccomp.MASKED_EQ, _INT, SIGCONT))
    return _export(rules)


def _export(rules: Any) -> bytes:
    with tempfile.TemporaryFile() as f:
        rules.export_bpf(f)
        f.seek(0)
        return f.read()
