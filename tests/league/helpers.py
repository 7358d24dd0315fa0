"""Fake records and specs for the league tests (no engine needed)."""

from __future__ import annotations

import time

from harness.records import BotRef, GameRecord, GameSpec, MoveRecord, Termination


def spec(game_id: str, names: tuple[str, ...] = ("a", "b"), seed: int = 1) -> GameSpec:
    return GameSpec(game_id, "battleline", {}, seed, tuple(BotRef(n, "random") for n in names),
                    pair_id="p" + game_id, league="test")


def record(
    game_id: str,
    seats: tuple[str, ...] = ("a", "b"),
    returns: tuple[float, ...] = (1.0, -1.0),
    termination: Termination = Termination.NORMAL,
    offender: int | None = None,
    moves: int = 3,
    teams: tuple[int, ...] = (),
) -> GameRecord:
    n = len(seats)
    best = max(returns)
    winners = [] if len(set(returns)) == 1 else [i for i, r in enumerate(returns) if r == best]
    return GameRecord(
        game_id=game_id, game="battleline", variant={"rules": "standard"}, rules_version="1",
        seed=7, seats=list(seats), returns=list(returns), scores=[float(i) for i in range(n)],
        winners=winners, termination=termination, reason="test", decisions=moves,
        duration=0.01, think_time=[0.001] * n,
        moves=[MoveRecord(i, i % n, f"act{i}", 0.0001) for i in range(moves)],
        pair_id="p" + game_id, league="test", offender=offender, finished_at=time.time(),
        teams=list(teams),
    )
