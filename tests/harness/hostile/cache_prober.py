"""Asks the kernel, at the start of its game, which pages of a file it shares with the referee
and the other bot (its interpreter's ``os.py``) are in the page cache, each way a call answers
without reading them, and prints one line per way: ``<name> OK`` where the call worked,
``<name> REFUSED <errno>`` where it was refused.

- mincore: the residency of the pages of its own mapping of the file (the kernel answers for
  the files its user owns, such as a normal user's virtual environment);
- cachestat: the file's page-cache counts (Linux 6.5 on; the same rule as mincore);
- preadv2-nowait: a read that fails rather than wait for the disk (``RWF_NOWAIT``), so it
  succeeds exactly for the pages in the cache; pwritev2-nowait the same for a write;
- io_setup: kernel AIO, whose reads can ask the same in memory, where no filter looks;
- preadv2-plain and pwritev2-dsync: the same calls without ``RWF_NOWAIT``, which a bot may use.
"""

import ctypes
import ctypes.util
import errno
import mmap
import os

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
# x86_64 numbers
SYS_PREADV2, SYS_PWRITEV2, SYS_IO_SETUP, SYS_CACHESTAT = 327, 328, 206, 451
RWF_HIPRI, RWF_DSYNC, RWF_NOWAIT = 1, 2, 8


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def say(name, result):
    if result >= 0:
        print(name, "OK", flush=True)
    else:
        code = ctypes.get_errno()
        print(name, "REFUSED", errno.errorcode.get(code, code), flush=True)


def vectored(number, fd, buffer, flags):
    vec = IoVec(ctypes.cast(buffer, ctypes.c_void_p), len(buffer))
    return libc.syscall(ctypes.c_long(number), ctypes.c_long(fd), ctypes.byref(vec),
                        ctypes.c_long(1), ctypes.c_long(0), ctypes.c_long(0),
                        ctypes.c_long(flags))


class Prober:
    def start(self, info):
        shared = os.open(os.__file__, os.O_RDONLY)
        size = os.fstat(shared).st_size
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, shared, 0)
        pages = (ctypes.c_ubyte * ((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE))()
        say("mincore", libc.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), pages))
        if os.uname().machine != "x86_64":
            return
        counts, span = (ctypes.c_uint64 * 5)(), (ctypes.c_uint64 * 2)(0, 0)
        say("cachestat", libc.syscall(ctypes.c_long(SYS_CACHESTAT), ctypes.c_long(shared),
                                      span, counts, ctypes.c_long(0)))
        buffer = ctypes.create_string_buffer(64)
        say("preadv2-nowait", vectored(SYS_PREADV2, shared, buffer, RWF_NOWAIT))
        say("preadv2-nowait-hipri", vectored(SYS_PREADV2, shared, buffer,
                                             RWF_NOWAIT | RWF_HIPRI))
        say("preadv2-plain", vectored(SYS_PREADV2, shared, buffer, 0))
        scratch = os.open("/tmp/cache-prober", os.O_RDWR | os.O_CREAT, 0o600)
        say("pwritev2-nowait", vectored(SYS_PWRITEV2, scratch, buffer, RWF_NOWAIT))
        say("pwritev2-dsync", vectored(SYS_PWRITEV2, scratch, buffer, RWF_DSYNC))
        context = ctypes.c_ulong(0)
        say("io_setup", libc.syscall(ctypes.c_long(SYS_IO_SETUP), ctypes.c_long(1),
                                     ctypes.byref(context)))

    def act(self, observation, legal_actions):
        return legal_actions[0]
