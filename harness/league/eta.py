"""An estimate of the time a league still needs that holds when pairings differ in speed.

One global rate misleads when one pairing plays at 2 games/s and the others at 30: the
estimate swings with whichever block is being played. :class:`Eta` keeps the games left per
pairing (the sorted bot names of a game) and the measured time of each finished game:

* a pairing with games finished is estimated from its own mean game time;
* a pairing not seen yet, from its bots: the mean think time per game each bot showed in the
  games it played, plus the mean time a game spends outside the bots (a bot not seen yet counts
  as the mean bot);
* the sum over pairings is game time; dividing by the measured parallelism gives wall
  seconds: the game seconds of the last ``WINDOW`` games that arrived over the wall time they
  took to arrive (so the worker count and the overhead per game are included, and the start of
  the worker pool is not).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence

from harness.records import GameSpec

Pairing = tuple[str, ...]
WINDOW = 200  # finished games the parallelism is measured over


def pairing(names: Iterable[str]) -> Pairing:
    return tuple(sorted(names))


class Eta:
    """Games left and measured game times per pairing; :meth:`seconds_left` is the estimate."""

    def __init__(self, todo: Sequence[GameSpec]) -> None:
        self.left: Counter[Pairing] = Counter(pairing(r.name for r in s.seats) for s in todo)
        self._time: dict[Pairing, list[float]] = {}  # pairing -> [seconds, games]
        self._bot: dict[str, list[float]] = {}  # bot -> [think seconds, games]
        self._outside = [0.0, 0.0]  # game seconds outside the bots' think time, games
        self._arrivals: deque[tuple[float, float]] = deque(maxlen=WINDOW)  # (wall, duration)

    def add(self, seats: Sequence[str], duration: float, think: Sequence[float],
            now: float) -> None:
        """A finished game: its bots (per seat), its duration and each seat's think time,
        arrived at wall-clock second ``now``."""
        key = pairing(seats)
        if self.left[key] > 0:
            self.left[key] -= 1
        acc = self._time.setdefault(key, [0.0, 0.0])
        acc[0] += duration
        acc[1] += 1
        for name, seconds in zip(seats, think, strict=False):
            bot = self._bot.setdefault(name, [0.0, 0.0])
            bot[0] += seconds
            bot[1] += 1
        self._outside[0] += max(0.0, duration - sum(think))
        self._outside[1] += 1
        self._arrivals.append((now, duration))

    def parallelism(self) -> float | None:
        """Game seconds played per wall second, over the recent games (None: too few yet)."""
        if len(self._arrivals) < 2:
            return None
        span = self._arrivals[-1][0] - self._arrivals[0][0]
        played = sum(d for _, d in list(self._arrivals)[1:])
        return played / span if span > 0 and played > 0 else None

    def game_time(self, key: Pairing) -> float | None:
        """The expected seconds of one game of ``key`` (None: nothing measured yet)."""
        seen = self._time.get(key)
        if seen:
            return seen[0] / seen[1]
        if not self._bot:
            return None
        per_bot = {name: s / n for name, (s, n) in self._bot.items()}
        mean_bot = sum(per_bot.values()) / len(per_bot)
        outside = self._outside[0] / self._outside[1]
        return outside + sum(per_bot.get(name, mean_bot) for name in key)

    def seconds_left(self) -> float | None:
        """Wall seconds still needed (None: not enough measured yet)."""
        parallel = self.parallelism()
        if parallel is None:
            return None
        total = 0.0
        for key, n in self.left.items():
            if n:
                each = self.game_time(key)
                if each is None:
                    return None
                total += n * each
        return total / parallel

    def seconds_for(self, games: float) -> float | None:
        """Wall seconds for the next ``games`` of the games still to play, at their mean time
        (None: not enough measured yet). For a league that may stop early (an SPRT)."""
        left = sum(self.left.values())
        total = self.seconds_left()
        if total is None:
            return None
        return total * min(max(games, 0.0), left) / left if left else 0.0


def clock(seconds: float | None) -> str:
    """``1:02:03`` (or ``?`` when unknown)."""
    if seconds is None:
        return "?"
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
