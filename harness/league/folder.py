"""A results folder, owned in one place: its paths, its configuration file, a new league's
configuration with its secret key, the copy of the configuration that may be shown to others,
and hiding the folder from bots.

Layout of a results folder (the batch files are the store's, :mod:`harness.league.store`)::

    league.json   the configuration (harness.league.config), readable by its owner only:
                  it holds the secret key every deal and game id derives from
    games/        one row per game, in batch files
    moves/        one row per decision, in batch files
    quarantine/   damaged or orphaned batch files moved aside
    logs/         each bot's captured output, per game and seat
    .lock         held while a league writes here

Every other module asks a :class:`ResultsFolder` and never names the configuration file: a
league, a living league, a final stage and a competition's human games are all made by
:meth:`ResultsFolder.new_config`, so a key is minted in one place, and the key leaves the
folder only through :attr:`~harness.league.config.LeagueConfig.key_bytes` (to deal) and never
through :meth:`ResultsFolder.public_config` or :func:`public_json` (to publish).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from harness.league.config import GameChoice, LeagueConfig, StoreError
from harness.records import BotRef, Limits

CONFIG_FILE = "league.json"
KEY_FIELD = "key"  # the configuration's field that holds the secret key (hex)


def write_atomic(final: Path, write: Callable[[IO[bytes]], Any]) -> None:
    """Write ``final`` via a hidden temporary file: write, fsync, rename. Nothing partial stays."""
    tmp = final.with_name(f".{final.name}.tmp")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """``data`` as JSON, atomically, readable by its owner only (a configuration holds the
    league's secret key)."""
    text = (json.dumps(data, indent=2, sort_keys=False) + "\n").encode()

    def write(fh: IO[bytes]) -> None:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(text)

    write_atomic(path, write)


def public_json(config: LeagueConfig) -> dict[str, Any]:
    """``config`` as JSON without its secret key (a report, a download: made to be shared)."""
    data = config.to_json()
    del data[KEY_FIELD]
    return data


@dataclass(frozen=True)
class ResultsFolder:
    """The results folder at ``root`` (which need not exist yet)."""

    root: Path

    # -- paths

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG_FILE

    @property
    def games(self) -> Path:
        return self.root / "games"

    @property
    def moves(self) -> Path:
        return self.root / "moves"

    @property
    def quarantine(self) -> Path:
        return self.root / "quarantine"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    @staticmethod
    def is_config_file(path: Path) -> bool:
        """Whether ``path`` is a results folder's configuration (at any depth of a tree)."""
        return path.name == CONFIG_FILE

    # -- the configuration

    def holds_league(self) -> bool:
        """Whether a league was started here (its configuration exists)."""
        return self.config_path.exists()

    def read_config(self) -> LeagueConfig:
        """The stored configuration; :class:`StoreError` naming the fix when the folder holds
        none, or one that cannot be read."""
        path = self.config_path
        if not path.exists():
            raise StoreError(f"{self.root} is not a results folder (no {CONFIG_FILE}); "
                             f"pass the folder given to `tourney league --out`")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StoreError(f"{path} cannot be read ({why}); it must be the {CONFIG_FILE} "
                             f"file tourney wrote: restore it or start a new folder") from None
        try:
            return LeagueConfig.from_json(json.loads(text))
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"{path} is damaged ({exc}); restore it or start a new "
                             f"folder") from exc

    def stored_config(self) -> LeagueConfig | None:
        """The stored configuration, or None when no league was started here."""
        return self.read_config() if self.holds_league() else None

    def write_config(self, config: LeagueConfig) -> None:
        """Store ``config`` (atomically; readable by the folder's owner only)."""
        write_json_atomic(self.config_path, config.to_json())

    def public_config(self) -> tuple[str, dict[str, Any]]:
        """The stored configuration file's name and its content without the secret key, as
        written (fields an older or newer tourney wrote included)."""
        data = json.loads(self.config_path.read_text(encoding="utf-8"))
        data.pop(KEY_FIELD, None)
        return CONFIG_FILE, data

    def new_config(self, game: GameChoice, *, kind: str, games_per_pair: int,
                   bots: Sequence[BotRef] = (), seed: int | None = None,
                   stored: LeagueConfig | None = None, name: str | None = None,
                   limits: Limits | None = None, schedule: dict[str, Any] | None = None,
                   **more: Any) -> LeagueConfig:
        """The configuration of a league of ``game`` in this folder, with its secret key.

        A league already ``stored`` here keeps its name, seed, key and deal scheme (unless
        ``seed`` asks for another, which the store then refuses with the fix); a new one gets
        a random key, or with ``seed`` one derived from it. ``name``: for a new league
        (default: the folder's name). ``more``: the other fields of :class:`LeagueConfig`.
        """
        from harness.league import schedule as deals

        if stored is not None and (seed is None or seed == stored.seed):
            seed, key, scheme = stored.seed, stored.key, stored.deal_scheme
        else:
            minted = deals.key_from_seed(seed) if seed is not None else deals.new_key()
            key, scheme = minted.hex(), deals.KEYED
        if stored is not None:
            name = stored.name
        return LeagueConfig(
            name=name if name is not None else self.root.resolve().name, game=game.name,
            variant=dict(game.variant), rules_version=game.rules_version, seed=seed,
            games_per_pair=games_per_pair, bots=list(bots), limits=limits or Limits(),
            kind=kind, players=game.players,
            schedule=schedule if schedule is not None else {"kind": kind},
            key=key, deal_scheme=scheme, **more)

    # -- bots

    def hide_from_bots(self) -> None:
        """Cover the folder in every sandboxed bot's view from now on (in this process): its
        configuration's key would let a bot rebuild the deals."""
        from harness.bots.sandbox import hide_from_bots

        hide_from_bots(self.root)

    def cover(self) -> tuple[Path, ...]:
        """What a referee playing into this folder hides from its bots (``play_game(hide=)``,
        in the process that plays)."""
        return (self.root,)


def load_config(root: Path) -> LeagueConfig:
    """The configuration of the results folder ``root`` (:meth:`ResultsFolder.read_config`)."""
    return ResultsFolder(root).read_config()


def logs_cover(log_dir: Path) -> tuple[Path, ...]:
    """What to hide from bots besides their logs folder ``log_dir``: the results folder it lies
    in, when it lies in one (``tourney play --log-dir FOLDER/logs``)."""
    folder = ResultsFolder(log_dir.parent)
    return folder.cover() if folder.holds_league() else ()
