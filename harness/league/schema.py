"""The two Parquet tables of a results folder, and how records become their rows.

``games`` has one row per game (:data:`GAMES_SCHEMA`), ``moves`` one row per decision
(:data:`MOVES_SCHEMA`). A column added later (``teams``) is filled in when an older batch is
read, so a folder written by an older tourney stays readable.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from harness.league.config import StoreError
from harness.records import PACKED_FIELDS, GameRecord, PackedRecord, Termination

GAMES_SCHEMA = pa.schema(
    [
        ("league", pa.string()),
        ("game_id", pa.string()),
        ("pair_id", pa.string()),
        ("game", pa.string()),
        ("variant", pa.string()),  # canonical JSON, keys sorted
        ("rules_version", pa.string()),
        ("seed", pa.int64()),
        ("players", pa.int8()),
        ("bots", pa.list_(pa.string())),  # per seat
        # the single winning side's bot ("a+b" for a mixed team); null: first place shared
        # (a draw, or two free-for-all seats level at the top) or a void game
        ("winner", pa.string()),
        ("winner_seats", pa.list_(pa.int8())),  # the seats holding the best result
        ("draw", pa.bool_()),  # no single side first: a draw, or first place shared
        ("result", pa.list_(pa.float64())),  # per seat: 1 win, 0 draw, -1 loss; by rank with 3+
        ("score", pa.list_(pa.float64())),  # per seat game points (Battle Line series points)
        ("termination", pa.string()),
        ("reason", pa.string()),
        ("offender", pa.int8()),  # the seat that forfeited, null if none
        ("offender_bot", pa.string()),
        ("rated", pa.bool_()),  # false for a void game: the harness failed, no bot to blame
        ("decisions", pa.int32()),
        ("duration", pa.float64()),  # seconds
        ("think_time", pa.list_(pa.float64())),  # per seat, seconds
        ("finished_at", pa.timestamp("ms", tz="UTC")),
        ("teams", pa.list_(pa.int8())),  # per seat, as the game declares them; added in 0.1
    ]
)

MOVES_SCHEMA = pa.schema(
    [
        ("game_id", pa.string()),
        ("ply", pa.int32()),
        ("seat", pa.int8()),
        ("action", pa.string()),
        ("think_time", pa.float64()),
    ]
)


def variant_text(variant: dict[str, str]) -> str:
    """The canonical text of a variant, as stored in the ``variant`` column."""
    return json.dumps(variant, sort_keys=True, separators=(",", ":"))


# ----------------------------------------------------------------------------- records -> rows


Finished = GameRecord | PackedRecord  # what the store takes: a record, or a worker's packing


def _packed(records: Sequence[Finished]) -> list[PackedRecord]:
    return [r if isinstance(r, PackedRecord) else PackedRecord.of(r) for r in records]


_FIELD = {name: i for i, name in enumerate(PACKED_FIELDS)}


def _column(rows: list[tuple[Any, ...]], name: str) -> list[Any]:
    return [row[_FIELD[name]] for row in rows]


def games_table(records: Sequence[Finished]) -> pa.Table:
    """The games rows of ``records`` (one per game), in GAMES_SCHEMA."""
    packed = _packed(records)
    rows = [p.row for p in packed]
    seats, winners = _column(rows, "seats"), _column(rows, "winners")
    offender, termination = _column(rows, "offender"), _column(rows, "termination")
    void = [p.void for p in packed]
    texts: dict[tuple[tuple[str, str], ...], str] = {}
    variants = []
    for variant in _column(rows, "variant"):
        key = tuple(variant.items())
        if key not in texts:
            texts[key] = variant_text(variant)
        variants.append(texts[key])
    cols_game = _column(rows, "game")
    teams = [t or teams_of(game, len(s)) for t, game, s in
             zip(_column(rows, "teams"), cols_game, seats, strict=True)]
    winner = [_winner_of(s, w, t) for s, w, t in zip(seats, winners, teams, strict=True)]
    cols: dict[str, list[Any]] = {
        "league": _column(rows, "league"),
        "game_id": _column(rows, "game_id"),
        "pair_id": _column(rows, "pair_id"),
        "game": cols_game,
        "variant": variants,
        "rules_version": _column(rows, "rules_version"),
        "seed": _column(rows, "seed"),
        "players": [len(s) for s in seats],
        "bots": seats,
        "winner": winner,
        "winner_seats": winners,
        "draw": [w is None and not v for w, v in zip(winner, void, strict=True)],
        "result": _column(rows, "returns"),
        "score": _column(rows, "scores"),
        "termination": termination,
        "reason": _column(rows, "reason"),
        "offender": offender,
        "offender_bot": [s[o] if o is not None else None for s, o in zip(seats, offender,
                                                                         strict=True)],
        "rated": [not v for v in void],
        "decisions": _column(rows, "decisions"),
        "duration": _column(rows, "duration"),
        "think_time": _column(rows, "think_time"),
        "finished_at": [int(t * 1000) for t in _column(rows, "finished_at")],
        "teams": teams,
    }
    return pa.Table.from_pydict(cols, schema=GAMES_SCHEMA)


@functools.cache
def teams_of(game: str, players: int) -> list[int]:
    """The team of each seat in ``game`` with ``players``, as the game declares them (for
    records that do not carry their teams, and batches written before the column existed)."""
    from games import registry

    try:
        return list(registry.get(game).info.teams_of(players))
    except registry.UnknownGame:
        return list(range(players))


def with_teams(table: pa.Table) -> pa.Table:
    """A games table read from a batch written before the ``teams`` column existed, with it."""
    if "teams" in table.column_names:
        return table
    teams = [teams_of(game, players) for game, players in
             zip(table.column("game").to_pylist(), table.column("players").to_pylist(),
                 strict=True)]
    return table.append_column("teams", pa.array(teams, pa.list_(pa.int8())))


def _winner_of(seats: list[str], winners: list[int], teams: Sequence[int]) -> str | None:
    """The bots of the one side holding the best result; None when none does, or when that
    place is shared by several sides (two seats level at the top of a free-for-all)."""
    if len({teams[seat] for seat in winners}) != 1:
        return None
    names: list[str] = []
    for seat in winners:
        if seats[seat] not in names:
            names.append(seats[seat])
    return "+".join(names) if names else None


def moves_table(records: Sequence[Finished]) -> pa.Table:
    """The moves rows of ``records`` (one per decision), in MOVES_SCHEMA.

    Built from the records' packed move buffers (:data:`harness.records.MoveBuffers`) joined
    end to end, so no move passes through a Python object.
    """
    games: list[str] = []
    which: list[int] = []  # per move: the index of its game in ``games``
    plies: list[bytes] = []
    seats: list[bytes] = []
    lengths: list[bytes] = []
    texts: list[bytes] = []
    times: list[bytes] = []
    for i, p in enumerate(_packed(records)):
        ply, seat, length, text, think = p.moves
        games.append(p.row[0])
        which += [i] * len(seat)
        plies.append(ply)
        seats.append(seat)
        lengths.append(length)
        texts.append(text)
        times.append(think)
    n = len(which)
    ids = pa.array(games, pa.string()).take(pa.array(which, pa.int32()))
    ends = pc.cumulative_sum(_fixed(pa.int32(), n, lengths))
    offsets = b"\0\0\0\0" + (ends.buffers()[1].to_pybytes()[:4 * n] if n else b"")
    actions = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(b"".join(texts)))
    actions.validate(full=True)
    return pa.Table.from_arrays(
        [ids, _fixed(pa.int32(), n, plies), _fixed(pa.int8(), n, seats), actions,
         _fixed(pa.float64(), n, times)],
        schema=MOVES_SCHEMA,
    )


def _fixed(kind: pa.DataType, n: int, parts: list[bytes]) -> pa.Array:
    """An Arrow array of ``n`` fixed-width values from little-endian buffers joined."""
    data = b"".join(parts)
    if len(data) != n * kind.bit_width // 8:
        raise StoreError(f"packed moves hold {len(data)} bytes of {kind}, expected {n} values")
    return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(data)])


def record_from_row(row: dict[str, Any]) -> GameRecord:
    """Rebuild a GameRecord (without moves) from a games row; the inverse of games_table."""
    finished = row["finished_at"]
    return GameRecord(
        game_id=row["game_id"],
        game=row["game"],
        variant=json.loads(row["variant"]),
        rules_version=row["rules_version"],
        seed=row["seed"],
        seats=list(row["bots"]),
        returns=list(row["result"]),
        scores=list(row["score"]),
        winners=list(row["winner_seats"]),
        termination=Termination(row["termination"]),
        reason=row["reason"],
        decisions=row["decisions"],
        duration=row["duration"],
        think_time=list(row["think_time"]),
        pair_id=row["pair_id"],
        league=row["league"],
        offender=row["offender"],
        finished_at=finished.timestamp() if finished is not None else 0.0,
        teams=list(row.get("teams") or teams_of(row["game"], len(row["bots"]))),
    )
