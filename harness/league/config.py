"""A league's configuration: what ``league.json`` holds, and whether a run may continue a folder.

:class:`LeagueConfig` is written to the results folder when a league starts and read back to
resume it (:class:`harness.league.folder.ResultsFolder` reads and writes it);
:func:`merge_configs` decides whether new options continue the stored league (more bots, more
games) or would mix different leagues in one folder (:class:`LeagueMismatch`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.records import BotRef, Limits, TourneyError, tourney_version

FORMAT = 1  # version of the results-folder layout


class StoreError(TourneyError):
    """A results folder cannot be used as asked; the message names the problem and the fix."""


class LeagueMismatch(StoreError):
    """The folder holds a different league (game, variant, rules version, seed, bot code)."""


@dataclass
class GameChoice:
    """The game a league plays: the registered name, its full variant and player count."""

    name: str
    variant: dict[str, str]
    rules_version: str
    players: int


@dataclass
class LeagueConfig:
    """What a results folder holds: written to ``league.json``."""

    name: str
    game: str
    variant: dict[str, str]
    rules_version: str
    seed: int | None  # --seed, or None: the key is random
    games_per_pair: int
    bots: list[BotRef]
    limits: Limits = field(default_factory=Limits)
    kind: str = "round-robin"  # or "gauntlet", or "mixed" once both have written here
    challenger: str = ""  # the gauntlet's challenger
    players: int = 2
    schedule: dict[str, Any] = field(default_factory=dict)  # the last run: kind, bots, games
    tourney_version: str = field(default_factory=tourney_version)
    # the secret key every deal seed and game id derives from (hex), and the derivation;
    # leagues stored before keys existed have none and keep the legacy scheme
    key: str = ""
    deal_scheme: str = "sha256-v0"
    isolation: dict[str, Any] = field(default_factory=dict)  # what confined bots, last run
    # a bot's own limits laid over ``limits`` (field names of Limits), by bot name
    bot_limits: dict[str, dict[str, float]] = field(default_factory=dict)
    # the HTML report kept up to date while the league runs (`--report`), relative to the
    # folder; empty: none. Remembered, so a resume keeps it.
    report: str = ""

    @property
    def key_bytes(self) -> bytes | None:
        """The key for :mod:`harness.league.schedule` (None: the legacy, unkeyed scheme)."""
        return bytes.fromhex(self.key) if self.deal_scheme != "sha256-v0" else None

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["format"] = FORMAT
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LeagueConfig:
        """The configuration ``league.json`` holds; ValueError naming the first field that is
        not what tourney wrote (a hand edit, a damaged file, a newer tourney's layout)."""
        _check_fields(data)
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["bots"] = [BotRef(**b) for b in data.get("bots", [])]
        known["limits"] = Limits(**data.get("limits", {}))
        known["variant"] = {str(k): str(v) for k, v in data.get("variant", {}).items()}
        return cls(**known)

    def bot(self, name: str) -> BotRef | None:
        return next((b for b in self.bots if b.name == name), None)

    def limits_for(self, name: str) -> Limits:
        """The limits bot ``name`` plays under: the league's, with its own laid over them."""
        from harness.league.limits import apply_overrides

        return apply_overrides(self.limits, self.bot_limits.get(name, {}))


_SCHEMES = ("sha256-v0", "hmac-v1")


def _check_fields(data: Any) -> None:
    """The types and values tourney writes, field by field (see :meth:`LeagueConfig.from_json`)."""
    if not isinstance(data, dict):
        raise ValueError("it holds no JSON object")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise ValueError(f"\"format\": {fmt!r} is not this tourney's results layout "
                         f"({FORMAT}); read it with the tourney that wrote it")
    if not isinstance(data.get("report", ""), str):
        raise ValueError(f"\"report\" must be a string, not {data.get('report')!r}")
    for name in ("name", "game", "rules_version"):
        if not isinstance(data.get(name), str):
            raise ValueError(f"\"{name}\" must be a string, not {data.get(name)!r}")
    for name in ("games_per_pair", "players"):
        value = data.get(name, 2)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"\"{name}\" must be a whole number of at least 1, not {value!r}")
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise ValueError(f"\"seed\" must be a whole number or null, not {seed!r}")
    scheme = data.get("deal_scheme", "sha256-v0")
    if scheme not in _SCHEMES:
        raise ValueError(f"\"deal_scheme\" must be one of {', '.join(_SCHEMES)}, not {scheme!r}")
    key = data.get("key", "")
    if not isinstance(key, str) or (scheme != "sha256-v0" and (
            len(key) != 32 or any(c not in "0123456789abcdef" for c in key))):
        raise ValueError(f"\"key\" must be 32 lowercase hex digits for deal scheme {scheme}, "
                         f"not {key!r}")
    for name in ("bots", "variant", "limits"):
        expected = list if name == "bots" else dict
        if not isinstance(data.get(name, expected()), expected):
            raise ValueError(f"\"{name}\" must be a JSON {'list' if name == 'bots' else 'object'}")


def describe_variant(variant: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(variant.items())) or "(default rules)"


def merge_configs(stored: LeagueConfig, new: LeagueConfig, folder: Path) -> LeagueConfig:
    """The configuration after ``new`` joins ``stored``; refuses anything that would mix leagues.

    Adding bots and raising ``games_per_pair`` only add games. A different game, variant, rules
    version, seed, time limit or a changed bot file would mix incomparable results.
    """
    where = f"{folder} holds"
    fix = "use another --out folder"
    if stored.game != new.game:
        raise LeagueMismatch(f"{where} a {stored.game} league, not {new.game}; {fix}")
    if stored.variant != new.variant:
        raise LeagueMismatch(
            f"{where} games with variant {describe_variant(stored.variant)}, not "
            f"{describe_variant(new.variant)}; {fix}"
        )
    if stored.rules_version != new.rules_version:
        raise LeagueMismatch(
            f"{where} games played under {stored.game} rules {stored.rules_version}, but the "
            f"engine is now at rules {new.rules_version}; {fix} for the new rules"
        )
    if stored.seed != new.seed or (stored.key, stored.deal_scheme) != (new.key,
                                                                         new.deal_scheme):
        had = "a secret random key" if stored.seed is None else f"--seed {stored.seed}"
        asked = "a new random key" if new.seed is None else f"--seed {new.seed}"
        again = "leave out --seed" if stored.seed is None else f"pass --seed {stored.seed}"
        raise LeagueMismatch(
            f"{where} a league with {had}, not {asked}; {again} to continue it or {fix}"
        )
    if stored.limits != new.limits:
        was, now = asdict(stored.limits), asdict(new.limits)
        differ = [k for k in was if was[k] != now[k]]
        before, after = _options(was, differ), _options(now, differ)
        raise LeagueMismatch(
            f"{where} games played with {before}, not {after}; pass the same limits "
            f"to continue it or {fix}"
        )
    _check_bot_limits(stored, new, folder)
    bots = list(stored.bots)
    for bot in new.bots:
        old = stored.bot(bot.name)
        if old is None:
            bots.append(bot)
        elif old.sha256 != bot.sha256 and old.sha256:
            raise LeagueMismatch(
                f"bot {bot.name!r} changed since {folder} was started (its code hash differs); "
                f"give the new version another name (NAME=SPEC) or {fix}"
            )
        elif old.spec != bot.spec or old.sha256 != bot.sha256:
            # (a cmd: bot of a folder from before commands were hashed gets its hash now)
            bots[bots.index(old)] = bot
    kind = stored.kind if stored.kind == new.kind else "mixed"
    return LeagueConfig(
        name=stored.name,
        game=stored.game,
        variant=stored.variant,
        rules_version=stored.rules_version,
        seed=stored.seed,
        games_per_pair=max(stored.games_per_pair, new.games_per_pair),
        bots=bots,
        limits=stored.limits,
        kind=kind,
        challenger=new.challenger or stored.challenger,
        players=stored.players,
        schedule=new.schedule,
        tourney_version=new.tourney_version,
        key=stored.key,
        deal_scheme=stored.deal_scheme,
        isolation=new.isolation or stored.isolation,
        bot_limits={**new.bot_limits, **stored.bot_limits},
        report=new.report,  # prepare_league starts from the stored one
    )


def _options(limits: dict[str, Any], keys: list[str]) -> str:
    """Limits as the league's options write them (memory in MB); a limit no option sets (an
    older tourney's) by its field name."""
    from harness.league.limits import BY_FIELD, as_options

    unset = " ".join(f"{k}={limits[k]}" for k in keys if k not in BY_FIELD)
    return " ".join(filter(None, [as_options({k: limits[k] for k in keys}), unset]))


def _check_bot_limits(stored: LeagueConfig, new: LeagueConfig, folder: Path) -> None:
    """A bot already in the folder keeps its own limits (adding a bot brings its own)."""
    for bot in new.bots:
        if stored.bot(bot.name) is None:
            continue
        was, now = stored.bot_limits.get(bot.name, {}), new.bot_limits.get(bot.name, {})
        if was != now:
            from harness.league.limits import describe

            def show(own: dict[str, float]) -> str:
                return describe(own) or "none"

            raise LeagueMismatch(
                f"{folder} holds games of bot {bot.name!r} played with its own limits "
                f"{show(was)}, not {show(now)}; give it the same limits (NAME=SPEC@...) to "
                f"continue, leave it out of the command, or use another --out folder"
            )
