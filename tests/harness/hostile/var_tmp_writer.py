"""Leaves a file for its next game in every writable place outside its scratch space, and
reports, at the start of each game, any file a previous game left."""

import os

PLACES = ["/var/tmp", "/dev/shm", "/tmp", os.path.expanduser("~")]
NAME = "tourney-var-tmp-writer.txt"


class Writer:
    def start(self, info):
        for place in PLACES:
            path = os.path.join(place, NAME)
            if os.path.exists(path):
                print("FOUND", path, flush=True)
        for place in PLACES:
            try:
                with open(os.path.join(place, NAME), "w") as f:
                    f.write("I was here")
                print("WROTE", place, flush=True)
            except OSError as exc:
                print("REFUSED", place, type(exc).__name__, flush=True)

    def act(self, observation, legal_actions):
        return legal_actions[0]
