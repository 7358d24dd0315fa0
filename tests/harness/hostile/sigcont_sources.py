"""Tries, at the start of its game, every way it knows to have a SIGCONT sent to a process of
its own (which would resume it while it is stopped between its turns), and the ways out of
its process group, and prints one line each: ``<name> OK`` or ``<name> REFUSED <errno>``
(x86-64 system-call numbers; elsewhere it prints nothing).

- kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal: SIGCONT to
  itself, the signal number passed with high bits set (the kernel reads an int: a filter that
  compares the whole register would let it through);
- fsetsig: ``fcntl(F_SETSIG, SIGCONT)`` (the signal of a file's I/O readiness, leases, dnotify);
- pdeathsig: ``prctl(PR_SET_PDEATHSIG, SIGCONT)`` (sent when its parent dies), and
  pdeathsig_kill, the same with SIGKILL (which must stay allowed);
- clone: a child whose exit signal, sent to its parent, is SIGCONT;
- timer: ``timer_create`` with SIGCONT (a kernel timer fires while its process is stopped);
- mq_notify: a message queue that notifies by SIGCONT;
- setsid, setpgid: a child leaving the process group (a stopped, orphaned process group gets a
  SIGCONT from the kernel), tried in a child.
"""

import ctypes
import os
import signal
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SIGCONT = int(signal.SIGCONT)
HIGH = 1 << 32  # high bits a 64-bit register may carry past an int argument
NR = {"kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
      "rt_tgsigqueueinfo": 297, "pidfd_send_signal": 424, "fcntl": 72, "prctl": 157,
      "clone": 56, "timer_create": 222, "mq_open": 240, "mq_notify": 244, "mq_unlink": 241,
      "timer_delete": 226}
F_SETSIG, PR_SET_PDEATHSIG, SI_QUEUE, WALL = 10, 1, -1, 0x40000000


class Sigevent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("pad", ctypes.c_int * 12)]


def call(name, *args):
    return libc.syscall(ctypes.c_long(NR[name]), *(ctypes.c_long(a) if isinstance(a, int)
                                                   else a for a in args))


def said(name, result):
    if result >= 0:
        print(name, "OK", flush=True)
    else:
        print(name, "REFUSED", ctypes.get_errno(), flush=True)


def siginfo():
    info = (ctypes.c_int * 32)()
    info[0], info[2], info[4], info[5] = SIGCONT, SI_QUEUE, os.getpid(), os.getuid()
    return info


def in_child(attempt):
    """The result of ``attempt()`` (0 or -errno) in a child process."""
    pid = os.fork()
    if pid == 0:
        try:
            attempt()
            code = 0
        except OSError as exc:
            code = exc.errno or 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    ctypes.set_errno(code)
    return -1 if code else 0


class SigcontSources:
    def start(self, info):
        if os.uname().machine != "x86_64":
            return
        pid, tid = os.getpid(), threading.get_native_id()
        said("kill", call("kill", pid, SIGCONT | HIGH))
        said("tkill", call("tkill", tid, SIGCONT | HIGH))
        said("tgkill", call("tgkill", pid, tid, SIGCONT | HIGH))
        said("rt_sigqueueinfo", call("rt_sigqueueinfo", pid, SIGCONT | HIGH, siginfo()))
        said("rt_tgsigqueueinfo", call("rt_tgsigqueueinfo", pid, tid, SIGCONT | HIGH,
                                       siginfo()))
        pidfd = os.pidfd_open(pid)
        said("pidfd_send_signal", call("pidfd_send_signal", pidfd, SIGCONT | HIGH, None, 0))
        os.close(pidfd)
        read, write = os.pipe()
        said("fsetsig", call("fcntl", read, F_SETSIG, SIGCONT | HIGH))
        os.close(read)
        os.close(write)
        said("pdeathsig", call("prctl", PR_SET_PDEATHSIG, SIGCONT))
        said("pdeathsig_kill", call("prctl", PR_SET_PDEATHSIG, int(signal.SIGKILL)))
        child = call("clone", SIGCONT, 0, 0, 0, 0)
        if child == 0:
            os._exit(0)
        if child > 0:
            os.waitpid(child, WALL)
        said("clone", child)
        event = Sigevent(None, SIGCONT, 0)  # SIGEV_SIGNAL
        timer = ctypes.c_int()
        made = call("timer_create", 1, ctypes.byref(event), ctypes.byref(timer))
        said("timer", made)
        if made == 0:
            call("timer_delete", timer.value)
        name = f"sigcont-{pid}".encode()  # the system call takes it without its "/"
        queue = call("mq_open", ctypes.c_char_p(name), os.O_CREAT | os.O_RDWR, 0o600, None)
        if queue < 0:
            said("mq_open", queue)
        else:
            said("mq_notify", call("mq_notify", queue, ctypes.byref(event)))
            os.close(queue)
            call("mq_unlink", ctypes.c_char_p(name))
        said("setsid", in_child(os.setsid))
        said("setpgid", in_child(lambda: os.setpgid(0, 0)))

    def act(self, observation, legal_actions):
        return legal_actions[0]
