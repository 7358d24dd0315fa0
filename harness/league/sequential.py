"""SPRT gauntlets: play duplicate pairs of one new bot against one old bot until the sequential
probability ratio test of :mod:`harness.stats.sprt` has its answer.

The test sees the pairs **in schedule order**, never in the order workers finish them:
:class:`SprtGate` holds a finished game until every game scheduled before it has finished, then
commits whole pairs to the store and to the test, one by one. The verdict therefore falls on
the same pair whatever the number of workers, and the folder then holds exactly the games of
the pairs up to that one (games of later pairs that happened to finish first are not the
test's and are not stored). Ctrl-C or an error keeps every finished game, as in any league.
Running the same command again continues the test from the stored games.

>>> from harness.records import BotRef, GameSpec
>>> specs = [GameSpec(f"g{i}", "battleline", {}, i // 2, (BotRef("new", "x"), BotRef("old", "y")),
...                   pair_id=f"p{i // 2}") for i in range(4)]
>>> gate = SprtGate(specs, "new", "old", SprtParams(0, 10), {"g1": 1.0})
>>> gate.committed, gate.test.pairs
(0, 0)
>>> gate.stored["g0"] = 0.5  # as if stored by an earlier run
>>> gate.refresh(), gate.committed, gate.test.counts
([], 2, (0, 0, 0, 1, 0))
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.league.eta import Eta, clock
from harness.records import GameSpec, TourneyError, is_void
from harness.stats.outcome import points
from harness.stats.pairs import MIN_PAIRS
from harness.stats.sprt import Sprt, SprtParams
from harness.stats.stopping import StoppedFigures, pairs_left_slowest, stopped_figures

if TYPE_CHECKING:
    from harness.league.schema import Finished
    from harness.league.service import League, RunSummary
    from harness.run.base import Executor

DEFAULT_CAP = 20_000  # games, when --games is not given for a new SPRT gauntlet
FIXED_SAMPLE_NOTE = ("score, elo, elo_low, elo_high, nelo and los are fixed-sample figures: they "
                     "assume the number of pairs was fixed in advance, so after an early stop "
                     "they lean away from 0 and the interval is too narrow; median_unbiased "
                     "accounts for the SPRT's stopping rule")


class SprtError(TourneyError):
    """An SPRT the league cannot run (more than one opponent, ...); one line, exit status 2."""


def points_of(bots: Sequence[str], result: Sequence[float], new: str, old: str) -> float:
    """The new bot's points in one game against the old one (1, ½ or 0; teams sit apart)."""
    return points(result[list(bots).index(new)], result[list(bots).index(old)])


class SprtGate:
    """The league's :class:`~harness.league.service.Gate` for an SPRT gauntlet.

    ``stored`` maps the game ids already in the folder to the new bot's points (None: void).
    """

    def __init__(self, specs: Sequence[GameSpec], new: str, old: str, params: SprtParams,
                 stored: Mapping[str, float | None]) -> None:
        self.new, self.old = new, old
        self.test = Sprt(params)
        self.pairs: list[list[str]] = []  # game ids of each duplicate pair, in schedule order
        last = None
        for spec in specs:
            if self.pairs and spec.pair_id and spec.pair_id == last:
                self.pairs[-1].append(spec.game_id)
            else:
                self.pairs.append([spec.game_id])
            last = spec.pair_id
        self.stored: dict[str, float | None] = dict(stored)
        self.held: dict[str, Finished] = {}
        self.next_pair = 0  # pairs before this one are committed
        self.committed = 0  # games committed (stored or already in the folder)
        self.incomplete = 0  # committed pairs with a void game (or a single game at the cap)
        self.wins = self.draws = self.losses = self.void = 0
        self.refresh()

    @property
    def done(self) -> bool:
        return self.test.verdict is not None

    @property
    def scheduled_games(self) -> int:
        return sum(len(p) for p in self.pairs)

    def admit(self, record: Finished) -> list[Finished]:
        """Hold a finished game; return the games of every pair now complete in order."""
        if is_void(record):
            self.stored[record.game_id] = None
        else:
            self.stored[record.game_id] = points_of(record.seats, record.returns, self.new,
                                                    self.old)
        self.held[record.game_id] = record
        return self.refresh()

    def refresh(self) -> list[Finished]:
        """Commit every pair, in schedule order, whose games have all finished."""
        out: list[Finished] = []
        while not self.done and self.next_pair < len(self.pairs):
            ids = self.pairs[self.next_pair]
            if any(gid not in self.stored for gid in ids):
                break
            out += [self.held.pop(gid) for gid in ids if gid in self.held]
            points = [self.stored[gid] for gid in ids]
            for p in points:
                if p is None:
                    self.void += 1
                else:
                    self.wins += p == 1.0
                    self.draws += p == 0.5
                    self.losses += p == 0.0
            self.next_pair += 1
            self.committed += len(ids)
            done = [p for p in points if p is not None]
            if len(done) == 2:
                self.test.update(done[0] + done[1])
            else:
                self.incomplete += 1
        return out

    def release(self) -> list[Finished]:
        if self.done:
            return []
        held, self.held = list(self.held.values()), {}
        return held

    def postfix(self) -> str:
        """The LLR against the bounds: inside them, or which one it crossed and the verdict."""
        t, p = self.test, self.test.params
        if t.llr >= p.upper:
            where = f"LLR {t.llr:+.2f} ≥ {p.upper:+.2f}"
        elif t.llr <= p.lower:
            where = f"LLR {t.llr:+.2f} ≤ {p.lower:+.2f}"
        else:
            where = f"LLR {t.llr:+.2f} in ({p.lower:+.2f}, {p.upper:+.2f})"
        if t.verdict is not None:
            where += f": {t.verdict} accepted"
        return f"{where}, {t.pairs} pair{'' if t.pairs == 1 else 's'}"

    def eta(self, eta: Eta) -> str:
        """The time to a verdict: unknown before 5 pairs, not all alike; then the expected time
        at the slowest strength the pairs so far allow (:func:`~harness.stats.stopping.
        pairs_left_slowest`: about right when the bots sit halfway between the hypotheses,
        too long otherwise), or the time to the cap when that comes first."""
        t = self.test
        left = pairs_left_slowest(t.counts, t.llr, t.jumps, t.params.lower, t.params.upper)
        if left is None:
            return f"ETA ? (needs {MIN_PAIRS} pairs, not all alike)"
        cap = self.scheduled_games - self.committed
        if 2.0 * left >= cap:
            return f"ETA {clock(eta.seconds_for(cap))} (to the cap)"
        return f"ETA ~{clock(eta.seconds_for(2.0 * left))} (at the slowest plausible Elo)"


# ----------------------------------------------------------------------------- the run


@dataclass
class SprtRun:
    """What an SPRT gauntlet ended with."""

    gate: SprtGate
    summary: RunSummary | None  # None: the stored games had already decided the test
    level: float = 0.95

    def stopped(self) -> StoppedFigures:
        """The figures that account for the test's stopping rule (:mod:`harness.league.
        stopping`)."""
        t = self.gate.test
        return stopped_figures(t.counts, t.params, t.verdict, self.level)

    def as_dict(self) -> dict[str, Any]:
        g = self.gate
        data: dict[str, Any] = {
            "new": g.new, "old": g.old, "accepted": g.test.verdict,
            "verdict": verdict_text(self), **g.test.as_dict(self.level),
            "median_unbiased": self.stopped().as_dict(),
            "fixed_sample": FIXED_SAMPLE_NOTE,
            "incomplete_pairs": g.incomplete, "wins": g.wins, "draws": g.draws,
            "losses": g.losses, "void_games": g.void, "games": g.committed,
            "games_cap": g.scheduled_games,
            "note": spread_note(g.test.counts, g.new, g.old) or None,
            "played": self.summary.played if self.summary else 0,
            "interrupted": bool(self.summary and self.summary.interrupted),
        }
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in data.items()}


def verdict_text(run: SprtRun) -> str:
    g, p = run.gate, run.gate.test.params
    if g.test.verdict is not None:
        scale = "normalised Elo" if p.model == "normalized" else "Elo"  # the bounds' scale
        more, less = f"at least {scale} {p.elo1:g}", f"at most {scale} {p.elo0:g}"
        claim = f"{more} rather than {less}" if g.test.verdict == "H1" else \
            f"{less} rather than {more}"
        return (f"{g.test.verdict} accepted after {g.test.decided_after} pairs: {g.new} v "
                f"{g.old} is {claim}")
    if run.summary is not None and run.summary.interrupted:
        return "no verdict yet: interrupted; run the same command again to continue"
    return (f"no verdict: the cap of {g.scheduled_games} games was reached; raise --games "
            f"and run the same command again to continue")


def _signed(x: float) -> str:
    if math.isnan(x):
        return "n/a"
    return ("+inf" if x > 0 else "-inf") if math.isinf(x) else f"{round(x, 1) + 0.0:+.1f}"


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:.1f}%"


def spread_note(counts: Sequence[int], new: str, old: str) -> str:
    """Why the intervals and the LOS are n/a, and what to do, or "" when they are not: too few
    pairs, or every pair scored alike (no spread between pairs to measure).

    >>> spread_note((0, 0, 9, 0, 0), "new", "old")[:28]
    'note: all 9 pairs split 1–1:'
    >>> spread_note((0, 0, 0, 0, 9), "new", "old")[:33]
    'note: all 9 pairs went 2–0 to new'
    >>> spread_note((0, 1, 2, 1, 0), "new", "old")
    'note: fewer than 5 complete pairs: the intervals and the LOS need 5 (n/a until then)'
    >>> spread_note((1, 1, 2, 2, 1), "new", "old")
    ''
    """
    n = sum(counts)
    if n == 0:
        return ""
    if n < MIN_PAIRS:
        return (f"note: fewer than {MIN_PAIRS} complete pairs: the intervals and the LOS need "
                f"{MIN_PAIRS} (n/a until then)")
    alike = [k for k, c in enumerate(counts) if c]
    if len(alike) > 1:
        return ""
    if alike == [2]:
        return (f"note: all {n} pairs split 1–1: each deal was won by the same seat whichever "
                f"bot sat there, so the bots played alike (deterministic bots of one strategy "
                f"do; a bot's random seed goes with its seat), and with no spread between pairs "
                f"the intervals and the LOS are n/a. If the bots should differ, check that the "
                f"new one runs the changed code; to tell apart bots that differ only by chance, "
                f"let them draw randomness of their own rather than from rng_seed")
    who = new if alike == [4] else old
    return (f"note: all {n} pairs went 2–0 to {who} (each deal won from both seats): with no "
            f"spread between pairs the intervals and the LOS are n/a; the score says it all")


def report_lines(run: SprtRun) -> list[str]:
    """The verdict and its figures, one line each (see docs/statistics.md, "Is my bot
    better?"): first the figures that account for the test's stopping rule, then the
    fixed-sample ones, labelled; last, when a figure is n/a, why."""
    g, t = run.gate, run.gate.test
    p, s, m = t.params, t.summary(run.level), run.stopped()
    counts = ", ".join(f"{k}: {c}" for k, c in zip(("0", "½", "1", "1½", "2"), t.counts,
                                                   strict=True))
    level = f"{100 * run.level:g}%"
    return [
        f"SPRT {g.new} v {g.old}: elo0={p.elo0:g} elo1={p.elo1:g} alpha={p.alpha:g} "
        f"beta={p.beta:g}, {p.model} Elo",
        f"verdict: {verdict_text(run)}",
        f"LLR: {t.llr:+.3f} (accept H0 at {p.lower:+.3f}, H1 at {p.upper:+.3f})",
        f"pairs: {t.pairs} complete ({g.new}'s points {counts}), {g.incomplete} incomplete; "
        f"score {_pct(s.score)}",
        f"games: {g.committed} ({g.new} W {g.wins} D {g.draws} L {g.losses}, {g.void} void)",
        f"Elo, median-unbiased (accounts for the SPRT's stopping rule): {_signed(m.elo)} "
        f"({level}: {_signed(m.elo_low)} to {_signed(m.elo_high)}); normalised Elo "
        f"{_signed(m.nelo)} ({_signed(m.nelo_low)} to {_signed(m.nelo_high)})",
        f"LOS: {_pct(m.los)} (chance that {g.new} is the stronger, head to head in these pairs; "
        f"accounts for the stopping rule)",
        f"fixed-sample figures (as if the number of pairs had been fixed in advance: after an "
        f"early stop they lean away from 0 and the interval is too narrow): Elo {_signed(s.elo)} "
        f"({level}: {_signed(s.elo_low)} to {_signed(s.elo_high)}) from the pair variance; "
        f"normalised Elo {_signed(s.nelo)}; LOS {_pct(s.los)}",
        *filter(None, [spread_note(t.counts, g.new, g.old)]),
    ]


def _spec_text(params: SprtParams) -> str:
    return (f"elo0={params.elo0:g},elo1={params.elo1:g},alpha={params.alpha:g},"
            f"beta={params.beta:g},model={params.model}")


def fix_hypotheses(out: Path, params: SprtParams, has_games: bool) -> None:
    """Store the test's parameters with the folder when it starts, and refuse any other on a
    rerun: hypotheses chosen after seeing the games would let a rerun stop at whichever
    boundary the stored pairs happen to cross first (20 pairs scoring exactly 50 % became "H1
    accepted after 3 pairs" that way). A folder whose games were played without a stored test
    cannot start one either."""
    from harness.league.folder import write_json_atomic
    from harness.league.store import SPRT_FILE

    path = out / SPRT_FILE  # fixed when the test starts, as fishtest fixes a test's bounds
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            fixed = SprtParams(float(data["elo0"]), float(data["elo1"]), float(data["alpha"]),
                               float(data["beta"]), data["model"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SprtError(f"{path} cannot be read ({exc}); restore it from a backup, or run "
                            f"the SPRT in a new --out folder") from None
        if fixed != params:
            raise SprtError(f"{out} holds an SPRT started with --sprt {_spec_text(fixed)}; a "
                            f"test's hypotheses are fixed when it starts: rerun with --sprt "
                            f"{_spec_text(fixed)}, or test others in a new --out folder")
        return
    if has_games:
        raise SprtError(f"{out} already holds games of this pairing played without an SPRT; "
                        f"choosing a test after seeing them would bend its verdict: run the "
                        f"SPRT in a new --out folder")
    out.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, {"elo0": params.elo0, "elo1": params.elo1, "alpha": params.alpha,
                             "beta": params.beta, "model": params.model})


def rerun_command(league: League, params: SprtParams) -> str:
    c = league.config
    new, old = (league.config.bot(name) for name in c.schedule.get("bots", [])[:2])
    spec = _spec_text(params)
    bots = " ".join(shlex.quote(f"{b.name}={b.spec}") for b in (new, old) if b is not None)
    return (f"tourney gauntlet {c.game} {bots} --sprt {spec} --games {len(league.specs)} "
            f"--out {shlex.quote(str(league.out))}")


def check_one_pairing(league: League) -> tuple[str, str]:
    """The new and the old bot of a league that can run an SPRT; SprtError otherwise."""
    bots = [str(b) for b in league.config.schedule.get("bots", [])]
    if len(bots) != 2:
        raise SprtError(f"the SPRT tests one new bot against one old bot, not {len(bots)} bots "
                        f"({', '.join(bots)}); run tourney gauntlet GAME NEW OLD --sprt ...")
    return bots[0], bots[1]


def stored_points(out: Path, ids: set[str], new: str, old: str) -> dict[str, float | None]:
    """The new bot's points (None: void) in the games of ``ids`` stored in ``out``."""
    from harness.league import store

    if not (out / "games").is_dir():
        return {}
    table = store.load_games([out]).games.select(["game_id", "bots", "result", "rated"])
    return {r["game_id"]: points_of(r["bots"], r["result"], new, old) if r["rated"] else None
            for r in table.to_pylist() if r["game_id"] in ids}


def run_sprt(league: League, params: SprtParams, executor: Executor | None = None, *,
             workers: int | None = None, progress: bool = True, batch_size: int | None = None,
             level: float = 0.95) -> SprtRun:
    """Play ``league`` (one pairing) until the SPRT accepts a hypothesis or the schedule ends."""
    from harness.league.config import merge_configs
    from harness.league.folder import ResultsFolder

    new, old = check_one_pairing(league)
    earlier = ResultsFolder(league.out).stored_config()
    if earlier is not None:  # refuse another league before reading its games
        merge_configs(earlier, league.config, league.out)
    league.plan.resume_command = rerun_command(league, params)
    ids = {s.game_id for s in league.specs}
    stored = stored_points(league.out, ids, new, old)
    fix_hypotheses(league.out, params, bool(stored))
    gate = SprtGate(league.specs, new, old, params, stored)
    if gate.done or gate.committed == gate.scheduled_games:
        return SprtRun(gate, None, level)
    options: dict[str, Any] = {} if batch_size is None else {"batch_size": batch_size}
    summary = league.run(executor, workers=workers, progress=progress, gate=gate, **options)
    return SprtRun(gate, summary, level)

