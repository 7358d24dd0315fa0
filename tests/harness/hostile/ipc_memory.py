"""Remembers across games through the host's SysV IPC: a shared memory segment and a message
queue under fixed keys (the same for every game), and a key in the user's keyring. At the start
of each game it reports what an earlier game left (FOUND ...), then leaves its own marks for the
next one. A bot that can do this learns a duplicate pair's deal in the pair's second game."""

import ctypes
import ctypes.util
import os

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.syscall.restype = ctypes.c_long

SHM_KEY = 0x70757274  # fixed keys: the next game looks them up again
MSG_KEY = 0x70757275
IPC_CREAT, IPC_NOWAIT = 0o1000, 0o4000
MARK = b"tourney-ipc-memory"
SYS_ADD_KEY, SYS_REQUEST_KEY = 248, 249  # x86_64
KEY_SPEC_USER_KEYRING = -4


class Msg(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 64)]


def shared_memory(create):
    shmid = libc.shmget(SHM_KEY, 4096, (IPC_CREAT | 0o666) if create else 0)
    if shmid < 0:
        return None
    address = libc.shmat(shmid, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        return None
    return (ctypes.c_char * 64).from_address(address)


def report():
    memory = shared_memory(create=False)
    if memory is not None and bytes(memory).startswith(MARK):
        print("FOUND shm", flush=True)
    queue = libc.msgget(MSG_KEY, 0)
    if queue >= 0:
        msg = Msg()
        if libc.msgrcv(queue, ctypes.byref(msg), 64, 0, IPC_NOWAIT) >= 0:
            print("FOUND msg", flush=True)
    if os.uname().machine == "x86_64":
        found = libc.syscall(SYS_REQUEST_KEY, b"user", MARK, None, 0)
        if found >= 0:
            print("FOUND key", flush=True)


def leave():
    memory = shared_memory(create=True)
    print("WROTE shm" if memory is not None else "REFUSED shm", flush=True)
    if memory is not None:
        memory.value = MARK
    queue = libc.msgget(MSG_KEY, IPC_CREAT | 0o666)
    msg = Msg(1, MARK)
    sent = queue >= 0 and libc.msgsnd(queue, ctypes.byref(msg), len(MARK), IPC_NOWAIT) == 0
    print("WROTE msg" if sent else "REFUSED msg", flush=True)
    if os.uname().machine == "x86_64":
        added = libc.syscall(SYS_ADD_KEY, b"user", MARK, b"hand", 4,
                             ctypes.c_int(KEY_SPEC_USER_KEYRING))
        print("WROTE key" if added >= 0 else "REFUSED key", flush=True)


class Rememberer:
    def start(self, info):
        report()
        leave()

    def act(self, observation, legal_actions):
        return legal_actions[0]
