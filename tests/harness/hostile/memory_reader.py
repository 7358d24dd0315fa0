"""Reads its own memory for what an earlier bot's start left there: its process is forked by
the start-up server (harness/bots/forkserver.py) from the same process as every other bot's,
so a request the server had kept or parsed would be in the memory every later process starts
with. It looks for the file name of the bot the test started before it, as the request names
it (in quotes), without ever holding that name whole itself (not even here): it searches for
the first part and compares what follows with the second. It prints ``FOUND n``."""

import ctypes

FIRST = b'"previous-bot-'
SECOND = b'k7q.py"'


def _found():
    with open("/proc/self/maps") as f:
        regions = f.read().splitlines()
    count = 0
    for line in regions:
        fields = line.split()
        path = fields[5] if len(fields) > 5 else ""
        if fields[1][:2] != "rw" or (path and path != "[heap]"):
            continue
        low, high = (int(x, 16) for x in fields[0].split("-"))
        data = ctypes.string_at(low, high - low)
        at = data.find(FIRST)
        while at >= 0:
            tail = at + len(FIRST)
            count += data[tail:tail + len(SECOND)] == SECOND
            at = data.find(FIRST, at + 1)
    return count


class Reader:
    def start(self, info):
        print("FOUND", _found(), flush=True)

    def act(self, observation, legal_actions):
        return legal_actions[0]
