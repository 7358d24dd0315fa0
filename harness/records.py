"""What to play and what happened: the data that flows between schedule, referee, executors and
the results store. Plain dataclasses of JSON-friendly values so they pickle cheaply to worker
processes and Dask workers.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any


class Termination(enum.Enum):
    """How a game ended, as judged by the referee."""

    NORMAL = "normal"  # won by the rules
    STALEMATE = "stalemate"  # the rules' own draw
    MOVE_CAP = "move_cap"  # decision cap reached: draw by adjudication
    ILLEGAL = "illegal"  # a bot answered an illegal or malformed action: it loses
    TIMEOUT = "timeout"  # a bot ran past its deadline (killed): it loses
    CRASH = "crash"  # a bot's process died or its code raised: it loses
    PROTOCOL = "protocol_error"  # a bot broke the wire protocol (garbage, wrong type): it loses

    @property
    def is_forfeit(self) -> bool:
        return self in (Termination.ILLEGAL, Termination.TIMEOUT, Termination.CRASH,
                        Termination.PROTOCOL)


@dataclass(frozen=True)
class Limits:
    """Time and resource limits for sandboxed bots (seconds, bytes)."""

    move_time: float = 1.0  # per decision
    overage: float = 10.0  # bank per game, drawn on when a decision runs over move_time
    startup_time: float = 10.0  # process start + import + start(info)
    memory_bytes: int = 1 << 30  # memory of a bot and all its processes (and per process)
    cpu_seconds: int = 600  # CPU time of a bot and all its processes (and per process)
    log_bytes: int = 64 * 1024  # a bot's own output kept in its log, per game
    max_processes: int = 64  # processes and threads a bot may have at once
    scratch_bytes: int = 64 << 20  # size of a bot's private writable /tmp


@dataclass(frozen=True)
class BotRef:
    """A bot as the league knows it: its display name, its spec and the hash of its code."""

    name: str  # unique display name in the league, e.g. "greedy" or "mybot"
    spec: str  # loader spec: path, path:Class, built-in name or cmd:...
    sha256: str = ""  # content hash of the bot's file(s); empty for external commands


@dataclass(frozen=True)
class GameSpec:
    """One game to play: everything needed, nothing that depends on who runs it."""

    game_id: str  # stable id derived from the league seed, pairing and index
    game: str  # registry name
    variant: dict[str, str]
    seed: int  # deal seed
    seats: tuple[BotRef, ...]  # seat i is played by seats[i]
    pair_id: str = ""  # the duplicate pair: same deal, seats swapped
    league: str = ""
    limits: Limits = field(default_factory=Limits)


@dataclass
class MoveRecord:
    ply: int
    seat: int
    action: str
    think_time: float  # seconds, wall clock as the referee measured it


@dataclass
class GameRecord:
    """What happened in one game."""

    game_id: str
    game: str
    variant: dict[str, str]
    rules_version: str
    seed: int
    seats: list[str]  # bot names per seat
    returns: list[float]  # per seat: 1 win, -1 loss, 0 draw
    scores: list[float]  # per seat game points (Battle Line series points)
    winners: list[int]  # winning seats (both members of a team); empty on a draw
    termination: Termination
    reason: str
    decisions: int
    duration: float  # seconds
    think_time: list[float]  # per seat, seconds
    moves: list[MoveRecord] = field(default_factory=list)
    pair_id: str = ""
    league: str = ""
    offender: int | None = None  # the seat that forfeited, if any
    finished_at: float = 0.0  # unix time
    logs: list[str] = field(default_factory=list)  # per seat: the bot's captured output (tail)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["termination"] = self.termination.value
        return d
