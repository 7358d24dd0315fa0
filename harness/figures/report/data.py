"""The figures of a league report, gathered from the results folders as plain JSON.

Everything comes from the stored games and moves through :mod:`harness.league.service`,
:mod:`harness.league.store` and :mod:`harness.stats.ratings`, the functions ``tourney ratings``
uses, so the report's leaderboard and head-to-head matrix are exactly what
``tourney ratings --format json --h2h`` prints.

Two options serve a living league (``tourney arena``): its entrants, each version with its
status (:func:`entrants_json`), and the public form of the report, made to be shared, which
holds no organiser-side path (:class:`Redactor`, :func:`public_spec`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.league import store
from harness.league.config import LeagueConfig, describe_variant
from harness.league.folder import CONFIG_FILE, public_json
from harness.league.service import stored_games
from harness.records import BotRef, TourneyError
from harness.stats import ratings
from harness.stats.outcome import COLUMNS, Result

#: Points on the ratings-over-time chart (the leaderboard as it stood after that many games).
HISTORY_POINTS = 40
#: Terminations shown per bot, in this order; "void" is a game the harness failed.
TERMINATION_COLUMNS = ("normal", "stalemate", "move_cap", "timeout", "crash", "illegal",
                       "protocol_error", "void")


class ReportError(TourneyError):
    """A report that cannot be made as asked; one line naming the problem and the fix."""


@dataclass
class LeagueData:
    """The stored games of the folders, read once."""

    folders: list[Path]
    configs: list[LeagueConfig]
    games: Any  # pyarrow Table, sorted by game id
    skipped: list[str]


def load(folders: Sequence[Path], purpose: str = "report") -> LeagueData:
    """Read the folders' configurations and games; one clear error for anything unusable
    (``purpose`` names what the games are for in it: "cannot report/rate ... together")."""
    folders = list(folders)
    configs, loaded = stored_games(folders, purpose)
    return LeagueData(folders, configs, loaded.games, list(loaded.skipped))


def ratings_json(table: Any, draw_probability: float | None = None) -> dict[str, Any]:
    """What ``tourney ratings --format json --h2h`` prints for the games of ``table``."""
    from harness.league import verdicts

    try:
        rated = verdicts.rate(table.select(verdicts.COLUMNS).to_pylist(),
                              draw_probability=draw_probability)
    except verdicts.RatingsInputError as exc:
        raise ReportError(str(exc)) from None
    return verdicts.as_json(rated, h2h=True)


def history(table: Any, draw_probability: float, points: int = HISTORY_POINTS) -> dict[str, Any]:
    """The leaderboard after the first k finished games, for ``points`` values of k.

    Games are taken in the order they finished (ties by id); each point is what
    ``tourney ratings`` would have printed at that moment (rated in game-id order with the
    final draw probability, so the last point is the leaderboard itself).
    """
    import pyarrow.compute as pc

    finished = pc.cast(table.column("finished_at"), "int64").to_pylist()
    ids = table.column("game_id").to_pylist()
    order = sorted(range(table.num_rows), key=lambda i: (finished[i] or 0, ids[i]))
    rows = [Result.from_row(r) for r in table.select(COLUMNS).to_pylist()]
    n = len(rows)
    marks = sorted({max(1, round(n * (i + 1) / points)) for i in range(points)}) if n else []
    series: dict[str, dict[str, list[float | None]]] = {}
    for j, k in enumerate(marks):
        prefix = [rows[i] for i in order[:k]]
        # the TrueSkill figures only, rounded as the JSON leaderboard rounds them (whatever
        # other columns the leaderboard prints are not computed 40 times)
        for bot in ratings.leaderboard(prefix, draw_probability).bots:
            entry = series.setdefault(bot.name, {"mu": [None] * len(marks),
                                                 "sigma": [None] * len(marks)})
            entry["mu"][j] = round(bot.mu, 3)
            entry["sigma"][j] = round(bot.sigma, 3)
    return {"games": marks, "bots": series}


def termination_counts(table: Any) -> dict[str, dict[str, int]]:
    """Per bot: games it played by how they ended; forfeits count only against the offender.

    A forfeit (timeout, crash, illegal, protocol error) is counted for the bot that committed
    it; its opponents see that game under ``opponent_forfeit``. A void game counts for every
    bot in it.
    """
    out: dict[str, dict[str, int]] = {}
    cols = ["bots", "termination", "offender", "rated"]
    for r in table.select(cols).to_pylist():
        for seat, bot in enumerate(r["bots"]):
            acc = out.setdefault(bot, {k: 0 for k in (*TERMINATION_COLUMNS, "opponent_forfeit",
                                                         "games")})
            if seat != r["bots"].index(bot):
                continue  # one bot in two seats (a team of one bot): count the game once
            acc["games"] += 1
            term = r["termination"]
            if not r["rated"]:
                acc["void"] += 1
            elif term in ratings.FORFEIT_KINDS:
                offender = r["offender"]
                mine = offender is not None and r["bots"][offender] == bot
                acc[term if mine else "opponent_forfeit"] += 1
            else:
                acc[term] = acc.get(term, 0) + 1
    return out


def think_times(folders: Sequence[Path], table: Any) -> dict[str, dict[str, float | int]]:
    """Per bot: decisions, median and slowest decision, and mean think time per game (s)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    seat_bot: dict[tuple[str, int], str] = {}
    for r in table.select(["game_id", "bots"]).to_pylist():
        for seat, bot in enumerate(r["bots"]):
            seat_bot[(r["game_id"], seat)] = bot
    per_bot: dict[str, list[Any]] = {}
    for folder in folders:
        for path in store.batch_files(folder / "moves"):
            try:
                moves = store.read_batch(path, ["game_id", "seat", "think_time"])
            except Exception:  # damaged: reported by load_games for its games file
                continue
            ids = moves.column("game_id").to_pylist()
            seats = moves.column("seat").to_pylist()
            bots = [seat_bot.get((g, s), "") for g, s in zip(ids, seats, strict=True)]
            names = pa.array(bots)
            times = moves.column("think_time")
            for bot in set(bots) - {""}:
                per_bot.setdefault(bot, []).append(times.filter(pc.equal(names, bot)))
    out: dict[str, dict[str, float | int]] = {}
    games_of: dict[str, int] = {}
    total_of: dict[str, float] = {}
    for r in table.select(["bots", "think_time"]).to_pylist():
        for bot, t in dict(zip(r["bots"], r["think_time"], strict=True)).items():
            games_of[bot] = games_of.get(bot, 0) + 1
            total_of[bot] = total_of.get(bot, 0.0) + (t or 0.0)
    for bot, chunks in per_bot.items():
        values = pa.chunked_array(chunks, type=pa.float64())
        out[bot] = {
            "decisions": len(values),
            "median": float(pc.quantile(values, q=0.5)[0].as_py()),
            "p90": float(pc.quantile(values, q=0.9)[0].as_py()),
            "max": float(pc.max(values).as_py()),
            "per_game": total_of.get(bot, 0.0) / max(1, games_of.get(bot, 0)),
        }
    return out


def games_list(table: Any) -> dict[str, list[Any]]:
    """The games as columns (compact JSON), in game-id order."""
    cols = ["game_id", "league", "bots", "winner", "draw", "score", "termination", "reason",
            "decisions", "duration", "rated"]
    data: dict[str, list[Any]] = table.select(cols).to_pydict()
    data["score"] = [[round(x, 2) for x in s] for s in data["score"]]
    data["duration"] = [round(d, 3) for d in data["duration"]]
    return data


def public_spec(ref: BotRef) -> str:
    """What a public report says of a bot's spec: a built-in by its name (``greedy:p=0.3``),
    any other bot by its kind and the start of its code's hash, never a path or command line.

    >>> public_spec(BotRef("g", "sandbox:greedy:p=0.3", "ab"))
    'sandbox:greedy:p=0.3'
    >>> public_spec(BotRef("alice.v2", "/srv/arena/entries/alice/v2/bot.py", "0123456789abcdef"))
    'uploaded file, sha256 0123456789ab'
    >>> public_spec(BotRef("c", "cmd:/opt/bots/run --fast"))
    'external command'
    """
    from harness.bots.spec import BotSpecError, parse_spec

    digest = f", sha256 {ref.sha256[:12]}" if ref.sha256 else ""
    try:
        spec = parse_spec(ref.spec, check=False)
    except BotSpecError:
        return "uploaded file" + digest
    if spec.builtin:
        return spec.prefix + spec.builtin_text
    if spec.command:
        return "external command" + digest
    if spec.is_directory:
        return "uploaded directory" + digest
    return "uploaded file" + digest


class Redactor:
    """The organiser-side paths of a report and what its public form writes instead.

    The paths are the results folders (``<results folder>``), each bot's file or directory
    (``<bot NAME>``) and the folder holding it (``<bot folder>``), an external command's files
    and working directory, tourney's own installation (``<tourney>``, in a built-in's traceback)
    and the home directory (``~``); only absolute paths, longest first, so a folder inside the
    home directory is named as the folder. :meth:`__call__` rewrites every string of a JSON-like
    value (a string without a ``/``, as bot names and game ids are, comes through unchanged).
    """

    def __init__(self, folders: Sequence[Path], configs: Sequence[LeagueConfig]) -> None:
        from harness.bots.spec import AGENTS_DIR, BotSpecError, parse_spec

        found: dict[str, str] = {}

        def add(path: Path | str, label: str) -> None:
            path = Path(path)
            if path.is_absolute():
                for form in (path, path.resolve()):
                    if form.parent != form:  # never "/" itself
                        found.setdefault(str(form), label)

        for folder in folders:
            add(folder.absolute(), "<results folder>")
        for config in configs:
            for ref in config.bots:
                try:
                    spec = parse_spec(ref.spec, check=False)
                except BotSpecError:
                    continue
                if spec.builtin:
                    continue
                if spec.path is not None and spec.path.is_absolute():
                    add(spec.path, f"<bot {ref.name}>")
                    add(spec.path.parent, "<bot folder>")
                if spec.cwd is not None and spec.cwd.is_absolute():
                    add(spec.cwd, "<bot folder>")
                for word in spec.command:
                    if word.startswith("/"):
                        add(word, f"<bot {ref.name}>")
                        add(Path(word).parent, "<bot folder>")
        add(AGENTS_DIR.parent, "<tourney>")
        add(Path.home(), "~")
        self.pairs = sorted(found.items(), key=lambda kv: -len(kv[0]))

    def text(self, value: str) -> str:
        """``value`` with every organiser-side path replaced by its label."""
        if "/" not in value:
            return value
        for path, label in self.pairs:
            value = value.replace(path, label)
        return value

    def found(self, value: str) -> bool:
        """Whether ``value`` holds an organiser-side path."""
        return any(path in value for path, _ in self.pairs)

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self(v) for v in value]
        return value


#: A living league's statuses, in the order the entrants panel sorts them by.
STATUSES = ("active", "validating", "suspended", "failed", "replaced", "retired")
#: The keys of one entrant (a version of an entrant's bot), as ``tourney arena`` gives them.
ENTRANT_KEYS = ("entrant", "bot", "version", "status", "reason", "games", "added")


def entrants_json(entrants: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The entrants panel's rows: every key of :data:`ENTRANT_KEYS` (``reason`` may be left out:
    empty), with its plain type; a status outside :data:`STATUSES` is shown as given."""
    out = []
    for i, e in enumerate(entrants):
        missing = [k for k in ENTRANT_KEYS if k != "reason" and k not in e]
        if missing:
            raise ReportError(f"entrant {i + 1} ({e.get('bot', '?')}) has no "
                              f"{', '.join(missing)}; each entrant needs the keys "
                              f"{', '.join(ENTRANT_KEYS)}")
        out.append({"entrant": str(e["entrant"]), "bot": str(e["bot"]),
                    "version": int(e["version"]), "status": str(e["status"]),
                    "reason": str(e.get("reason") or ""), "games": int(e["games"]),
                    "added": str(e["added"])})
    return out


def config_json(data: LeagueData, public: bool = False) -> list[dict[str, Any]]:
    """The folders' configurations as the report shows them: never the league's secret key,
    from which every deal of games still to be played derives (a report is made to be shared).

    ``public`` (a report made to be shared beyond the organiser) also leaves out the folder,
    each bot's spec (:func:`public_spec` instead) and the places the sandbox let bots write.
    """
    out = []
    for folder, c in zip(data.folders, data.configs, strict=True):
        d = public_json(c)
        if public:
            for bot, ref in zip(d["bots"], c.bots, strict=True):
                bot["spec"] = public_spec(ref)
            if isinstance(d.get("isolation"), dict):
                d["isolation"].pop("writable", None)
        else:
            d["folder"] = str(folder)
        d["variant_text"] = describe_variant(c.variant)
        if c.deal_scheme == "sha256-v0":
            d["deals"] = f"from --seed {c.seed}"
        elif c.seed is None:
            d["deals"] = f"from a secret random key (kept in {CONFIG_FILE}, not in this report)"
        else:
            d["deals"] = f"from a key derived from --seed {c.seed}"
        out.append(d)
    return out


def report_data(data: LeagueData, history_points: int = HISTORY_POINTS, *,
                entrants: Iterable[Mapping[str, Any]] | None = None,
                public: bool = False) -> dict[str, Any]:
    """Every figure the report shows, as one JSON-ready dict.

    ``entrants`` (a living league's versions, see :func:`entrants_json`) adds the key
    ``entrants``; without them the dict has none. ``public`` leaves out every organiser-side
    path: the configurations as :func:`config_json` makes them public, and every string
    (reasons, warnings, entrants) through :class:`Redactor`.
    """
    if data.games.num_rows == 0:
        board: dict[str, Any] = {"leaderboard": [], "h2h": [], "draw_probability": None,
                                 "rated_games": 0, "void_games": 0}
        hist: dict[str, Any] = {"games": [], "bots": {}}
    else:
        board = ratings_json(data.games)
        hist = history(data.games, board["draw_probability"], history_points)
    first = data.configs[0]
    figures = {
        "title": " + ".join(c.name for c in data.configs),
        "game": first.game,
        "players": first.players,
        "generated": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "configs": config_json(data, public),
        "ratings": board,
        "history": hist,
        "terminations": termination_counts(data.games),
        "think": think_times(data.folders, data.games),
        "games": games_list(data.games),
        "skipped": data.skipped,
        "total_games": data.games.num_rows,
    }
    if entrants is not None:
        figures["entrants"] = entrants_json(entrants)
    if public:
        redacted: dict[str, Any] = Redactor(data.folders, data.configs)(figures)
        return redacted
    return figures
