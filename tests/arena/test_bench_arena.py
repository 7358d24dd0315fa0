"""The arena bench's synthetic league (:mod:`bench.arena`), small: stored as the arena
stores games, totalled by the leaderboard to what was generated, shown whole by `status`."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from bench import arena as bench
from harness.arena import living, standings
from harness.arena.registry import Registry
from harness.cli.app import app
from harness.league import schedule, store
from harness.league.schema import GAMES_SCHEMA, MOVES_SCHEMA
from harness.records import BotRef
from harness.stats.rank import kendall_tau

BOTS, GAMES, BATCH = 20, 2000, 500  # four batch files: pairs straddle them


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bench.Synthetic]:
    folder = tmp_path_factory.mktemp("bench") / "club"
    return folder, bench.generate(folder, BOTS, GAMES, seed=3, batch=BATCH)


def _totals(totals: standings.Totals) -> dict[tuple[str, str], tuple[float, float, int]]:
    return {k: (v[0], v[1], int(v[2])) for k, v in totals.pairs.items()}


def test_the_games_are_stored_as_the_arena_stores_them(
        made: tuple[Path, bench.Synthetic]) -> None:
    folder, synthetic = made
    games = store.batch_files(folder / "games")
    assert [p.name for p in games] == [p.name for p in store.batch_files(folder / "moves")]
    assert len(games) == GAMES // BATCH
    for path in games:
        assert path.name.startswith(f"batch-{games.index(path) + 1:06d}-")
        assert pq.read_schema(path).equals(GAMES_SCHEMA)
        assert pq.read_schema(folder / "moves" / path.name).equals(MOVES_SCHEMA)
        assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "ZSTD"
    # the store opens it as it would after a run: nothing quarantined, every game known
    config = living.load_arena(folder)
    with store.ResultsStore.open(folder, config, must_exist=True) as opened:
        assert opened.report.quarantined == []
        finished = set(opened.finished)
    assert len(finished) == GAMES
    # each assignment's games have the ids the arena gives them
    with Registry.open(folder) as registry:
        assignments = registry.assignments_since(0)
        versions = {v.bot: v for v in registry.versions()}
    assert len(assignments) == GAMES // 2
    assert {v.status for v in versions.values()} == {"active"}
    assert sorted(versions) == sorted(synthetic.bots)
    for a in assignments[:50]:
        x, y = (BotRef(n, versions[n].spec) for n in (a.a, a.b))
        specs = schedule.deal_set(config.game, config.variant, x, y, a.deal,
                                  league=config.name, key=config.key_bytes)
        assert {s.game_id for s in specs} <= finished


def test_read_totals_gives_the_generated_totals_with_and_without_the_cache(
        made: tuple[Path, bench.Synthetic]) -> None:
    folder, synthetic = made
    expected = synthetic.totals()
    assert sum(g for g, _, _ in expected.values()) + synthetic.void == GAMES
    (folder / standings.CACHE_FILE).unlink(missing_ok=True)
    plain = standings._totals_plain(folder, store.batch_files(folder / "games"))
    assert _totals(plain) == expected and plain.void == synthetic.void
    # every file read, then from the cache alone
    for _ in range(2):
        totals = standings.read_totals(folder)
        assert _totals(totals) == expected and totals.void == synthetic.void
        assert totals.games == plain.games
    assert (folder / standings.CACHE_FILE).is_file()
    # the cache of the first batches, and the last ones read and merged with it: pairs whose
    # games are in two files count one deal
    for hidden in (1, 2):
        assert bench._hide(folder, hidden / len(store.batch_files(folder / "games"))) == hidden
        try:
            (folder / standings.CACHE_FILE).unlink()
            part = standings.read_totals(folder)
            assert part.void <= synthetic.void and _totals(part) != expected
        finally:
            bench._unhide(folder)
        totals = standings.read_totals(folder)
        assert _totals(totals) == expected and totals.void == synthetic.void


def test_the_leaderboard_lists_every_bot_near_its_true_order(
        made: tuple[Path, bench.Synthetic]) -> None:
    folder, synthetic = made
    result = CliRunner().invoke(app, ["arena", "status", str(folder)])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()[2:]]
    assert [int(r[0]) for r in rows] == list(range(1, BOTS + 1))
    shown = {f"{r[1]}.{r[2]}": (r[3], float(r[4]), int(r[6])) for r in rows}
    totals = standings.read_totals(folder)
    assert {b: (s, g) for b, (s, _, g) in shown.items()} == {
        b: ("active", totals.games[b]) for b in synthetic.bots}
    truth = dict(zip(synthetic.bots, synthetic.strength.tolist(), strict=True))
    assert kendall_tau([truth[b] for b in shown], [elo for _, elo, _ in shown.values()]) > 0.7
    # the leaderboard's ratings are the matchmaker's; its intervals are relative to the field,
    # which the games tell better than each bot's level (known from the prior alone)
    mm = standings.fit(totals, synthetic.bots, synthetic.bots)
    for bot, (mu, sd) in standings.ratings(totals, synthetic.bots).items():
        assert mm.rating(bot)[0] == pytest.approx(mu, abs=1e-6)
        assert sd <= mm.rating(bot)[1] + 1e-9


def test_a_leaderboard_interval_shrinks_with_games_as_the_closed_form_says() -> None:
    """Two bots that drew every one of n games: their difference d has Fisher information
    n·C²/4 (C = ln 10 / 400 per Elo point, p = 1/2), each rating is ±d/2 about the field's
    mean, so its standard deviation is 1 / (C·√n), shrinking with the games (a bot's own
    marginal deviation stays near the prior's)."""
    import math

    c = math.log(10) / 400
    for n in (100, 400, 1600):
        totals = standings.Totals(pairs={})
        totals.add("a.v1", "b.v1", n, n / 2, n // 2)
        rated = standings.ratings(totals, ["a.v1", "b.v1"])
        for mu, sd in rated.values():
            assert mu == pytest.approx(0.0, abs=1e-6)
            # the prior adds a little information: the closed form is the bound from above
            assert 0.97 / (c * math.sqrt(n)) < sd <= 1 / (c * math.sqrt(n)), (n, sd)
