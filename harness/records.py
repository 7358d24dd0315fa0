"""The shared kernel: what to play and what happened.

The data that flows between schedule, referee, executors and the results store: plain
dataclasses of JSON-friendly values, so they pickle cheaply to worker processes and Dask
workers; the packed form of a finished game that workers send and the store writes; the two
judgements every layer shares (:attr:`Termination.is_forfeit`, :func:`is_void`); and
:class:`TourneyError`, the base of every error a user can fix. Every other module of the
harness may import this one; it imports nothing of ours.
"""

from __future__ import annotations

import array
import dataclasses
import enum
import operator
import pickle
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

DISTRIBUTION = "tourney-harness"
"""The distribution's name on the package index (``tourney`` there is another project); the
command and the import packages keep their names."""


def tourney_version() -> str:
    """The installed tourney's version (written into every league.json, shown by --version)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


class TourneyError(Exception):
    """A problem the user can fix: the command line prints ``tourney: error: <message>`` and
    exits with :attr:`exit_code` (2: bad input or usage). Every layer's own errors derive from
    it, so the CLI maps them to an exit status in one place."""

    exit_code = 2


class Termination(enum.Enum):
    """How a game ended, as judged by the referee."""

    NORMAL = "normal"  # won by the rules
    STALEMATE = "stalemate"  # the rules' own draw
    MOVE_CAP = "move_cap"  # decision cap reached: draw by adjudication
    ILLEGAL = "illegal"  # a bot answered an illegal or malformed action: it loses
    TIMEOUT = "timeout"  # a bot ran past its deadline (killed): it loses
    CRASH = "crash"  # a bot's process died or its code raised: it loses
    PROTOCOL = "protocol_error"  # a bot broke the wire protocol (garbage, wrong type): it loses
    RESIGNED = "resigned"  # a person at the human seat gave up: they lose (no bot failed)

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
class LimitOption:
    """One limit a user may set: its one description. The options of every command that takes
    limits (``--move-time``), a bot's own limits (``SPEC@move-time=0.5``), the checks, the unit
    conversions and the help texts are all made from :data:`LIMIT_OPTIONS`."""

    field: str  # the field of Limits it sets
    word: str  # ``--WORD VALUE`` on the command line, ``WORD=VALUE`` after a bot's ``@``
    unit: str  # what VALUE counts, shown as the option's metavar: SECONDS, MB
    number: type[float] | type[int]  # how VALUE is read
    minimum: float  # the smallest VALUE allowed
    help: str  # one sentence; the default is added where it is shown
    scale: int = 1  # the Limits field holds VALUE * scale (MB -> bytes)

    @property
    def name(self) -> str:
        """The Python name of the option (``move_time``, ``memory_mb``)."""
        return self.word.replace("-", "_")

    @property
    def default(self) -> float | int:
        """The default, in the option's unit."""
        return self.from_field(getattr(Limits(), self.field))

    @property
    def wanted(self) -> str:
        """What a valid value is, for error messages (``at least 16 MB``)."""
        unit = "seconds" if self.unit == "SECONDS" else self.unit
        return f"at least {self.minimum:g} {unit}"

    def to_field(self, value: float) -> float | int:
        """A value in the option's unit -> the Limits field's (512 MB -> bytes)."""
        return value * self.scale if self.scale != 1 else value

    def from_field(self, value: float) -> float | int:
        """The Limits field's value -> the option's unit (bytes -> MB)."""
        return int(value) // self.scale if self.scale != 1 else value

    def check(self, value: float) -> bool:
        """Whether ``value`` (in the option's unit) is allowed."""
        return value >= self.minimum


LIMIT_OPTIONS: tuple[LimitOption, ...] = (
    LimitOption("move_time", "move-time", "SECONDS", float, 0.001,
                "Seconds per decision for sandboxed bots."),
    LimitOption("overage", "overage", "SECONDS", float, 0,
                "Extra seconds per game a bot may draw on when a decision runs over."),
    LimitOption("startup_time", "startup-time", "SECONDS", float, 0.001,
                "Seconds to launch, import and answer start."),
    LimitOption("memory_bytes", "memory-mb", "MB", int, 16,
                "Memory of a bot and all its processes, in MB.", scale=1 << 20),
    LimitOption("cpu_seconds", "cpu-seconds", "SECONDS", int, 1,
                "CPU time of a bot and all its processes, in seconds."),
)
"""The limits a user may set, in the order commands list them (see :class:`LimitOption`)."""


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
    # per seat, when some bot of the league has limits of its own (``name=spec@move-time=...``)
    seat_limits: tuple[Limits, ...] = ()

    def limits_of(self, seat: int) -> Limits:
        """The limits the bot in ``seat`` plays under."""
        return self.seat_limits[seat] if self.seat_limits else self.limits


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
    teams: list[int] = field(default_factory=list)  # per seat, as the game declares its teams

    def result_line(self) -> str:
        """One line: who won and why the game ended (``tourney play``, the human seat)."""
        how = self.termination.value.replace("_", " ")
        if self.offender is not None and self.termination is Termination.RESIGNED:
            return f"seat {self.offender} ({self.seats[self.offender]}) resigns"
        if self.offender is not None:
            return (f"seat {self.offender} ({self.seats[self.offender]}) forfeits: {how}; "
                    f"{self.reason}")
        if not self.winners:
            return f"draw ({how}): {self.reason}"
        who = " and ".join(f"seat {s} ({self.seats[s]})" for s in self.winners)
        return f"{who} {'win' if len(self.winners) > 1 else 'wins'} ({how}): {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["termination"] = self.termination.value
        return d


def is_void(record: GameRecord | PackedRecord) -> bool:
    """A game the harness could not finish: a forfeit with no seat to blame (a worker died, the
    watchdog stopped it). Stored, never rated."""
    return record.offender is None and record.termination.is_forfeit


# ----------------------------------------------------------------------------- packed records
#
# What worker processes send and the results store writes: a record's fields as one flat tuple
# and its moves as Arrow-ready buffers. Every executor yields records in this format or as
# GameRecords; both go to the store as they are.


MoveBuffers = tuple[bytes, bytes, bytes, bytes, bytes]
"""A game's moves as little-endian, Arrow-ready buffers: ply (int32), seat (int8), the length of
each action in UTF-8 bytes (int32), the actions' UTF-8 text back to back, think time (float64)."""

_LITTLE_ENDIAN = sys.byteorder == "little"
assert array.array("i").itemsize == 4 and array.array("d").itemsize == 8


def _buffer(typecode: str, values: Iterable[Any]) -> bytes:
    data = array.array(typecode, values)
    if not _LITTLE_ENDIAN:
        data.byteswap()
    return data.tobytes()


def _values(typecode: str, buffer: bytes) -> list[Any]:
    data = array.array(typecode)
    data.frombytes(buffer)
    if not _LITTLE_ENDIAN:
        data.byteswap()
    return data.tolist()


def pack_moves(moves: Sequence[MoveRecord]) -> MoveBuffers:
    """``moves`` as :data:`MoveBuffers`."""
    actions = [m.action for m in moves]
    text = "".join(actions).encode()
    lengths = [len(a) for a in actions]  # characters are bytes while the text is ASCII
    if len(text) != sum(lengths):
        lengths = [len(a.encode()) for a in actions]
    return (_buffer("i", [m.ply for m in moves]), _buffer("b", [m.seat for m in moves]),
            _buffer("i", lengths), text, _buffer("d", [m.think_time for m in moves]))


def unpack_moves(buffers: MoveBuffers) -> list[MoveRecord]:
    """The inverse of :func:`pack_moves`."""
    plies, seats = _values("i", buffers[0]), _values("b", buffers[1])
    text, actions, at = buffers[3], [], 0
    for length in _values("i", buffers[2]):
        actions.append(text[at:at + length].decode())
        at += length
    return list(map(MoveRecord, plies, seats, actions, _values("d", buffers[4])))


PACKED_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(GameRecord)
                                     if f.name != "moves")
_ROW_OF = operator.attrgetter(*PACKED_FIELDS)
_TERMINATION = PACKED_FIELDS.index("termination")
_OFFENDER = PACKED_FIELDS.index("offender")
_FIELD_INDEX = {name: i for i, name in enumerate(PACKED_FIELDS)}
_TERMINATIONS = {t.value: t for t in Termination}
_FORFEITS = frozenset(t.value for t in Termination if t.is_forfeit)


class PackedRecord:
    """A finished game in flat form: the record's fields as one tuple of plain values (the
    termination as its string) and its moves as :data:`MoveBuffers`.

    This is what workers send: it pickles and unpickles many times faster than a
    :class:`GameRecord` with :class:`MoveRecord` objects, and the results store makes Arrow
    columns of a batch's move buffers without touching a move in Python. :meth:`record` gives
    the full :class:`GameRecord` back.
    """

    __slots__ = ("game_id", "moves", "row")

    def __init__(self, row: tuple[Any, ...], moves: MoveBuffers) -> None:
        if len(row) != len(PACKED_FIELDS) or len(moves) != 5:
            raise TypeError(f"not a packed record: {len(row)} fields, {len(moves)} buffers")
        self.row = row
        self.moves = moves
        self.game_id: str = row[0]

    @classmethod
    def of(cls, record: GameRecord) -> PackedRecord:
        """Pack ``record``."""
        row = _ROW_OF(record)
        row = (*row[:_TERMINATION], record.termination.value, *row[_TERMINATION + 1:])
        return cls(row, pack_moves(record.moves))

    def field(self, name: str) -> Any:
        """One field of the record by name (the termination as its string value)."""
        return self.row[_FIELD_INDEX[name]]

    @property
    def seats(self) -> list[str]:
        return list(self.field("seats"))

    @property
    def returns(self) -> list[float]:
        return list(self.field("returns"))

    @property
    def teams(self) -> list[int]:
        return list(self.field("teams"))

    @property
    def offender(self) -> int | None:
        offender: int | None = self.row[_OFFENDER]
        return offender

    @property
    def termination(self) -> Termination:
        return _TERMINATIONS[self.row[_TERMINATION]]

    def think_times(self) -> list[float]:
        """Each move's think time, in seconds (the fifth of the move buffers)."""
        return _values("d", self.moves[4])

    @property
    def void(self) -> bool:
        """:func:`is_void`, read from the flat row without building the termination."""
        return self.row[_OFFENDER] is None and self.row[_TERMINATION] in _FORFEITS

    def record(self) -> GameRecord:
        """The full :class:`GameRecord`."""
        values = dict(zip(PACKED_FIELDS, self.row, strict=True))
        values["termination"] = _TERMINATIONS[values["termination"]]
        return GameRecord(**values, moves=unpack_moves(self.moves))


assert PACKED_FIELDS[0] == "game_id"


def pack_record(record: GameRecord) -> bytes:
    """A record as compact bytes (a :class:`PackedRecord`'s tuple and columns, pickled)."""
    packed = PackedRecord.of(record)
    return pickle.dumps((packed.row, packed.moves), pickle.HIGHEST_PROTOCOL)


def unpack_packed(data: bytes) -> PackedRecord:
    """The :class:`PackedRecord` in bytes from :func:`pack_record`."""
    value = pickle.loads(data)
    if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple)):
        raise TypeError(f"a worker sent {type(value).__name__}, not a packed record")
    return PackedRecord(value[0], value[1])


def unpack_record(data: bytes) -> GameRecord:
    """The inverse of :func:`pack_record`."""
    return unpack_packed(data).record()
