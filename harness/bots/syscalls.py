"""The system-call filter every sandboxed bot runs under (seccomp), built by libseccomp.

The filter is compiled here, in the harness, with libseccomp (through its ``pyseccomp``
bindings), once per process, into the kernel's BPF form; the runner (stdlib only) installs those
bytes with ``prctl(PR_SET_SECCOMP)`` as the last step of its confinement, after
``no_new_privs`` and before any bot code, so they hold for the bot and for everything it starts
or executes. Every other system call is allowed: the filter removes what a bot could use to leave
its sandbox, to inspect other processes, or to keep state on the host, and nothing a game needs.

A refused call fails with ``EPERM`` (``ENOSYS`` for ``clone3``, whose flags a filter cannot read,
so the C library falls back to ``clone``, whose flags it can). Where libseccomp is missing the
filter is ``None``: bots run without it and :func:`harness.bots.isolation.missing` says so.
"""

from __future__ import annotations

import errno
import signal
import tempfile
from functools import cache

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
}
# clone() with any of these flags makes a namespace: refused like unshare()
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000, "CLONE_NEWTIME": 0x00000080,
}


PR_SET_PDEATHSIG = 1
_INT = 0xFFFFFFFF  # an int argument: the kernel reads only the register's low 32 bits


@cache
def bot_filter() -> bytes | None:
    """The filter as BPF bytes for ``prctl(PR_SET_SECCOMP)``, or None without libseccomp."""
    try:
        import pyseccomp as seccomp

        rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    except (ImportError, OSError, RuntimeError):  # the bindings or libseccomp.so are missing
        return None
    for name in REFUSED:
        try:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (ValueError, RuntimeError, OSError):
            continue  # a call this kernel's architecture does not have
    for flag in NAMESPACE_FLAGS.values():
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone",
                       seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # a death signal other than SIGKILL: the jail's PID 1 (the runner, then the bot) must die
    # with bubblewrap's outer process, which dies with the referee; its death ends the jail
    rules.add_rule(seccomp.ERRNO(errno.EPERM), "prctl",
                   seccomp.Arg(0, seccomp.MASKED_EQ, _INT, PR_SET_PDEATHSIG),
                   seccomp.Arg(1, seccomp.NE, signal.SIGKILL))
    with tempfile.TemporaryFile() as f:
        rules.export_bpf(f)
        f.seek(0)
        return f.read()
