"""Thinks on its opponent's time with no helper process (issue 44): one process with a
SIGCONT handler, a thread that spins, and six POSIX timers (``timer_create``, signal SIGCONT,
periods of 1 to 11 ms). A kernel timer keeps firing while its process is stopped, and its
SIGCONT resumes it: stopped between its turns by signals alone, the bot is awake again within a
millisecond and its thread spins through the opponent's turn.

It prints ``timers OK`` (or ``timers REFUSED <errno>``) at its start, and at each of its turns
``gap S``: the CPU seconds it used since its previous answer (the opponent's turn)."""

import ctypes
import signal
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
CLOCK_MONOTONIC = 1
SIGEV_SIGNAL = 0


class Sigevent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("pad", ctypes.c_int * 12)]


class Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class Itimerspec(ctypes.Structure):
    _fields_ = [("interval", Timespec), ("value", Timespec)]


def arm(period_ms):
    event = Sigevent(None, signal.SIGCONT, SIGEV_SIGNAL)
    timer = ctypes.c_void_p()
    if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)) != 0:
        return f"REFUSED {ctypes.get_errno()}"
    every = Timespec(0, period_ms * 1_000_000)
    libc.timer_settime(timer, 0, ctypes.byref(Itimerspec(every, every)), None)
    return "OK"


def spin():
    while True:
        pass


class TimerWaker:
    def start(self, info):
        signal.signal(signal.SIGCONT, lambda signum, frame: None)
        print("timers", *sorted({arm(ms) for ms in (1, 3, 5, 7, 9, 11)}), flush=True)
        threading.Thread(target=spin, daemon=True).start()
        self.answered = time.process_time()

    def act(self, observation, legal_actions):
        print(f"gap {time.process_time() - self.answered:.4f}", flush=True)
        self.answered = time.process_time()
        return legal_actions[0]
