"""The ladder's calibrated rungs: a stored table of the rungs' own round robin, and a bot
placed between them.

``tourney ladder GAME --calibrate`` plays the round robin of the rungs
(:data:`harness.league.ladder.RUNGS`), fits batch Elo over it with ``greedy`` at 0, and stores
each rung's rating and interval in :data:`TABLE_FILE`, per game, with the command that made
it. ``tourney ladder GAME BOT`` then keeps the rungs at those ratings and fits the bot's rating
alone against them (:func:`harness.stats.placement.rate_against`): the bot's interval comes
from its own games only, and a bot that lost every game to the top rung sits below it (a
batch fit of the bot and a rung it never scored against would put them level with an interval
as wide as its prior, ``+0 [-718, +718]``). A ladder of other rungs, or of a variant, has no
calibration and falls back to the batch fit (:func:`harness.league.ladder.place`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.league.ladder import ANCHOR, meetings, wilson
from harness.stats.elo import fit_elo
from harness.stats.outcome import Result
from harness.stats.placement import FixedFit, rate_against

TABLE_FILE = Path(__file__).with_name("ladder_table.json")
CALIBRATION_SEED = 4901  # the round robin's default seed (its deals, so a rerun repeats it)
CALIBRATION_GAMES = 20  # games per pair of rungs by default


@dataclass(frozen=True)
class Rung:
    """A rung at its calibrated rating: its spec as the ladder writes it (``NAME=SPEC@…``),
    its name, and its rating, interval and games in the round robin."""

    spec: str
    name: str
    elo: float
    low: float
    high: float
    games: int

    def as_dict(self) -> dict[str, Any]:
        return {"rung": self.spec, "name": self.name, "elo": round(self.elo, 1),
                "low": round(self.low, 1), "high": round(self.high, 1), "games": self.games}


@dataclass(frozen=True)
class Calibration:
    """One game's calibrated rungs, best first, and how they were measured."""

    game: str
    rungs: tuple[Rung, ...]
    games_per_pair: int
    seed: int
    command: str

    def rung(self, spec: str) -> Rung | None:
        return next((r for r in self.rungs if r.spec == spec), None)

    def as_dict(self) -> dict[str, Any]:
        return {"rungs": [r.as_dict() for r in self.rungs], "anchor": ANCHOR,
                "games_per_pair": self.games_per_pair, "seed": self.seed,
                "command": self.command}


def calibrate(game: str, rungs: Sequence[str], results: Sequence[Result], games_per_pair: int,
              seed: int, level: float = 0.95, options: str = "") -> Calibration:
    """The rungs' ratings from their round robin's ``results`` (batch Elo, ``greedy`` = 0);
    ``options``: the limit options the command was given, kept in its command line."""
    from harness.league.limits import split_limits
    from harness.league.service import bot_ref

    fit = fit_elo(results, anchor=ANCHOR, level=level)
    by_name = {bot_ref(split_limits(spec)[0]).name: spec for spec in rungs}
    out = [Rung(by_name[b.name], b.name, b.elo, b.low, b.high, b.games) for b in fit.bots
           if b.name in by_name]
    command = (f"tourney ladder {game} --calibrate --games {games_per_pair} --seed {seed}"
               + (f" {options}" if options else ""))
    return Calibration(game, tuple(out), games_per_pair, seed, command)


def read_table(path: Path = TABLE_FILE) -> dict[str, Calibration]:
    """Every game's calibration in the table (none if the file is missing)."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {game: Calibration(game, tuple(Rung(r["rung"], r["name"], float(r["elo"]),
                                               float(r["low"]), float(r["high"]),
                                               int(r["games"])) for r in entry["rungs"]),
                              int(entry["games_per_pair"]), int(entry["seed"]),
                              str(entry["command"]))
            for game, entry in data.items()}


def write_table(calibration: Calibration, path: Path = TABLE_FILE) -> None:
    """Store ``calibration``, replacing its game's entry and keeping the others."""
    table = read_table(path)
    table[calibration.game] = calibration
    data = {game: table[game].as_dict() for game in sorted(table)}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def calibration_for(game: str, rungs: Sequence[str], variant: dict[str, str] | None,
                    path: Path = TABLE_FILE) -> Calibration | None:
    """The stored calibration of ``game`` if it covers every rung of this ladder (written as
    the table writes them) and the ladder plays the game's default rules."""
    if variant:
        return None
    calibration = read_table(path).get(game)
    if calibration is None or any(calibration.rung(spec) is None for spec in rungs):
        return None
    return calibration


def fmt_elo(x: float) -> str:
    return "-inf" if x == -math.inf else "+inf" if x == math.inf else f"{x:+.0f}"


@dataclass(frozen=True)
class CalibratedPlacement:
    """``bot`` fit against the rungs at their calibrated ratings; ``versus`` maps a rung's name
    to the bot's (points, games) against it."""

    bot: str
    calibration: Calibration
    fit: FixedFit
    versus: dict[str, tuple[float, int]]

    def order(self) -> list[tuple[str, float]]:
        """The rungs and the bot by rating, best first (the bot below a rung it ties)."""
        rows = [(r.name, r.elo) for r in self.calibration.rungs if r.name != self.bot]
        at = sum(1 for _, elo in rows if elo >= self.fit.elo)
        return [*rows[:at], (self.bot, self.fit.elo), *rows[at:]]

    def neighbours(self) -> tuple[str | None, str | None]:
        """The rung just above the bot and the one just below (None past either end)."""
        names = [name for name, _ in self.order()]
        i = names.index(self.bot)
        return (names[i - 1] if i > 0 else None), (names[i + 1] if i + 1 < len(names) else None)

    @property
    def rank(self) -> int:
        return [name for name, _ in self.order()].index(self.bot) + 1

    def verdict(self) -> str:
        fit = self.fit
        above, below = self.neighbours()
        span = f"{fmt_elo(fit.low)} .. {fmt_elo(fit.high)}"
        if not math.isfinite(fit.elo):
            side = "lost every game" if fit.elo < 0 else "won every game"
            bound = (f"at most {fmt_elo(fit.high)}" if fit.elo < 0
                     else f"at least {fmt_elo(fit.low)}")
            where = f"below {below or above}" if fit.elo < 0 else f"above {above or below}"
            return f"{self.bot} {side}: {where}, {bound} Elo ({100 * fit.level:g} %)"
        if above and below:
            where = f"between {above} and {below}"
        elif below:
            where = f"above every rung ({below} next)"
        else:
            where = f"below every rung ({above} next)"
        return f"{self.bot} places {where}: {fmt_elo(fit.elo)} Elo ({span}, {100 * fit.level:g} %)"

    def as_dict(self) -> dict[str, Any]:
        fit = self.fit
        above, below = self.neighbours()

        def num(x: float) -> float | None:
            return round(x, 1) if math.isfinite(x) else None

        versus = {}
        for name, (got, games) in self.versus.items():
            p, low, high = wilson(got, games, fit.level)
            versus[name] = {"points": got, "games": games, "share": p, "low": low, "high": high}
        return {"bot": self.bot, "method": "calibrated", "level": fit.level,
                "elo": num(fit.elo), "low": num(fit.low), "high": num(fit.high),
                "lost_all": fit.points == 0 and fit.games > 0,
                "won_all": fit.games > 0 and fit.points == fit.games,
                "games": fit.games, "points": fit.points, "rank": self.rank,
                "rung_above": above, "rung_below": below, "versus": versus,
                "rungs": [r.as_dict() for r in self.calibration.rungs],
                "calibration": self.calibration.as_dict(), "verdict": self.verdict()}


def place_calibrated(bot: str, results: Sequence[Result], calibration: Calibration,
                     level: float = 0.95) -> CalibratedPlacement:
    """Fit ``bot`` against the rungs of ``calibration`` at their stored ratings, from its
    two-sided games against them (games against anything else are left out)."""
    from harness.league.service import LeagueError

    ratings = {r.name: r.elo for r in calibration.rungs if r.name != bot}
    games: list[tuple[float, float]] = []
    versus: dict[str, list[float]] = {}
    for opponent, got in meetings(bot, results):
        if opponent not in ratings:
            continue
        games.append((ratings[opponent], got))
        acc = versus.setdefault(opponent, [0.0, 0.0])
        acc[0] += got
        acc[1] += 1
    if not games:
        raise LeagueError(f"no game of {bot!r} against the rungs is stored; play the ladder "
                          f"first")
    return CalibratedPlacement(bot, calibration, rate_against(games, level),
                               {k: (v[0], int(v[1])) for k, v in versus.items()})
