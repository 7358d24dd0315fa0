"""``tourney arena final``: a Swiss or knockout stage over the living league's top bots, for a
deadline, played and stored like any league (duplicate pairs, secret deals, exactly once).

The stage lives in its own results folder (default ``ARENA/final``) with ``stage.json``: the
format, the seeds (the arena's standings when the stage began: later arena games do not reseed
it) and every meeting scheduled so far. Each meeting is written there before its games are
played, with the deal indices of its pairing, so a stage stopped at any point (Ctrl-C, kill -9)
continues with the same pairings and deals; the pairing logic is :mod:`harness.arena.final`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.arena.final import Knockout, Meeting, Pairing, Standing, Swiss
from harness.arena.registry import ArenaError, Registry
from harness.league.config import GameChoice, LeagueConfig, StoreError
from harness.league.folder import ResultsFolder, load_config
from harness.records import BotRef, GameSpec
from harness.stats import outcome

if TYPE_CHECKING:
    from harness.run.base import Executor

STAGE_FILE = "stage.json"
FORMATS = ("swiss", "knockout")


@dataclass
class Stage:
    format: str
    seeds: list[str]  # rated bot names (ENTRANT.vN), best first
    rounds: int  # Swiss rounds (knockout: 0)
    pairs: int  # duplicate pairs a meeting
    meetings: list[dict[str, Any]] = field(default_factory=list)  # scheduled, in order

    def plan(self) -> Swiss | Knockout:
        if self.format == "swiss":
            return Swiss(self.seeds, self.rounds)
        return Knockout(self.seeds)

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "seeds": self.seeds, "rounds": self.rounds,
                "pairs": self.pairs, "meetings": self.meetings}


def _load(out: Path) -> Stage | None:
    path = out / STAGE_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
        return Stage(str(data["format"]), list(data["seeds"]), int(data["rounds"]),
                     int(data["pairs"]), list(data["meetings"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ArenaError(f"{path} is damaged ({exc}); restore it from a backup") from None


def _save(out: Path, stage: Stage) -> None:
    from harness.league.folder import write_json_atomic

    write_json_atomic(out / STAGE_FILE, stage.to_json())


def prepare(arena: Path, out: Path, *, fmt: str, top: int, rounds: int | None,
            pairs: int) -> tuple[Stage, LeagueConfig, dict[str, BotRef]]:
    """The stage in ``out`` (a new one seeded from the arena's standings, or the stored one)."""
    from harness.arena import living, standings
    from harness.league.store import ResultsStore

    arena_config = living.load_arena(arena)
    with Registry.open(arena) as registry:
        refs = {v.bot: BotRef(v.bot, v.spec, v.sha256) for v in registry.versions()}
        stage = _load(out)
        if stage is None:
            if fmt not in FORMATS:
                raise ArenaError(f"unknown format {fmt!r}; choose swiss or knockout")
            if pairs < 1:
                raise ArenaError(f"--pairs must be at least 1 (got {pairs})")
            rows = [r for r in standings.standings(arena, registry)
                    if r.status == "active" and r.rating is not None]
            if top < 2 or len(rows) < 2:
                raise ArenaError(f"a final needs two or more rated active bots (--top {top}; "
                                 f"{len(rows)} rated active in {arena})")
            seeds = [r.bot for r in rows[:top]]
            count = rounds if rounds is not None else max(1, (len(seeds) - 1).bit_length())
            stage = Stage(fmt, seeds, count if fmt == "swiss" else 0, pairs)
            try:
                stage.plan()
            except ValueError as exc:
                raise ArenaError(f"{exc}") from None
    folder = ResultsFolder(out)
    if folder.holds_league():
        try:
            config = load_config(out)
        except StoreError as exc:
            raise ArenaError(str(exc)) from None
    else:
        if out.exists() and any(out.iterdir()):
            raise ArenaError(f"{out} is not empty and holds no final; choose another --out")
        game = GameChoice(arena_config.game, arena_config.variant,
                          arena_config.rules_version, arena_config.players)
        config = folder.new_config(
            game, name=f"{arena_config.name}-final", kind=f"final-{stage.format}",
            games_per_pair=2 * pairs, bots=[refs[s] for s in stage.seeds],
            limits=arena_config.limits, isolation=arena_config.isolation,
            bot_limits=arena_config.bot_limits)
        try:
            ResultsStore.open(out, config).close()
        except StoreError as exc:
            raise ArenaError(str(exc)) from None
        _save(out, stage)
    return stage, config, refs


def _specs(config: LeagueConfig, refs: dict[str, BotRef], meeting: dict[str, Any]
           ) -> list[GameSpec]:
    from harness.league import schedule

    out: list[GameSpec] = []
    for deal in meeting["deals"]:
        out.extend(schedule.deal_set(config.game, config.variant, refs[meeting["a"]],
                                     refs[meeting["b"]], deal, players=config.players,
                                     league=config.name, limits=config.limits,
                                     key=config.key_bytes))
    return out


def _meetings(config: LeagueConfig, refs: dict[str, BotRef], stage: Stage,
              results: dict[str, tuple[list[str], list[float]]]) -> list[Meeting]:
    """The scheduled meetings whose games are all stored, as the pairing logic takes them."""
    done = []
    for m in stage.meetings:
        specs = _specs(config, refs, m)
        if not all(s.game_id in results for s in specs):
            continue
        points = games = 0.0
        for s in specs:
            seats, returns = results[s.game_id]
            mine = [r for n, r in zip(seats, returns, strict=True) if n == m["a"]]
            theirs = [r for n, r in zip(seats, returns, strict=True) if n != m["a"]]
            if not mine or not theirs:
                continue  # a void game counts for neither
            games += 1
            points += outcome.points(mine[0], theirs[0])
        if games:
            done.append(Meeting(m["round"], m["a"], m["b"], points, int(games)))
    return done


def _stored(out: Path) -> dict[str, tuple[list[str], list[float]]]:
    from harness.league import store

    loaded = store.load_games([out]).games
    if loaded.num_rows == 0:
        return {}
    rows = loaded.select(["game_id", "bots", "result", "rated"]).to_pylist()
    return {r["game_id"]: (r["bots"], r["result"]) for r in rows if r["rated"]}


def play(arena: Path, out: Path, executor: Executor, *, fmt: str = "swiss", top: int = 8,
         rounds: int | None = None, pairs: int = 1,
         say: Callable[[str], None] = lambda line: print(line, file=sys.stderr)
         ) -> list[Standing]:
    """Play the stage in ``out`` to its end (or on from where it stopped); its standings."""
    from harness.league.service import records_of
    from harness.league.store import ResultsStore

    stage, config, refs = prepare(arena, out, fmt=fmt, top=top, rounds=rounds, pairs=pairs)
    plan = stage.plan()
    try:
        st = ResultsStore.open(out, config)
    except StoreError as exc:
        raise ArenaError(str(exc)) from None
    try:
        while True:
            results = _stored(out)  # every round is flushed before the next is paired
            meetings = _meetings(config, refs, stage, results)
            try:
                todo: list[Pairing] = plan.next_pairings(meetings)
            except ValueError as exc:
                raise ArenaError(f"{out / STAGE_FILE} does not match the games stored: "
                                 f"{exc}") from None
            if not todo:
                break
            specs: list[GameSpec] = []
            for p in todo:
                m = _scheduled(stage, p)
                specs.extend(s for s in _specs(config, refs, m) if s.game_id not in st.finished)
            _save(out, stage)
            say(f"round {todo[0].round}: " + ", ".join(
                f"{p.a} v {p.b}" + (f" (tie-break {p.tiebreak})" if p.tiebreak else "")
                for p in todo))
            for record in records_of(executor, specs):
                st.add(record)
            st.flush()
    finally:
        st.close()
        executor.close()
    return plan.standings(_meetings(config, refs, stage, _stored(out)))


def _scheduled(stage: Stage, p: Pairing) -> dict[str, Any]:
    """The stored meeting of pairing ``p``, scheduled now (with its next deals) if new."""
    for m in stage.meetings:
        if (m["round"], m.get("tiebreak", 0)) == (p.round, p.tiebreak) and \
                {m["a"], m["b"]} == {p.a, p.b}:
            return m
    used = sum(len(m["deals"]) for m in stage.meetings if {m["a"], m["b"]} == {p.a, p.b})
    m = {"round": p.round, "tiebreak": p.tiebreak, "a": p.a, "b": p.b,
         "deals": list(range(used, used + stage.pairs))}
    stage.meetings.append(m)
    return m


def render(rows: list[Standing], fmt: str) -> str:
    """The stage's standings as a table."""
    tie = "Buchholz" if fmt == "swiss" else "round"
    head = ["#", "bot", "seed", "match pts", "game pts", "games", tie]
    cells = [[str(r.rank), r.name, str(r.seed), f"{r.match_points:g}", f"{r.game_points:g}",
              str(r.games), f"{r.tiebreak:g}"] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    lines = ["  ".join(v.rjust(w) if i != 1 else v.ljust(w)
                       for i, (v, w) in enumerate(zip(row, widths, strict=True))).rstrip()
             for row in [head, ["-" * w for w in widths], *cells]]
    return "\n".join(lines)


@dataclass
class Progress:
    """Where a stage stands: its plan, the meetings played (every game stored) and the table
    they make so far (the final table once the plan has no more pairings)."""

    stage: Stage
    played: list[Meeting]
    standings: list[Standing]
    games: int  # rated games stored
    finished: bool
    tiebreaks: list[int] = field(default_factory=list)  # each played meeting's (0: none)


def progress(arena: Path, out: Path) -> Progress | None:
    """The stage in ``out`` as it stands (None: no stage was begun there). Reads the stage and
    its stored games; schedules and plays nothing."""
    stage = _load(out)
    if stage is None or not ResultsFolder(out).holds_league():
        return None
    try:
        config = load_config(out)
    except StoreError as exc:
        raise ArenaError(str(exc)) from None
    with Registry.open(arena) as registry:
        refs = {v.bot: BotRef(v.bot, v.spec, v.sha256) for v in registry.versions()}
    results = _stored(out)
    played, tiebreaks = [], []
    for m in stage.meetings:  # one at a time, to keep each one's tie-break number
        for done in _meetings(config, refs, replace(stage, meetings=[m]), results):
            played.append(done)
            tiebreaks.append(int(m.get("tiebreak", 0)))
    plan = stage.plan()
    try:
        finished = not plan.next_pairings(played)
    except ValueError:
        finished = False
    return Progress(stage, played, plan.standings(played), len(results), finished, tiebreaks)
