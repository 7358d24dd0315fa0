"""harness.api: the Python API of docs/api.md gives what the command line gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import api
from harness.figures.verdicts import ratings_text
from harness.records import TourneyError


def test_play_is_the_referee_on_the_seed_it_reports() -> None:
    first = api.play("battleline", ["greedy", "random"], seed=11)
    again = api.play("bl", ["greedy", "random"], seed=11)
    assert first.seed == again.seed == 11
    assert [m.action for m in first.moves] == [m.action for m in again.moves]
    assert first.seats == ["greedy", "random"] and sorted(first.returns) == [-1.0, 1.0]
    other = api.play("battleline", ["greedy", "random"])
    assert 0 <= other.seed < 2 ** 62 and other.seed != 11


def test_play_takes_variants_and_names_a_second_copy_of_a_bot() -> None:
    record = api.play("battleline", ["random", "random", "greedy"], variant={"players": 3},
                      seed=3)
    assert record.seats == ["random", "random#1", "greedy"]
    assert record.variant["players"] == "3" and len(record.returns) == 3


def test_play_refuses_what_cannot_be_played_with_a_tourney_error() -> None:
    with pytest.raises(api.ApiError, match="needs 2 bots, got 1"):
        api.play("battleline", ["greedy"], seed=1)
    with pytest.raises(TourneyError, match="nogame"):
        api.play("nogame", ["greedy", "random"], seed=1)
    with pytest.raises(TourneyError):
        api.play("schotten-totten", ["greedy", "random", "random"], variant={"players": 3},
                 seed=1)
    assert issubclass(api.ApiError, TourneyError)


def test_a_league_and_its_ratings_are_the_commands(tmp_path: Path) -> None:
    out = tmp_path / "nb"
    summary = api.league("battleline", ["random", "greedy", "weak=greedy:p=0.5"], out,
                         games=4, seed=2, workers=0)
    assert (summary.scheduled, summary.played, summary.stored) == (12, 12, 12)
    assert api.league("battleline", ["random", "greedy", "weak=greedy:p=0.5"], out,
                      games=4, seed=2, workers=0).played == 0
    table = api.ratings(out, anchor="greedy")
    cli = json.loads(ratings_text([out], fmt="json", anchor="greedy")[0])
    assert list(table) == cli["leaderboard"]
    assert table.columns[:4] == ("rank", "bot", "elo", "elo_low")
    assert table.row("greedy")["elo"] == 0 and table.column("rank") == [1, 2, 3]
    assert table.notes == cli["notes"]
    pairs = api.pairs(out)
    assert list(pairs) == cli["pairs"] and len(pairs) == 3
    gauntlet = api.league("battleline", ["greedy", "random", "weak=greedy:p=0.5"],
                          tmp_path / "g", games=2, seed=2, workers=0, gauntlet=True)
    assert gauntlet.stored == 4  # the challenger against each of two opponents


def test_ratings_of_nothing_say_so() -> None:
    with pytest.raises(api.ApiError, match="at least one results folder"):
        api.ratings()


def test_a_table_prints_aligned_and_as_html() -> None:
    table = api.Table([{"bot": "a<b", "elo": -0.0, "pool": None}, {"bot": "c", "elo": 12.5}],
                      notes=["a note"])
    assert str(table).splitlines() == ["bot  elo   pool", "a<b  0", "c    12.5", "note: a note"]
    assert "<td>a&lt;b</td>" in table._repr_html_() and "<p>note: a note</p>" in \
        table._repr_html_()
    assert table[1] == {"bot": "c", "elo": 12.5} and table[:1] == [table[0]] and len(table) == 2
    assert table.column("pool") == [None, None]
    with pytest.raises(KeyError, match="no column 'mu'"):
        table.column("mu")
    with pytest.raises(KeyError, match="no row for bot 'z'"):
        table.row("z")
    assert repr(table) == "Table(2 rows: bot, elo, pool)"
