"""Holds memory through children: 16 forked processes of 100 MB each, every one under the
per-process limit, together far over the bot's limit; then plays on normally."""

import os
import time


class Allocator:
    def start(self, info):
        self.children = []
        for _ in range(16):
            pid = os.fork()
            if pid == 0:
                block = bytearray(100 << 20)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(600)
                os._exit(0)
            self.children.append(pid)
        time.sleep(2)

    def act(self, observation, legal_actions):
        return legal_actions[0]
