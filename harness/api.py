"""tourney from Python, for notebooks and scripts: play a game, run a league, read the ratings
as a table (docs/api.md shows each call).

A thin layer over what the command line calls: the referee (``play_game``) for one game, the
league service (``League``) for a league, and the ratings of ``tourney ratings`` (the Elo fit
beside TrueSkill and the pair statistics). Nothing here prints; errors a user can fix are
:class:`~harness.records.TourneyError` s, as on the command line.

>>> from harness import api
>>> record = api.play("battleline", ["greedy", "random"], seed=7)
>>> record.seats, record.termination.value
(['greedy', 'random'], 'normal')
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.figures.table import Table
from harness.records import BotRef, GameRecord, GameSpec, Limits, TourneyError

if TYPE_CHECKING:
    from harness.league.service import RunSummary

__all__ = ["ApiError", "GameRecord", "Limits", "Table", "league", "pairs", "play", "ratings"]


class ApiError(TourneyError):
    """A call that cannot be played as asked (a wrong number of bots, a bad variant)."""


# ----------------------------------------------------------------------------- one game


def _variant_options(variant: Mapping[str, object] | None) -> list[str]:
    return [f"{key}={value}" for key, value in (variant or {}).items()]


def play(game: str, bots: Sequence[str], *, seed: int | None = None,
         variant: Mapping[str, object] | None = None, limits: Limits | None = None,
         sandbox_builtins: bool = False, log_dir: str | Path | None = None) -> GameRecord:
    """Play one game of ``game`` (a name or alias) between ``bots``, one bot spec a seat (as
    ``tourney play`` takes them: ``"greedy"``, ``"mybot.py"``, ``"cmd:./engine"``), and return
    its record: ``seats``, ``returns`` (1 win, 0 draw, -1 loss a seat), ``winners``,
    ``termination``, ``reason``, ``moves``, ... (``record.to_dict()`` is ``play --json``).

    ``seed``: the deal (default: 62 random bits, kept in ``record.seed``); ``variant``: the
    rules options, ``{"players": 3}``; ``limits``: the sandboxed bots' limits
    (:class:`Limits`, the defaults of ``tourney play``); ``sandbox_builtins``: run the built-ins
    sandboxed too; ``log_dir``: write each bot's output there.
    """
    from games import registry
    from games.protocol import GameError, VariantError
    from harness.league.folder import logs_cover
    from harness.match.placement import pinned_here
    from harness.match.referee import play_game

    try:
        chosen, options = registry.choose(game, registry.parse_variants(_variant_options(variant)))
    except GameError as exc:
        raise ApiError(str(exc)) from None
    seed = secrets.randbits(62) if seed is None else seed
    try:  # a game may refuse a combination of options (schotten-totten with players=3)
        players = chosen.new_game(seed, **options).num_players
    except VariantError as exc:
        raise ApiError(str(exc)) from None
    if len(bots) != players:
        raise ApiError(f"{chosen.info.name} with {options} needs {players} bots, got "
                       f"{len(bots)}; give one bot a seat")
    spec = GameSpec(f"play-{chosen.info.name}-{seed}", chosen.info.name, options, seed,
                    _seat_refs(bots, sandbox_builtins), limits=limits or Limits())
    logs = Path(log_dir) if log_dir is not None else None
    with pinned_here():  # the game and its bots on one CPU, as `tourney play`
        return play_game(spec, log_dir=logs, hide=logs_cover(logs) if logs is not None else ())


def _seat_refs(specs: Sequence[str], sandbox_builtins: bool) -> tuple[BotRef, ...]:
    """The bots of one game, named as ``tourney play`` names them (a second ``greedy`` is
    ``greedy#1``)."""
    from harness.bots.spec import parse_spec

    refs: list[BotRef] = []
    for seat, text in enumerate(specs):
        source = parse_spec(text)
        if sandbox_builtins and source.builtin and not source.sandboxed:
            text = str(source.in_sandbox())
        name = source.name if all(r.name != source.name for r in refs) else f"{source.name}#{seat}"
        refs.append(BotRef(name, text, source.sha256()))
    return tuple(refs)


# ----------------------------------------------------------------------------- leagues


def league(game: str, bots: Sequence[str], out: str | Path, *, games: int | None = None,
           seed: int | None = None, variant: Mapping[str, object] | None = None,
           gauntlet: bool = False, workers: int | None = None,
           progress: bool = False) -> RunSummary:
    """Play a round robin of ``bots`` on ``game`` into the results folder ``out``, as
    ``tourney league`` does (the first bot against each other with ``gauntlet``), and return
    the run's summary (``scheduled``, ``already``, ``played``, ``stored``, ``void``,
    ``seconds``, ``forfeits``).

    A bot is a spec, optionally named and with limits of its own (``"fast=mybot.py@move-time=
    0.2"``); ``games``: per pairing (default 10, in duplicate pairs); ``seed``: reproducible
    deals (for experiments); ``workers``: worker processes (default one a core; 0: in this
    process). Calling it again on the same folder plays only the games not stored yet.
    """
    from harness.league.service import League

    prepared = League.prepare(game, list(bots), out=Path(out), games=games, seed=seed,
                              variants=_variant_options(variant),
                              kind="gauntlet" if gauntlet else "round-robin")
    return prepared.run(workers=workers, progress=progress)


# ----------------------------------------------------------------------------- ratings


def _rated(folders: Sequence[str | Path], **options: Any) -> Any:
    """The ratings model of ``tourney ratings`` (:func:`harness.league.service.rate_folders`),
    read once: the tables are made from it, no text is parsed."""
    from harness.league.service import rate_folders

    if not folders:
        raise ApiError("name at least one results folder")
    return rate_folders([Path(f) for f in folders], **options)


def ratings(*folders: str | Path, anchor: str | None = None, level: float = 0.95,
            interval: str = "curvature") -> Table:
    """The leaderboard of the games stored in ``folders``, best first by Elo, as
    ``tourney ratings`` computes it: one row a bot with ``rank``, ``bot``, ``elo``,
    ``elo_low``, ``elo_high`` (the interval at ``level``), TrueSkill's ``mu``, ``sigma``,
    ``rating`` (mu - 3 sigma), ``games``, ``wins``, ``draws``, ``losses``, ``score`` (a draw
    counts half), the forfeits, ... . ``anchor``: the bot put at Elo 0 (default: the pool's
    mean); ``interval``: ``"curvature"`` or ``"bootstrap"``."""
    from harness.league import verdicts

    got = _rated(folders, anchor=anchor, level=level, interval=interval)
    first = ("rank", "bot", "elo", "elo_low", "elo_high", "elo_se")  # as tourney ratings shows
    rows = [{**{k: row[k] for k in first if k in row}, **row}
            for row in verdicts.leaderboard_rows(got.rated)]
    return Table(rows, [*verdicts.notes(got.rated), *got.notes])


def pairs(*folders: str | Path, level: float = 0.95) -> Table:
    """The pair statistics of every pairing (``tourney ratings --pairs``): one row a pairing,
    ``bot`` and ``opponent``, the ``pentanomial`` counts of ``bot``'s points over each
    duplicate pair (0, ½, 1, 1½, 2), ``score``, ``elo`` with its interval from the pair
    variance, ``los``, ... ."""
    from harness.league import verdicts

    got = _rated(folders, level=level)
    return Table([p.as_dict() for p in got.rated.pairs],
                 [*verdicts.notes(got.rated), *got.notes])
