"""Tries, at the start of its game, to open a socket of every address family the kernel numbers
(0 to 63: AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK, AF_ALG, AF_KEY, AF_TIPC, AF_RDS,
AF_XDP...) with every socket type, and a connected pair (``socketpair``) of each, and prints
one line per family and call: ``socket <n> <name> OK <type>`` where one type worked,
``socket <n> <name> REFUSED <errno>`` (the last type's errno) where none did. A network
namespace hides the host's network, not these: ``AF_VSOCK`` reaches the hypervisor's host,
``AF_NETLINK`` and ``AF_ALG`` are kernel interfaces, and a family the kernel loads on demand is
kernel code no game needs.

Then ``socket raw AF_INET+high REFUSED|OK``: ``AF_INET`` passed through ``syscall(2)`` with
bits above the 32 the kernel reads (it takes an ``int``), to show that a filter comparing the
whole register is not fooled.
"""

import ctypes
import ctypes.util
import errno
import os
import socket

TYPES = (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET, socket.SOCK_RAW,
         socket.SOCK_RDM)
NAMES = {value: name for name, value in vars(socket).items()
         if name.startswith("AF_") and isinstance(value, int) and name != "AF_ROUTE"}
NAMES.update({40: "AF_VSOCK", 41: "AF_KCM", 42: "AF_QIPCRTR", 43: "AF_SMC", 44: "AF_XDP",
              45: "AF_MCTP", 31: "AF_BLUETOOTH", 30: "AF_TIPC", 21: "AF_RDS", 29: "AF_CAN",
              36: "AF_IEEE802154", 39: "AF_NFC"})
SYS_SOCKET = 41  # x86_64


def attempt(call, family):
    last = 0
    for kind in TYPES:
        try:
            made = call(family, kind, 0)
        except OSError as exc:
            last = exc.errno or 0
            continue
        for sock in made if isinstance(made, tuple) else (made,):
            sock.close()
        return f"OK {kind}"
    return f"REFUSED {errno.errorcode.get(last, last)}"


class Prober:
    def start(self, info):
        for family in range(64):
            name = NAMES.get(family, "?")
            print("socket", family, name, attempt(socket.socket, family), flush=True)
            print("socketpair", family, name, attempt(socket.socketpair, family), flush=True)
        if os.uname().machine == "x86_64":
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            libc.syscall.restype = ctypes.c_long
            fd = libc.syscall(ctypes.c_long(SYS_SOCKET), ctypes.c_long((1 << 32) | 2),
                              ctypes.c_long(socket.SOCK_STREAM), ctypes.c_long(0))
            if fd >= 0:
                os.close(fd)
                print("socket raw AF_INET+high OK", flush=True)
            else:
                code = ctypes.get_errno()
                print("socket raw AF_INET+high REFUSED", errno.errorcode.get(code, code),
                      flush=True)

    def act(self, observation, legal_actions):
        return legal_actions[0]
