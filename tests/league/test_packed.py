"""Workers send records packed flat; the store writes packed and full records identically."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.league import schema
from harness.match.referee import play_game
from harness.records import (
    BotRef,
    GameRecord,
    GameSpec,
    MoveRecord,
    PackedRecord,
    Termination,
    is_void,
    pack_moves,
    pack_record,
    unpack_moves,
    unpack_packed,
    unpack_record,
)
from harness.run.local import ProcessExecutor

SEATS = (BotRef("r1", "random"), BotRef("r2", "random"))


def _games(n: int) -> list[GameRecord]:
    return [play_game(GameSpec(f"g{i}", "battleline", {}, i, SEATS, pair_id=f"p{i // 2}",
                               league="L")) for i in range(n)]


def test_pack_and_unpack_round_trip_a_real_record() -> None:
    for record in _games(3):
        assert unpack_record(pack_record(record)) == record
        packed = unpack_packed(pack_record(record))
        assert packed.game_id == record.game_id and packed.seats == record.seats
        assert packed.returns == record.returns and packed.offender == record.offender
        assert packed.termination is record.termination
        assert packed.record() == record


def test_a_void_record_packs_with_its_termination_and_offender() -> None:
    record = dataclasses.replace(_games(1)[0], termination=Termination.TIMEOUT, offender=None,
                                 winners=[], returns=[0.0, 0.0], moves=[])
    packed = PackedRecord.of(record)
    assert is_void(packed) and is_void(record)
    assert packed.record() == record


def test_tables_from_packed_and_full_records_are_identical() -> None:
    records = _games(4)
    packed = [PackedRecord.of(r) for r in records]
    assert schema.games_table(packed).equals(schema.games_table(records))
    assert schema.moves_table(packed).equals(schema.moves_table(records))
    mixed: list[GameRecord | PackedRecord] = [records[0], packed[1], records[2], packed[3]]
    assert schema.moves_table(mixed).equals(schema.moves_table(records))
    moves = schema.moves_table(records).to_pylist()
    assert len(moves) == sum(len(r.moves) for r in records)
    assert moves[0] == {"game_id": "g0", "ply": 0, "seat": records[0].moves[0].seat,
                        "action": records[0].moves[0].action,
                        "think_time": records[0].moves[0].think_time}


def test_workers_fed_in_chunks_play_every_game_once_as_inline() -> None:
    specs = [GameSpec(f"g{i}", "battleline", {}, i, SEATS) for i in range(40)]
    with ProcessExecutor(2, prefetch=8) as ex:
        packed = {p.game_id: p for p in ex.run_packed(specs)}
    assert sorted(packed) == sorted(s.game_id for s in specs)
    for s in specs:
        mine, theirs = packed[s.game_id].record(), play_game(s)
        assert [m.action for m in mine.moves] == [m.action for m in theirs.moves]
        assert mine.returns == theirs.returns


def test_move_buffers_round_trip_any_text_and_empty_games() -> None:
    moves = [MoveRecord(0, 1, "plé 3", 0.5), MoveRecord(1, 0, "", 1e-9),
             MoveRecord(2, 3, "play y10 3", 0.25)]
    assert unpack_moves(pack_moves(moves)) == moves
    assert unpack_moves(pack_moves([])) == []
    record = dataclasses.replace(_games(1)[0], moves=moves)
    rows = schema.moves_table([record, dataclasses.replace(record, game_id="e", moves=[])])
    assert rows.column("action").to_pylist() == ["plé 3", "", "play y10 3"]
    assert rows.column("seat").to_pylist() == [1, 0, 3]


moves_strategy = st.lists(st.builds(
    MoveRecord, st.integers(0, 2**31 - 1), st.integers(0, 3), st.text(max_size=12),
    st.floats(0, 1e6, allow_nan=False)), max_size=20)


@settings(max_examples=60, deadline=None)
@given(moves_strategy)
def test_move_buffers_round_trip_any_moves(moves: list[MoveRecord]) -> None:
    assert unpack_moves(pack_moves(moves)) == moves


@settings(max_examples=40, deadline=None)
@given(moves_strategy, st.sampled_from(list(Termination)), st.one_of(st.none(), st.integers(0, 1)),
       st.text(max_size=30))
def test_a_packed_record_is_the_record(moves: list[MoveRecord], termination: Termination,
                                       offender: int | None, reason: str) -> None:
    record = dataclasses.replace(_games(1)[0], moves=moves, termination=termination,
                                 offender=offender, reason=reason)
    assert unpack_record(pack_record(record)) == record
    packed = PackedRecord.of(record)
    assert packed.record() == record and packed.void == is_void(record)
