"""See a league: an offline HTML report and a replay viewer for every stored game.

* :func:`write_report` — ``tourney report FOLDER... -o report.html``: leaderboard, head-to-head
  heat map, ratings over the league, terminations and think time per bot, configuration and the
  filterable list of games, in one self-contained file that also holds every game's replay,
  each compressed on its own (gzip, base64) and unpacked by the browser only when it is opened
  (``--replays N`` keeps the page small for a huge league: then N games' replays).
* :func:`write_replay` — ``tourney replay FOLDER GAME_ID --html replay.html``: one game, rebuilt
  through the engine from its seed, variant and stored moves (:mod:`.frames`), drawn as SVG.
* :class:`ReportUpdater` — keeps a report up to date while ``tourney league --report`` runs:
  the page reloads itself while the league is live, and each game's replay is built once.

A living league (``tourney arena``) adds its entrants, each version of an entrant's bot with its
status (an "Entrants" panel, and a tag in the leaderboard for every bot no longer active), and
asks for the public form of the report: no organiser-side path anywhere in the page or its
replays (:class:`~harness.figures.report.data.Redactor`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.figures.report.data import Redactor, ReportError, load, report_data
from harness.figures.report.frames import board_geometry, replay_frames
from harness.figures.report.render import (
    asset,
    check_writable,
    pack,
    render,
    render_page,
    write_atomic,
)
from harness.league.folder import ResultsFolder

__all__ = ["DEFAULT_REPLAYS", "ReportError", "ReportUpdater", "write_replay", "write_report"]

#: Games whose replays a report holds by default: every one (about 5 kB a game, compressed).
DEFAULT_REPLAYS: int | None = None
#: Seconds between two reloads of a live report (one ``tourney league --report`` rewrites).
LIVE_RELOAD = 60
REPLAY_SHELL = "<!--replay-data-->"  # where the report's viewer puts a game's data
FORFEITS = ("timeout", "crash", "illegal", "protocol_error")
#: A living league's entrants as the report takes them (see :func:`write_report`).
Entrants = Sequence[Mapping[str, Any]]


# ----------------------------------------------------------------------------- one game


@dataclass
class StoredGame:
    row: dict[str, Any]  # the games-table row
    folder: Path
    moves: list[dict[str, Any]]  # ply, seat, action, think_time


def find_game(folder: Path, game_id: str) -> StoredGame:
    """The stored game ``game_id`` (or a unique prefix of it) of a results folder."""
    from harness.league import service

    row = service.find_game(folder, game_id)
    moves = moves_of(folder, [row["game_id"]]).get(row["game_id"], [])
    return StoredGame(row, folder, moves)


def moves_of(folder: Path, game_ids: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """The moves of several games of one folder, read in one pass over its move files."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from harness.league import store

    wanted = pa.array(sorted(set(game_ids)), type=pa.string())
    out: dict[str, list[dict[str, Any]]] = {}
    if len(wanted) == 0:
        return out
    for path in store.batch_files(folder / "moves"):
        try:
            table = store.read_batch(path)
        except Exception:  # a damaged file: its games are reported by load_games
            continue
        hit = table.filter(pc.is_in(table.column("game_id"), value_set=wanted))
        for r in hit.to_pylist():
            out.setdefault(r["game_id"], []).append(r)
    for game_id, rows in out.items():
        # one ply once: a merge of batch files leaves both for a moment (harness.league.index)
        out[game_id] = sorted({r["ply"]: r for r in rows}.values(), key=lambda r: r["ply"])
    return out


def _result_text(row: dict[str, Any]) -> str:
    seats = row["bots"]
    winners = list(row["winner_seats"] or [])
    if not row["rated"]:
        outcome = "void (not rated)"
    elif winners:
        names = " + ".join(dict.fromkeys(seats[s] for s in winners))
        outcome = f"won by {names} (seat{'s' if len(winners) > 1 else ''} " \
                  f"{', '.join(str(s) for s in winners)})"
    else:
        outcome = "draw"
    score = "–".join(f"{x:g}" for x in row["score"])
    return f"Result: {outcome}, score {score}; {row['termination']}: {row['reason']}"


def replay_view(game: StoredGame, redact: Redactor | None = None) -> dict[str, Any]:
    """What the viewer of one stored game shows: the game rebuilt through the engine (moves,
    views, board) and its header's texts (``header``: title, sub, result, warning); with
    ``redact`` (a public report), the organiser-side paths in the game's record (a crash's
    reason, say) replaced."""
    from games import registry
    from harness.league.config import describe_variant

    row = game.row if redact is None else redact(game.row)
    engine = registry.get(row["game"])
    variant = json.loads(row["variant"])
    actions = [m["action"] for m in game.moves]
    rebuilt = replay_frames(row["game"], row["seed"], variant, actions)
    warning = ""
    if row["rules_version"] != engine.info.rules_version:
        warning = (f"stored under rules {row['rules_version']}, the engine is at "
                   f"{engine.info.rules_version}; the replay may differ")
    if rebuilt.error:
        warning = (warning + "; " if warning else "") + rebuilt.error
    moves = [[m["seat"], m["action"], round(m["think_time"], 6)]
             for m in game.moves[:rebuilt.applied]]
    seats = " · ".join(f"seat {i}: {b}" for i, b in enumerate(row["bots"]))
    header = {
        "game_id": row["game_id"], "title": f"{engine.info.title} · game {row['game_id']}",
        "sub": f"{seats} · league {row['league']} · {describe_variant(variant)} · rules "
               f"{row['rules_version']} · seed {row['seed']}",
        "result": _result_text(row), "warning": warning,
    }
    return {
        "game": row["game"], "game_id": row["game_id"], "players": row["players"],
        "seats": row["bots"], "moves": moves, "views": rebuilt.views,
        "board": board_geometry(row["game"], row["players"]), "header": header,
    }


def replay_html(game: StoredGame, redact: Redactor | None = None,
                scripts: str | None = None) -> str:
    """The viewer page of one stored game (see :func:`replay_view` for ``redact``). The page is
    one file with its scripts inlined, or, with ``scripts`` (an address such as
    ``/static/report``), one that loads ``common.js`` and ``replay.js`` from there: a server's
    page then needs no inline script (its Content-Security-Policy allows none)."""
    data = replay_view(game, redact)
    header = data.pop("header")
    return render("replay.html.j2", data=data, header=header, replay_js=asset("replay.js"),
                  scripts=scripts)


def viewer_shell() -> str:
    """The viewer page without a game: the report fills in a game's data where
    :data:`REPLAY_SHELL` stands and shows the page in a frame of its own."""
    return render_page("replay.html.j2", data="", header=None,
                       replay_js=asset("replay.js"), scripts=None)


def write_replay(folder: Path, game_id: str, out: Path) -> str:
    """Write the viewer of one stored game to ``out``; returns the full game id."""
    check_writable(out)
    game = find_game(folder, game_id)
    write_atomic(out, replay_html(game))
    return str(game.row["game_id"])


# ----------------------------------------------------------------------------- the report


@dataclass
class ReportSummary:
    path: Path
    games: int
    replays: int  # games whose replay the page holds
    bytes: int
    skipped: list[str] = field(default_factory=list)
    replay_bytes: int = 0  # of ``bytes``, the replays' compressed data


def pick_replays(table: Any, limit: int | None) -> list[int]:
    """Rows whose replays the report holds: forfeits and void games first, then spread over
    pairings.

    ``limit`` None means every game. Within a pairing, games are taken in game-id order, one
    per pairing per round, so every pairing gets its share.
    """
    rows = table.select(["bots", "termination", "rated"]).to_pylist()
    if limit is None or limit >= len(rows):
        return list(range(len(rows)))
    odd = [i for i, r in enumerate(rows) if r["termination"] in FORFEITS or not r["rated"]]
    chosen = odd[:limit]
    taken = set(chosen)
    by_pair: dict[tuple[str, ...], list[int]] = {}
    for i, r in enumerate(rows):
        if i not in taken:
            by_pair.setdefault(tuple(sorted(set(r["bots"]))), []).append(i)
    queues = list(by_pair.values())
    depth = 0
    while len(chosen) < limit and any(depth < len(q) for q in queues):
        for q in queues:
            if depth < len(q) and len(chosen) < limit:
                chosen.append(q[depth])
        depth += 1
    return sorted(chosen)


def packed_replays(rows: Sequence[dict[str, Any]], folder_of: Callable[[str], Path],
                   redact: Redactor | None, cache: dict[str, str] | None = None
                   ) -> tuple[dict[str, str], dict[str, Any]]:
    """Each game's replay, packed on its own (:func:`~harness.figures.report.render.pack`), by
    game id, and the boards they are drawn on, by ``game/players`` (one copy each, not one a
    game). ``cache`` (game id -> packed replay) is read and filled: a stored game never
    changes, so a report rewritten while its league runs builds each replay once."""
    blobs: dict[str, str] = {}
    boards: dict[str, Any] = {}
    todo: dict[Path, list[dict[str, Any]]] = {}
    for row in rows:
        boards.setdefault(f"{row['game']}/{row['players']}",
                          board_geometry(row["game"], row["players"]))
        if cache is not None and row["game_id"] in cache:
            blobs[row["game_id"]] = cache[row["game_id"]]
        else:
            todo.setdefault(folder_of(row["league"]), []).append(row)
    for folder, group in todo.items():
        moves = moves_of(folder, [r["game_id"] for r in group])
        for row in group:
            view = replay_view(StoredGame(row, folder, moves.get(row["game_id"], [])), redact)
            del view["board"]
            blobs[row["game_id"]] = pack(view)
            if cache is not None:
                cache[row["game_id"]] = blobs[row["game_id"]]
    if cache is not None:  # kept to the games of the page (a living league's may change)
        for gone in set(cache) - set(blobs):
            del cache[gone]
    return {r["game_id"]: blobs[r["game_id"]] for r in rows}, boards


def write_report(folders: Sequence[Path], out: Path, *, replays: int | None = DEFAULT_REPLAYS,
                 entrants: Entrants | None = None, public: bool = False,
                 cache: dict[str, str] | None = None, live: bool = False) -> ReportSummary:
    """Write the report of ``folders`` to ``out``: one file, holding the replays of every game
    (or of ``replays`` of them, chosen by :func:`pick_replays`).

    ``cache``: see :func:`packed_replays`. ``live``: the league is still running; the page says
    so and reloads itself every :data:`LIVE_RELOAD` seconds (while no replay is open).

    ``entrants``: a living league's versions, one mapping each with the keys ``entrant`` (the
    organiser's name for the entrant), ``bot`` (the version's bot name, as the leaderboard and
    games name it), ``version`` (int), ``status`` (validating, active, replaced, retired, failed
    or suspended), ``reason`` (why failed or suspended; may be empty), ``games`` (int) and
    ``added`` (ISO time). They add an "Entrants" panel, and the leaderboard tags each bot whose
    status is not active; None (the default) leaves the report as a league's.

    ``public``: a report made to be shared, with no organiser-side path: no results folder, each
    bot's spec as its built-in name or "uploaded file, sha256 <12 hex>", and the folders, bot
    files, tourney's installation and the home directory replaced in every text of the page and
    of its replays (crash reasons, warnings).
    """
    from games import registry
    from harness.records import tourney_version

    check_writable(out)
    data = load(folders)
    figures = report_data(data, entrants=entrants, public=public)
    redact = Redactor(data.folders, data.configs) if public else None
    folder_of = {c.name: f for f, c in zip(data.folders, data.configs, strict=True)}
    chosen = pick_replays(data.games, replays)
    rows = data.games.take(chosen).to_pylist() if chosen else []
    blobs, boards = packed_replays(rows, lambda league: folder_of.get(league, data.folders[0]),
                                   redact, cache)
    figures.update(replays=sorted(blobs), boards=boards, viewer=viewer_shell(),
                   live=LIVE_RELOAD if live else 0)
    info = registry.get(figures["game"]).info
    html = render(
        "report.html.j2", data=figures, title=figures["title"], game_title=info.title,
        total_games=figures["total_games"], generated=figures["generated"],
        version=tourney_version(), skipped=figures["skipped"],
        has_entrants="entrants" in figures, replay_blobs=blobs, live=live,
        replay_count=len(blobs), uplot_js=asset("vendor/uPlot.iife.min.js"),
        uplot_css=asset("vendor/uPlot.min.css"), report_js=asset("report.js"),
    )
    write_atomic(out, html)
    return ReportSummary(out, figures["total_games"], len(blobs), len(html.encode()),
                         data.skipped, sum(len(b) for b in blobs.values()))


class ReportUpdater:
    """Rewrites a league's report at most every ``interval`` seconds, and once at the end.

    ``entrants`` and ``public`` are :func:`write_report`'s. ``entrants`` is either the list
    itself or a function of no arguments returning it, called at every rewrite, so that a
    living league shows each version's status as it is then. Each game's replay is built once
    (kept packed, a few kB a game). Until :meth:`write` is told ``final``, the page is live: it
    says so and reloads itself.
    """

    def __init__(self, folder: Path, out: Path, interval: float = 60.0,
                 replays: int | None = DEFAULT_REPLAYS, *,
                 entrants: Entrants | Callable[[], Entrants] | None = None,
                 public: bool = False) -> None:
        self.folder, self.out, self.interval, self.replays = folder, out, interval, replays
        self.entrants, self.public = entrants, public
        self.last = time.monotonic()
        self.cache: dict[str, str] = {}

    def tick(self, *_: object) -> None:
        """Call after every finished game; rewrites the report when it is due."""
        if time.monotonic() - self.last >= self.interval:
            self.write(final=False)

    def write(self, final: bool = True) -> ReportSummary | None:
        self.last = time.monotonic()
        if not ResultsFolder(self.folder).holds_league():
            return None
        entrants = self.entrants() if callable(self.entrants) else self.entrants
        return write_report([self.folder], self.out, replays=self.replays, entrants=entrants,
                            public=self.public, cache=self.cache, live=not final)
