"""Holds memory through children: 16 forked processes of 100 MB each, every one under the
per-process limit, together far over the bot's limit; then plays on normally.

``start`` waits until every child has touched its memory (each reports on a pipe), or until no
child has reported for 5 s (children killed for memory never report), so the limit is reached
during start-up however loaded the machine is, not at some later turn."""

import os
import select
import time


class Allocator:
    def start(self, info):
        self.children = []
        ready, report = os.pipe()
        for _ in range(16):
            pid = os.fork()
            if pid == 0:
                os.close(ready)
                block = bytearray(100 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                os.write(report, b"x")
                time.sleep(600)
                os._exit(0)
            self.children.append(pid)
        os.close(report)
        got = 0
        while got < 16:
            if not select.select([ready], [], [], 5.0)[0]:
                break  # the rest were killed: what lives holds all the memory it can
            chunk = os.read(ready, 16)
            if not chunk:  # every child gone (killed) before reporting
                break
            got += len(chunk)

    def act(self, observation, legal_actions):
        return legal_actions[0]
