"""Round robins, gauntlets and free-for-alls as deterministic lists of
:class:`~harness.records.GameSpec`.

Every game's id and deal seed are keyed hashes (HMAC-SHA256) of the league's secret key, the
*group* of bots that meet (two bots for a pairing, three for a free-for-all triple; the names
sorted, so the order bots are listed in does not matter) and the game's index within that group.
Nothing depends on the number of workers or on the order games finish, and growing a league only
adds ids: a new bot brings new groups, a larger ``--games`` brings new indices.

The key is what keeps deals secret: 128 random bits made with the league (:func:`new_key`),
kept in ``league.json``, which bots never see. ``--seed N`` derives the key from ``N``
(:func:`key_from_seed`) for reproducible experiments; a small seed can be guessed, so a
competition should not use one. Leagues stored before keys existed keep their derivation,
plain SHA-256 of the league seed (scheme ``sha256-v0``, ``key=None`` here).

Games come in **deal sets** that share one deal seed and one ``pair_id``:

* a **duplicate pair** (two-sided games): indices ``2k`` and ``2k+1`` with the seats swapped, so
  the luck of the deal cancels out. In a 4-player team game (War Chest 2 against 2) a pairing
  ``A`` v ``B`` seats ``A`` in seats 0 and 2 and ``B`` in seats 1 and 3 (teammates sit
  opposite), and the duplicate game swaps the teams;
* a **free-for-all set** (games of three or more sides, e.g. Battle Line for 3): indices
  ``6k`` to ``6k+5`` seat the triple in all ``3! = 6`` orders, so every bot plays the deal
  from every seat twice; ``--games`` then counts games per triple and must be a multiple of 6.

Which it is, and which seats form a side, the game declares
(:meth:`games.protocol.GameInfo.sides_of`); the schedule knows no game by name.

Games are played in **rounds**: round ``r`` holds deal set ``r`` of every group, the sets of a
round in a shuffled but fixed order (sorted by their keyed ``pair_id``), so a league stopped
after any round has the same number of games in every group. The order of play is all that
rounds change: ids, seeds and what is stored stay the same, and a resumed league plays what is
missing in the same order.

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
import hmac
import itertools
import secrets
from collections.abc import Iterable, Sequence

from harness.records import BotRef, GameSpec, Limits

SEED_BITS = 62  # deal seeds fit a signed 64-bit Parquet column with room to spare
KEYED = "hmac-v1"  # deal scheme of leagues with a secret key
LEGACY = "sha256-v0"  # deal scheme of leagues stored before keys: hashes of the league seed
KEY_BYTES = 16


class ScheduleError(ValueError):
    """The league cannot be scheduled as asked (too few bots, duplicate names, ...)."""


def _digest(*parts: object, key: bytes | None = None) -> bytes:
    """SHA-256 of the parts (legacy, ``key=None``) or their HMAC under the league's key."""
    text = "\x1f".join(str(p) for p in parts).encode()
    if key is None:
        return hashlib.sha256(text).digest()
    return hmac.new(key, text, hashlib.sha256).digest()


def new_key() -> bytes:
    """A league's secret key: 128 random bits."""
    return secrets.token_bytes(KEY_BYTES)


def key_from_seed(seed: int) -> bytes:
    """The key of a league started with ``--seed``: reproducible, hence guessable when small
    (for experiments, not competitions).

    >>> key_from_seed(0) == key_from_seed(0) != key_from_seed(1)
    True
    """
    return hashlib.sha256(f"tourney-league-key\x1f{seed}".encode()).digest()[:KEY_BYTES]


def _parts(tag: str, league_seed: int, names: Sequence[str], index: int,
           key: bytes | None) -> tuple[object, ...]:
    """What a hash covers: the tag, the group's sorted names and an index (and, in the legacy
    scheme, the league seed). A pair's parts are exactly those of the first tourney with keys."""
    group = sorted(names)
    return (tag, *group, index) if key else (tag, league_seed, *group, index)


def group_deal_seed(league_seed: int, names: Sequence[str], deal_index: int,
                    key: bytes | None = None) -> int:
    """The deal seed shared by the games of deal set ``deal_index`` of a group of bots."""
    raw = int.from_bytes(_digest(*_parts("seed", league_seed, names, deal_index, key),
                                 key=key)[:8], "big")
    return raw >> (64 - SEED_BITS)


def keyed_seed(key: bytes, tag: str, name: str) -> int:
    """A deal seed outside any schedule (a human's game on a competition server, say): the
    HMAC of ``tag`` and ``name`` under the league's key, so secret while the key is.

    >>> keyed_seed(b"k" * 16, "human-deal", "human-1") != keyed_seed(b"k" * 16, "human-deal",
    ...                                                              "human-2")
    True
    """
    raw = int.from_bytes(_digest(f"keyed:{tag}", name, key=key)[:8], "big")
    return raw >> (64 - SEED_BITS)


def group_pair_id(league_seed: int, names: Sequence[str], deal_index: int,
                  key: bytes | None = None) -> str:
    """The id of deal set ``deal_index`` of a group (a duplicate pair, or a free-for-all set of
    six games): "p" and 15 hex digits."""
    return "p" + _digest(*_parts("pair", league_seed, names, deal_index, key),
                         key=key).hex()[:15]


def group_game_id(league_seed: int, names: Sequence[str], index: int,
                  key: bytes | None = None) -> str:
    """The id of game ``index`` of a group of bots: "g" and 15 hex digits."""
    return "g" + _digest(*_parts("game", league_seed, names, index, key), key=key).hex()[:15]


def deal_seed(league_seed: int, a: str, b: str, pair_index: int, key: bytes | None = None) -> int:
    """The deal seed shared by both games of one duplicate pair (keyed when ``key`` is given;
    the league seed then takes no part)."""
    return group_deal_seed(league_seed, (a, b), pair_index, key)


def pair_id(league_seed: int, a: str, b: str, pair_index: int, key: bytes | None = None) -> str:
    """The id of one duplicate pair (two games, one deal, seats swapped)."""
    return group_pair_id(league_seed, (a, b), pair_index, key)


def game_id(league_seed: int, a: str, b: str, index: int, key: bytes | None = None) -> str:
    """The id of game ``index`` of pairing ``a``-``b``: "g" and 15 hex digits."""
    return group_game_id(league_seed, (a, b), index, key)


def sides(game: str, players: int) -> list[list[int]]:
    """The seats of each side of ``game`` with ``players`` (as the game declares them,
    :meth:`games.protocol.GameInfo.sides_of`): two sides make pairings, more a free-for-all."""
    from games import registry

    try:
        info = registry.get(game).info
    except registry.UnknownGame as exc:
        raise ScheduleError(str(exc)) from None
    if players not in info.players:
        raise ScheduleError(f"{info.title} is played by {' or '.join(map(str, info.players))} "
                            f"players, not {players}")
    return info.sides_of(players)


def team_splits(group: Sequence[object], per_side: int) -> list[tuple[tuple[int, ...],
                                                                       tuple[int, ...]]]:
    """The ways to split a group of ``2 * per_side`` bots into two teams (indices into the
    group; the first team holds the group's first bot): 3 for four bots."""
    rest = range(1, len(group))
    return [((0, *first), tuple(i for i in rest if i not in first))
            for first in itertools.combinations(rest, per_side - 1)]


def mixed_seating(group: Sequence[BotRef], index: int, seats: Sequence[Sequence[int]]
                  ) -> tuple[BotRef, ...]:
    """Who sits where in game ``index`` of a group of mixed teams (two sides of ``k`` seats,
    ``2k`` bots sorted by name): every split of the group into two teams plays the deal as a
    duplicate pair, the teams' sides swapped (six games a deal for four bots)."""
    splits = team_splits(group, len(seats[0]))
    first, second = splits[index % (2 * len(splits)) // 2]
    if index % 2:
        first, second = second, first
    table: list[BotRef | None] = [None] * sum(len(side) for side in seats)
    for team, side in ((first, seats[0]), (second, seats[1])):
        for member, seat in zip(team, side, strict=True):
            table[seat] = group[member]
    return tuple(bot for bot in table if bot is not None)


def check_mixed(seats: Sequence[Sequence[int]], game: str, players: int) -> None:
    """Refuse mixed teams where the game has no teams of two sides."""
    if len(seats) != 2 or len(seats[0]) < 2 or len(seats[0]) != len(seats[1]):
        raise ScheduleError(f"mixed teams need a game of two teams: {game} with {players} "
                            f"players has {len(seats)} sides of {len(seats[0])} seat(s); "
                            f"leave out --mixed-teams")


def set_size(n_sides: int) -> int:
    """Games per deal set: a duplicate pair (2) between two sides, every seating order of the
    group (n_sides!) in a free-for-all: 6 for three."""
    return 2 if n_sides == 2 else len(list(itertools.permutations(range(n_sides))))


def seating(group: Sequence[BotRef], index: int, seats: Sequence[Sequence[int]]
            ) -> tuple[BotRef, ...]:
    """Who sits where in game ``index`` of a group (its bots sorted by name, one a side): each
    bot takes every seat of its side. Two sides: even indices put the group's first bot on the
    first side, odd ones swap (in War Chest's 2 against 2, ``A`` takes seats 0 and 2). More
    sides: the group in side order ``permutations[index % n!]``, so every bot plays each deal
    from every side."""
    if len(group) != len(seats):
        raise ScheduleError(f"cannot seat {len(group)} bots at {len(seats)} sides")
    orders = [(0, 1), (1, 0)] if len(seats) == 2 else list(itertools.permutations(
        range(len(seats))))
    order = orders[index % len(orders)]
    table: list[BotRef | None] = [None] * sum(len(side) for side in seats)
    for bot_at, side in zip(order, seats, strict=True):
        for seat in side:
            table[seat] = group[bot_at]
    return tuple(bot for bot in table if bot is not None)


def _group_games(
    game: str,
    variant: dict[str, str],
    group: Sequence[BotRef],
    indices: Iterable[int],
    seed: int,
    players: int,
    league: str,
    limits: Limits | None,
    key: bytes | None,
    mixed: bool = False,
) -> list[GameSpec]:
    """Games ``indices`` of one group of bots (sorted by name), in that order."""
    names = [bot.name for bot in group]
    seats = sides(game, players)
    size = 2 * len(team_splits(group, len(seats[0]))) if mixed else set_size(len(seats))
    place = mixed_seating if mixed else seating
    lim = limits if limits is not None else Limits()
    return [
        GameSpec(
            game_id=group_game_id(seed, names, i, key),
            game=game,
            variant=dict(variant),
            seed=group_deal_seed(seed, names, i // size, key),
            seats=place(group, i, seats),
            pair_id=group_pair_id(seed, names, i // size, key),
            league=league,
            limits=lim,
        )
        for i in indices
    ]


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
    key: bytes | None = None,
) -> list[GameSpec]:
    """The ``games_per_pair`` games of one pairing, in index order (keyed by ``key``; legacy
    leagues pass None and their ``seed``)."""
    if x.name == y.name:
        raise ScheduleError(f"a bot cannot be paired with itself ({x.name!r})")
    a, b = (x, y) if x.name <= y.name else (y, x)
    return _group_games(game, variant, (a, b), range(games_per_pair), seed, players, league,
                        limits, key)


def deal_set(
    game: str,
    variant: dict[str, str],
    x: BotRef,
    y: BotRef,
    deal_index: int,
    *,
    players: int = 2,
    league: str = "",
    limits: Limits | None = None,
    key: bytes | None = None,
) -> list[GameSpec]:
    """Deal set ``deal_index`` of a pairing alone: the duplicate pair a living league
    (:mod:`harness.arena`) chose to play next, with the ids and deal a round robin of the same
    bots and key would give it."""
    if x.name == y.name:
        raise ScheduleError(f"a bot cannot be paired with itself ({x.name!r})")
    if len(sides(game, players)) != 2:
        raise ScheduleError("a deal set of a pairing needs a game of two sides")
    a, b = (x, y) if x.name <= y.name else (y, x)
    size = 2
    return _group_games(game, variant, (a, b), range(size * deal_index, size * deal_index + size),
                        0, players, league, limits, key)


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


def check_sets(games_per_pair: int, n_sides: int, players: int) -> None:
    """Refuse a free-for-all ``--games`` that is not whole sets (six for three sides)."""
    size = set_size(n_sides)
    if n_sides > 2 and games_per_pair % size:
        lower = games_per_pair // size * size
        fix = f"{lower} or {lower + size}" if lower else f"{size}"
        raise ScheduleError(
            f"--games counts games per triple in a {players}-player league and must be a "
            f"multiple of {size} (each deal is played with the seats in all {size} orders); "
            f"got {games_per_pair}, use {fix}"
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
    key: bytes | None = None,
    mixed_teams: bool = False,
) -> list[GameSpec]:
    """Every pair of ``bots`` plays ``games_per_pair`` games (duplicate pairs, seats swapped);
    with 3 players every triple plays that many (free-for-all sets, seats in every order).
    ``mixed_teams`` (a game of two teams): every four bots (for teams of two) play that many,
    each split into two teams playing each deal from both sides."""
    seats = sides(game, players)
    n = len(seats)
    if mixed_teams:
        check_mixed(seats, game, players)
        n = 2 * len(seats[0])
    check_bots(bots, n)
    ordered = sorted(bots, key=lambda bot: bot.name)
    groups = itertools.combinations(ordered, n)
    return _games_in_rounds(groups, game, variant, games_per_pair, seed, players, league,
                            limits, key, mixed_teams)


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
    key: bytes | None = None,
) -> list[GameSpec]:
    """The challenger plays ``games_per_pair`` games against each opponent (with 3 players:
    with each pair of opponents).

    The ids are those the same group gets in a round robin with the same seed, so a gauntlet
    and a round robin can share a results folder.
    """
    n = len(sides(game, players))
    check_bots([challenger, *opponents], n)
    others = itertools.combinations(sorted(opponents, key=lambda b: b.name), n - 1)
    groups = (sorted((challenger, *rest), key=lambda b: b.name) for rest in others)
    return _games_in_rounds(groups, game, variant, games_per_pair, seed, players, league,
                            limits, key)


def _games_in_rounds(
    groups: Iterable[Sequence[BotRef]],
    game: str,
    variant: dict[str, str],
    games_per_pair: int,
    seed: int,
    players: int,
    league: str,
    limits: Limits | None,
    key: bytes | None = None,
    mixed: bool = False,
) -> list[GameSpec]:
    """The games of every group, round by round (round robin and gauntlet alike).

    Round ``r`` holds deal set ``r`` of every group (the last round of an odd ``--games`` one
    game each); within a round the sets are ordered by their pair id, a keyed hash, hence a
    fixed shuffle that adding a bot only interleaves new sets into.
    """
    ordered = [tuple(sorted(g, key=lambda b: b.name)) for g in groups]
    check_games(games_per_pair, len(ordered))
    seats = sides(game, players)
    if mixed:
        size = 2 * len(team_splits(ordered[0], len(seats[0]))) if ordered else 2
        if games_per_pair % size:
            raise ScheduleError(f"--games counts games per {2 * len(seats[0])} bots with mixed "
                                f"teams and must be a multiple of {size} (each deal is played "
                                f"by every split into teams, from both sides); got "
                                f"{games_per_pair}")
    else:
        check_sets(games_per_pair, len(seats), players)
        size = set_size(len(seats))
    for group in ordered:
        if len({bot.name for bot in group}) < len(group):
            raise ScheduleError(f"a bot cannot play against itself ({group[0].name!r})")
    specs: list[GameSpec] = []
    for start in range(0, games_per_pair, size):
        indices = range(start, min(start + size, games_per_pair))
        sets = [_group_games(game, variant, group, indices, seed, players, league, limits, key,
                             mixed) for group in ordered]
        sets.sort(key=lambda games: games[0].pair_id)
        for games in sets:
            specs.extend(games)
    return specs
