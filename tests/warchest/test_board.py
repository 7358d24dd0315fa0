"""Hex geometry: board sizes, locations, symmetry, names, lines."""

from __future__ import annotations

from games.warchest.board import (
    BOARD2,
    BOARD4,
    DIRECTIONS,
    hex_distance,
    hex_name,
    parse_hex_name,
)


def test_board_sizes_and_locations() -> None:
    assert BOARD2.size == 37
    assert BOARD4.size == 47
    assert len(BOARD2.locations) == 10
    assert len(BOARD4.locations) == 14
    assert all(hex_distance(h, (0, 0)) <= 3 for h in BOARD2.coords)
    # the inner 37 hexes keep their numbers on the 4-player board
    assert BOARD4.coords[:37] == BOARD2.coords


def test_start_and_neutral_locations_by_name() -> None:
    def names(board: object, hexes: tuple[int, ...]) -> set[str]:
        return {BOARD4.name[h] for h in hexes}

    assert {BOARD2.name[h] for h in BOARD2.start[0]} == {"e2", "h1"}
    assert {BOARD2.name[h] for h in BOARD2.start[1]} == {"d7", "g6"}
    assert names(BOARD4, BOARD4.start[0]) == {"e2", "h1", "b5"}
    assert names(BOARD4, BOARD4.start[1]) == {"d7", "g6", "j3"}
    neutral = names(BOARD4, BOARD4.locations) - names(BOARD4, BOARD4.start[0] + BOARD4.start[1])
    assert neutral == {"d4", "g3", "i2", "c6", "e5", "h4", "a7", "k1"}


def test_half_turn_symmetry_swaps_factions() -> None:
    for board in (BOARD2, BOARD4):
        coords = set(board.coords)
        assert {(-q, -r) for q, r in coords} == coords
        locs = {board.coords[h] for h in board.locations}
        assert {(-q, -r) for q, r in locs} == locs
        a = {board.coords[h] for h in board.start[0]}
        b = {board.coords[h] for h in board.start[1]}
        assert {(-q, -r) for q, r in a} == b


def test_neighbours_distance_and_lines() -> None:
    centre = BOARD2.by_name["f4"]
    assert sorted(BOARD2.name[h] for h in BOARD2.neighbours[centre]) == [
        "e4", "e5", "f3", "f5", "g3", "g4"]
    corner = BOARD2.index[(3, -3)]
    assert len(BOARD2.neighbours[corner]) == 3
    for a in range(BOARD2.size):
        for b in BOARD2.neighbours[a]:
            assert BOARD2.dist[a][b] == 1
        assert len(BOARD2.ring2[a]) <= 12
    assert len(BOARD2.ring2[centre]) == 12
    # a straight line: two steps the same way from f4 along (0, 1)
    d = DIRECTIONS.index((0, 1))
    assert BOARD2.name[BOARD2.step[d][BOARD2.step[d][centre]]] == "f6"
    assert BOARD2.step[d][BOARD2.by_name["f7"]] == -1


def test_hex_names_round_trip() -> None:
    for board in (BOARD2, BOARD4):
        for h in board.coords:
            assert parse_hex_name(hex_name(h)) == h
    assert len(set(BOARD4.name)) == 47
    assert hex_name((0, 0)) == "f4"
    assert parse_hex_name("z9") is None
