"""A fair bot that thinks 0.3 s of its own CPU time on every decision, then plays the last
legal action (in sorted order); it prints how long each decision took on the wall clock."""

import time


def act(observation, legal_actions):
    wall, cpu = time.perf_counter(), time.process_time()
    while time.process_time() - cpu < 0.3:
        pass
    print(f"{time.perf_counter() - wall:.3f}", flush=True)
    return legal_actions[-1]
