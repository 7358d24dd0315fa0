"""`tourney report`, `tourney replay --html` and `league --report` without a browser: bad input,
atomic files, the replay frames against the engine, the choice of replays."""

from __future__ import annotations

import base64
import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from games import registry
from harness.cli.app import app
from harness.cli.report import LeagueReport
from harness.figures.report import pick_replays, write_report
from harness.figures.report.frames import json_diff, json_patch, replay_frames
from harness.figures.report.render import unpack
from harness.league import store
from tests.report.leagues import page_replays, with_elo

runner = CliRunner()


def tourney(*args: str | Path) -> Any:
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lg") / "bl"
    result = tourney("league", "bl", "random", "greedy", "--games", "4", "--out", folder,
                     "--workers", "0", "-q")
    assert result.exit_code == 0, result.output
    return folder


def page_data(path: Path, element: str = "report-data") -> Any:
    """The data a page carries (packed JSON in its data element)."""
    html = path.read_text()
    head = f'<script type="application/octet-stream" id="{element}">'
    start = html.index(head) + len(head)
    return unpack(html[start:html.index("</script>", start)])


def one_error_line(result: Any) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tourney: error: "), result.stderr
    return str(lines[0])


def test_not_a_league_folder(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    line = one_error_line(tourney("report", tmp_path, "-o", out))
    assert "is not a results folder" in line
    line = one_error_line(tourney("replay", tmp_path, "g1", "--html", out))
    assert "is not a results folder" in line
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_unknown_game_id(league: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    line = one_error_line(tourney("replay", league, "gnothere", "--html", out))
    assert "no game 'gnothere'" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["missing/report.html", "afile/report.html", "."])
def test_unwritable_output(league: Path, tmp_path: Path, where: str) -> None:
    (tmp_path / "afile").write_text("x")
    out = tmp_path / where
    before = sorted(tmp_path.rglob("*"))
    line = one_error_line(tourney("report", league, "-o", out))
    assert "cannot write" in line
    gid = store.load_games([league]).games.column("game_id")[0].as_py()
    line = one_error_line(tourney("replay", league, gid, "--html", out))
    assert "cannot write" in line
    assert sorted(tmp_path.rglob("*")) == before


def test_report_is_one_file_that_holds_every_replay(league: Path, tmp_path: Path) -> None:
    """Issue 47: the report wrote NAME_replays/ beside it, with viewers for 100 of 746 games.
    Now the page is the only file, and it holds the replay of every game."""
    out = tmp_path / "night.html"
    result = tourney("report", league, "-o", out)
    assert result.exit_code == 0, result.output
    assert "4 games, the replays of 4 in it" in result.stdout
    assert sorted(tmp_path.iterdir()) == [out]  # nothing beside it, no temporary file
    html = out.read_text()
    assert "<script src" not in html and "<link" not in html  # nothing fetched: opens offline
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    replays = page_replays(out)
    games = store.load_games([league]).games.to_pylist()
    assert sorted(replays) == sorted(g["game_id"] for g in games)
    for game_id, replay in replays.items():
        stored = [m["action"] for m in store.load_moves(league, game_id)]
        assert [m[1] for m in replay["moves"]] == stored
        assert replay["header"]["game_id"] == game_id and "board" not in replay
    assert set(page_data(out)["boards"]) == {"battleline/2"}  # one board for every game
    result = tourney("report", league, "-o", out, "--replays", "3")
    assert result.exit_code == 0 and "the replays of 3 in it" in result.stdout
    assert len(page_replays(out)) == 3
    assert one_error_line(tourney("report", league, "--replays", "some")).count("--replays")


def test_league_report_is_kept_up_to_date(tmp_path: Path) -> None:
    folder = tmp_path / "lg"
    result = tourney("league", "bl", "random", "greedy", "--games", "2", "--out", folder,
                     "--workers", "0", "-q", "--report")
    assert result.exit_code == 0, result.output
    assert page_data(folder / "report.html")["total_games"] == 2
    assert page_data(folder / "report.html")["live"] == 0  # the league ended: no reloading
    # more games: a tick after the interval rewrites the report, as a live page
    result = tourney("league", "bl", "random", "greedy", "--games", "4", "--out", folder,
                     "--workers", "0", "-q")
    assert result.exit_code == 0
    keeper = LeagueReport(folder, interval=0.0)
    keeper.tick()
    data = page_data(folder / "report.html")
    assert data["total_games"] == 4 and data["live"] == 60
    assert 'id="live"' in (folder / "report.html").read_text()
    assert not keeper.warned


def test_resume_keeps_the_report_the_league_was_started_with(tmp_path: Path) -> None:
    """Issue 47: `--resume` forgot `--report`, so the report stayed at 30 of 90 games. The
    folder now remembers it, until --no-report."""
    folder = tmp_path / "lg"
    report = folder / "report.html"
    result = tourney("league", "bl", "random", "greedy", "--games", "2", "--out", folder,
                     "--workers", "0", "-q", "--report")
    assert result.exit_code == 0, result.output
    assert json.loads((folder / "league.json").read_text())["report"] == "report.html"
    result = tourney("league", "--resume", "--out", folder, "--games", "4", "--workers", "0",
                     "-q")
    assert result.exit_code == 0, result.output
    assert f"report: {report}" in result.stdout
    assert page_data(report)["total_games"] == 4
    result = tourney("league", "bl", "random", "greedy", "--games", "6", "--out", folder,
                     "--workers", "0", "-q")  # the same command without --report: kept too
    assert result.exit_code == 0 and page_data(report)["total_games"] == 6
    result = tourney("league", "--resume", "--out", folder, "--games", "8", "--workers", "0",
                     "-q", "--no-report")
    assert result.exit_code == 0 and "report: " not in result.stdout
    assert page_data(report)["total_games"] == 6
    assert json.loads((folder / "league.json").read_text())["report"] == ""
    result = tourney("league", "--resume", "--out", folder, "--games", "10", "--workers", "0",
                     "-q")
    assert result.exit_code == 0 and page_data(report)["total_games"] == 6


def test_pick_replays_takes_forfeits_first_and_every_pairing(league: Path) -> None:
    import pyarrow as pa

    table = pa.table({
        "bots": [["a", "b"], ["a", "b"], ["a", "c"], ["b", "c"], ["a", "c"], ["b", "c"]],
        "termination": ["normal", "normal", "normal", "normal", "crash", "normal"],
        "rated": [True, True, True, True, True, False],
    })
    assert pick_replays(table, None) == [0, 1, 2, 3, 4, 5]
    assert pick_replays(table, 2) == [4, 5]
    chosen = pick_replays(table, 5)
    assert {4, 5} <= set(chosen) and {0, 2, 3} <= set(chosen) and len(chosen) == 5


def test_report_figures_per_bot(league: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    write_report([league], out, replays=0)
    data = page_data(out)
    games = store.load_games([league]).games.to_pylist()
    for bot in ("random", "greedy"):
        mine = [g for g in games if bot in g["bots"]]
        assert data["terminations"][bot]["games"] == len(mine)
        assert data["terminations"][bot]["normal"] == sum(
            g["termination"] == "normal" for g in mine)
        moves = [m for g in mine for m in store.load_moves(league, g["game_id"])
                 if g["bots"][m["seat"]] == bot]
        assert data["think"][bot]["decisions"] == len(moves)
        assert data["think"][bot]["max"] == max(m["think_time"] for m in moves)
    assert data["history"]["games"][-1] == len(games)
    final = {r["bot"]: r["mu"] for r in data["ratings"]["leaderboard"]}
    assert {b: s["mu"][-1] for b, s in data["history"]["bots"].items()} == final
    assert data["replays"] == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner,
                                                               max_size=4),
    max_leaves=20)


@given(json_values, json_values)
def test_json_diff_then_patch_rebuilds(a: Any, b: Any) -> None:
    assert json_patch(a, json_diff(a, b)) == b


@pytest.mark.parametrize("game,variant", [("battleline", {}), ("battleline", {"players": "3"}),
                                          ("warchest", {}), ("warchest", {"players": "4"})])
def test_frames_are_the_engine_observations(game: str, variant: dict[str, str]) -> None:
    state = registry.get(game).new_game(11, **variant)
    rng = random.Random(4)
    actions: list[str] = []
    while not state.is_terminal() and len(actions) < 150:
        actions.append(rng.choice(state.legal_actions()))
        state.apply(actions[-1])
    rebuilt = replay_frames(game, 11, variant, actions)
    assert rebuilt.applied == len(actions) and rebuilt.error == ""
    frames = []
    for view in rebuilt.views:
        frame, seq = view["first"], [view["first"]]
        for changes in view["changes"]:
            frame = json_patch(frame, changes)
            seq.append(frame)
        frames.append(seq)
    replay = registry.get(game).new_game(11, **variant)
    hidden = "hand_sizes" if game == "battleline" else "hand_count"
    for k in range(len(actions) + 1):
        for seat in range(replay.num_players):
            obs = replay.observation(seat)
            view = frames[1 + seat][k]
            assert view["hands"][seat] == obs["hand"]
            for other in range(replay.num_players):
                if other != seat:
                    assert view["hands"][other] == obs[hidden][other]
            assert {key: v for key, v in view.items() if key not in ("hands", "facedowns")} == {
                key: v for key, v in obs.items() if key not in ("hand", "facedown")}
            assert frames[0][k]["hands"][seat] == obs["hand"]
        # the whole truth holds no one seat's knowledge (what it knows of others' cards)
        assert frames[0][k]["seat"] is None
        assert not {"opponent_known", "known_in_hands", "known_by", "deck_tops_by",
                    "facedown", "events"} & set(frames[0][k])
        if k < len(actions):
            replay.apply(actions[k])


def test_terminations_count_forfeits_against_the_offender(tmp_path: Path) -> None:
    from harness.figures.report.data import load, termination_counts
    from harness.league.config import LeagueConfig
    from harness.records import BotRef, Termination
    from tests.league.helpers import record

    config = LeagueConfig(
        name="t", game="battleline", variant={"rules": "standard"}, rules_version="1", seed=1,
        games_per_pair=4, bots=[BotRef("a", "random", "aa"), BotRef("b", "greedy", "bb")])
    games = [
        record("g1"),
        record("g2", ("b", "a"), (1.0, -1.0), Termination.CRASH, offender=1),  # a crashed
        record("g3", ("a", "b"), (1.0, -1.0), Termination.TIMEOUT, offender=1),  # b timed out
        record("g4", ("a", "b"), (0.0, 0.0), Termination.TIMEOUT, offender=None),  # void
        record("g5", ("a", "b"), (0.0, 0.0), Termination.STALEMATE),
    ]
    with store.ResultsStore.open(tmp_path, config) as st:
        for r in games:
            st.add(r)
        st.flush()
    table = load([tmp_path]).games
    assert table.num_rows == 5
    counts = termination_counts(table)
    assert counts["a"] == {**dict.fromkeys(counts["a"], 0), "games": 5, "normal": 1,
                           "crash": 1, "opponent_forfeit": 1, "void": 1, "stalemate": 1}
    assert counts["b"] == {**dict.fromkeys(counts["b"], 0), "games": 5, "normal": 1,
                           "timeout": 1, "opponent_forfeit": 1, "void": 1, "stalemate": 1}


def test_league_goes_on_when_its_report_cannot_be_written(tmp_path: Path) -> None:
    folder = tmp_path / "lg"
    args: list[str | Path] = ["league", "bl", "random", "greedy", "--out", folder,
                              "--workers", "0", "-q"]
    assert tourney(*args, "--games", "2").exit_code == 0
    (folder / "report.html").mkdir()  # in the way of the report
    result = tourney(*args, "--games", "4", "--report")
    assert result.exit_code == 0, result.output
    assert "4 of 4 scheduled games stored" in result.stdout
    warnings = result.stderr.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("tourney: warning: report not updated")
    assert "report:" not in result.stdout


def test_folders_of_different_games_are_refused(league: Path, tmp_path: Path) -> None:
    other = tmp_path / "wc"
    assert tourney("league", "wc", "random", "greedy", "--games", "2", "--out", other,
                   "--workers", "0", "-q").exit_code == 0
    out = tmp_path / "both.html"
    line = one_error_line(tourney("report", league, other, "-o", out))
    assert "cannot report different games or rules versions together" in line
    assert not out.exists()


def test_report_carries_elo_columns_the_ratings_print(league: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with_elo(monkeypatch)
    out = tmp_path / "r.html"
    result = tourney("report", league, "-o", out, "--replays", "0")
    assert result.exit_code == 0, result.output
    html = out.read_text()
    head = '<script type="application/octet-stream" id="report-data">'
    start = html.index(head) + len(head)
    text = gzip.decompress(base64.b64decode(html[start:html.index("</script>", start)]))

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the page's JSON: the browser cannot parse it")

    data = json.loads(text, parse_constant=refuse)
    board = data["ratings"]["leaderboard"]
    assert [r["elo"] for r in board] == [100.0, 50.0]
    assert [r["elo_low"] for r in board] == [40.0, "−∞"]
    assert [r["elo_high"] for r in board] == [None, 110.0]
    # the chart's points are still the TrueSkill leaderboard's
    assert {b: s["mu"][-1] for b, s in data["history"]["bots"].items()} == {
        r["bot"]: r["mu"] for r in board}


def test_report_keeps_the_league_key_secret(league: Path, tmp_path: Path) -> None:
    """Deals derive from league.json's secret key: a report, made to be shared, shows how deals
    are made but never the key, nor do its replay viewers."""
    from harness.league.folder import load_config

    key = load_config(league).key
    assert len(key) == 32  # the fixture's league has a random key (no --seed)
    out = tmp_path / "r.html"
    assert tourney("report", league, "-o", out, "--replays", "all").exit_code == 0
    data = page_data(out)
    [config] = data["configs"]
    assert "key" not in config
    assert config["deals"] == "from a secret random key (kept in league.json, not in this report)"
    pages = [data, *page_replays(out).values()]
    assert len(pages) == 5
    for page in pages:
        assert key not in json.dumps(page)
    assert key not in out.read_text()

    seeded = tmp_path / "seeded"
    assert tourney("league", "bl", "random", "greedy", "--games", "2", "--out", seeded,
                   "--workers", "0", "-q", "--seed", "9").exit_code == 0
    assert tourney("report", seeded, "-o", out, "--replays", "0").exit_code == 0
    assert page_data(out)["configs"][0]["deals"] == "from a key derived from --seed 9"


@pytest.mark.parametrize("name", ["battleline", "warchest4"])
def test_old_folders_report_and_replay(name: str, tmp_path: Path) -> None:
    """A folder written before the rooms (and before secret keys) still makes a report; its
    viewers replay the stored moves, and say so where a later rules version refuses one (War
    Chest wc-2 -> wc-3 changed the Footman tactic's notation)."""
    folder = Path(__file__).resolve().parents[1] / "fixtures" / "main-c611855" / name
    out = tmp_path / "r.html"
    result = tourney("report", folder, "-o", out, "--replays", "all")
    assert result.exit_code == 0, result.output
    data = page_data(out)
    assert data["total_games"] == len(data["games"]["game_id"]) > 0
    assert data["configs"][0]["deals"].startswith("from --seed ")
    engine = registry.get(name.rstrip("4")).info.rules_version
    viewers = page_replays(out)
    assert len(viewers) == data["total_games"]
    for page in viewers.values():
        stored = [m["action"] for m in store.load_moves(folder, page["game_id"])]
        shown = [m[1] for m in page["moves"]]
        html = page["header"]["warning"]
        if shown != stored:
            assert shown == stored[:len(shown)]
            assert f"move {len(shown)} ({stored[len(shown)]}) cannot be applied" in html
        stored_rules = data["configs"][0]["rules_version"]
        assert (f"stored under rules {stored_rules}" in html) == (stored_rules != engine)
