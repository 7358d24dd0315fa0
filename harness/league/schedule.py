"""Round robins and gauntlets as deterministic lists of :class:`~harness.records.GameSpec`.

Every game's id and deal seed are hashes of the league seed, the *pairing* (the two bot names,
sorted, so the order bots are listed in does not matter) and the game's index within that
pairing. Nothing depends on the number of workers or on the order games finish, and growing a
league only adds ids: a new bot brings new pairings, a larger ``--games`` brings new indices.

Games come in **duplicate pairs**: indices ``2k`` and ``2k+1`` share one deal seed with the
seats swapped, so the luck of the deal cancels out. In a 4-player team game (War Chest 2 against
2) a pairing ``A`` v ``B`` seats ``A`` in seats 0 and 2 and ``B`` in seats 1 and 3 (teammates sit
opposite), and the duplicate game swaps the teams.

>>> from harness.records import BotRef
>>> specs = round_robin("battleline", {}, [BotRef("a", "random"), BotRef("b", "random")],
...                     games_per_pair=2, seed=1)
>>> [s.seats[0].name for s in specs], specs[0].seed == specs[1].seed
(['a', 'b'], True)
>>> specs[0].pair_id == specs[1].pair_id, specs[0].game_id != specs[1].game_id
(True, True)
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Sequence

from harness.records import BotRef, GameSpec, Limits

SEED_BITS = 62  # deal seeds fit a signed 64-bit Parquet column with room to spare


class ScheduleError(ValueError):
    """The league cannot be scheduled as asked (too few bots, duplicate names, ...)."""


def _digest(*parts: object) -> bytes:
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(text.encode()).digest()


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The pairing of two bots, independent of the order they were named in."""
    return (a, b) if a <= b else (b, a)


def deal_seed(league_seed: int, a: str, b: str, pair_index: int) -> int:
    """The deal seed shared by both games of one duplicate pair."""
    lo, hi = pair_key(a, b)
    raw = int.from_bytes(_digest("seed", league_seed, lo, hi, pair_index)[:8], "big")
    return raw >> (64 - SEED_BITS)


def pair_id(league_seed: int, a: str, b: str, pair_index: int) -> str:
    """The id of one duplicate pair (two games, one deal, seats swapped)."""
    lo, hi = pair_key(a, b)
    return "p" + _digest("pair", league_seed, lo, hi, pair_index).hex()[:15]


def game_id(league_seed: int, a: str, b: str, index: int) -> str:
    """The id of game ``index`` of pairing ``a``-``b``: "g" and 15 hex digits."""
    lo, hi = pair_key(a, b)
    return "g" + _digest("game", league_seed, lo, hi, index).hex()[:15]


def seating(a: BotRef, b: BotRef, index: int, players: int) -> tuple[BotRef, ...]:
    """Who sits where in game ``index`` of a pairing (``a`` sorts before ``b``).

    Even indices put the first bot of the pairing in seat 0, odd indices swap. With four players
    the bots play as teams in opposite seats (0 and 2 against 1 and 3).
    """
    first, second = (a, b) if index % 2 == 0 else (b, a)
    if players == 2:
        return (first, second)
    if players == 4:
        return (first, second, first, second)
    raise ScheduleError(f"cannot seat a pairing in a {players}-player game (2 or 4 players)")


def pairing_games(
    game: str,
    variant: dict[str, str],
    x: BotRef,
    y: BotRef,
    games_per_pair: int,
    seed: int,
    *,
    players: int = 2,
    league: str = "",
    limits: Limits | None = None,
) -> list[GameSpec]:
    """The ``games_per_pair`` games of one pairing, in index order."""
    if x.name == y.name:
        raise ScheduleError(f"a bot cannot be paired with itself ({x.name!r})")
    a, b = (x, y) if x.name <= y.name else (y, x)
    lim = limits if limits is not None else Limits()
    return [
        GameSpec(
            game_id=game_id(seed, a.name, b.name, i),
            game=game,
            variant=dict(variant),
            seed=deal_seed(seed, a.name, b.name, i // 2),
            seats=seating(a, b, i, players),
            pair_id=pair_id(seed, a.name, b.name, i // 2),
            league=league,
            limits=lim,
        )
        for i in range(games_per_pair)
    ]


def check_bots(bots: Sequence[BotRef], minimum: int = 2) -> None:
    """Refuse too few bots and repeated display names (a name is a bot's identity in results)."""
    if len(bots) < minimum:
        raise ScheduleError(
            f"a league needs at least {minimum} bots, got {len(bots)}; name more bots"
        )
    seen: set[str] = set()
    for bot in bots:
        if bot.name in seen:
            raise ScheduleError(
                f"two bots are named {bot.name!r}; give one another name with NAME=SPEC "
                f"(e.g. {bot.name}2={bot.spec})"
            )
        seen.add(bot.name)


MAX_GAMES = 1_000_000
"""The most games one league schedules: its schedule is held in memory (about 0.5 KB a game),
so a mistyped ``--games`` is refused before anything is allocated."""


def check_games(games_per_pair: int, pairings: int = 1) -> None:
    """Refuse fewer than one game per pair, and a schedule of more than :data:`MAX_GAMES`.

    >>> try:
    ...     check_games(10_000_000_000_000)
    ... except ScheduleError as exc:
    ...     print(exc)
    --games 10000000000000 would schedule 10,000,000,000,000 games (1 pairing), more than ...
    """
    if games_per_pair < 1:
        raise ScheduleError(f"--games must be at least 1 (got {games_per_pair})")
    total = games_per_pair * pairings
    if total > MAX_GAMES:
        raise ScheduleError(
            f"--games {games_per_pair} would schedule {total:,} games ({pairings:,} "
            f"pairing{'s' if pairings != 1 else ''}), more than the {MAX_GAMES:,} a league may "
            f"hold; give a smaller --games"
        )


def round_robin(
    game: str,
    variant: dict[str, str],
    bots: Sequence[BotRef],
    games_per_pair: int,
    seed: int,
    *,
    players: int = 2,
    league: str = "",
    limits: Limits | None = None,
) -> list[GameSpec]:
    """Every pair of ``bots`` plays ``games_per_pair`` games (duplicate pairs, seats swapped)."""
    check_bots(bots)
    ordered = sorted(bots, key=lambda bot: bot.name)
    return _games_of_pairings(itertools.combinations(ordered, 2), game, variant,
                              games_per_pair, seed, players, league, limits)


def gauntlet(
    game: str,
    variant: dict[str, str],
    challenger: BotRef,
    opponents: Sequence[BotRef],
    games_per_pair: int,
    seed: int,
    *,
    players: int = 2,
    league: str = "",
    limits: Limits | None = None,
) -> list[GameSpec]:
    """The challenger plays ``games_per_pair`` games against each opponent.

    The ids are those the same pairing gets in a round robin with the same seed, so a gauntlet
    and a round robin can share a results folder.
    """
    check_bots([challenger, *opponents])
    pairings = ((challenger, opponent) for opponent in sorted(opponents, key=lambda b: b.name))
    return _games_of_pairings(pairings, game, variant, games_per_pair, seed, players, league,
                              limits)


def _games_of_pairings(
    pairings: Iterable[tuple[BotRef, BotRef]],
    game: str,
    variant: dict[str, str],
    games_per_pair: int,
    seed: int,
    players: int,
    league: str,
    limits: Limits | None,
) -> list[GameSpec]:
    """The games of every pairing, in order (round robin and gauntlet alike)."""
    pairs = list(pairings)
    check_games(games_per_pair, len(pairs))
    specs: list[GameSpec] = []
    for x, y in pairs:
        specs.extend(pairing_games(game, variant, x, y, games_per_pair, seed,
                                   players=players, league=league, limits=limits))
    return specs
