"""A small policy over the fixed action spaces, in numpy: what a trained agent brings to a
league.

:class:`LinearPolicy` scores every legal action of a seat's observation tensor with a low-rank
linear model (``logits = V[a] · (x U) + b[a]``, rank :data:`RANK`), so its weights stay small
even for War Chest's large action space. It is saved as one ``.npz`` file that names the game,
its action space and the version of the space's order; a bot directory holds that file and a
few lines of loader (:data:`LOADER`), and runs sandboxed like any bot (it imports ``games`` and
numpy, which every bot may). Training is in :mod:`harness.envs.selfplay`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from games.interop.actions import SPACE_VERSION, ActionSpace, action_space
from games.interop.tensors import Encoder, encoder

RANK: Final = 16
Floats = npt.NDArray[np.float64]

#: The bot directory's entry module: loads ``policy.npz`` beside it and plays its best action.
LOADER: Final = '''"""A policy trained by self-play (docs/research.md), played greedily."""

from pathlib import Path

from games.interop.policy import LinearPolicy


class PolicyBot:
    def __init__(self):
        self.policy = LinearPolicy.load(Path(__file__).with_name("policy.npz"))

    def act(self, observation, legal_actions):
        return self.policy.choose(observation, legal_actions)
'''


class LinearPolicy:
    """A softmax policy over legal actions, linear in the observation tensor."""

    def __init__(self, game: str, variant: Mapping[str, str], u: Floats, v: Floats,
                 b: Floats) -> None:
        self.game = game
        self.variant = dict(variant)
        self.space: ActionSpace = action_space(game, variant)
        self.encoder: Encoder = encoder(game, variant)
        if u.shape != (self.encoder.size, v.shape[1]) or v.shape[0] != self.space.size:
            raise ValueError(f"weights of shape {u.shape}, {v.shape} do not fit {self.space.name}"
                             f" ({self.encoder.size} inputs, {self.space.size} actions)")
        self.u, self.v, self.b = u, v, b

    @classmethod
    def new(cls, game: str, variant: Mapping[str, str], seed: int = 0,
            rank: int = RANK) -> LinearPolicy:
        """Small random weights."""
        rng = np.random.default_rng(seed)
        size, actions = encoder(game, variant).size, action_space(game, variant).size
        return cls(game, variant, rng.normal(0, 0.05, (size, rank)),
                   rng.normal(0, 0.05, (actions, rank)), np.zeros(actions))

    def probabilities(self, x: npt.NDArray[np.float32], legal: list[int]
                      ) -> tuple[Floats, Floats]:
        """The softmax over the ``legal`` indices for tensor ``x``, and the hidden vector."""
        h = x @ self.u
        logits = self.v[legal] @ h + self.b[legal]
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum(), h

    def choose(self, observation: Mapping[str, Any], legal_actions: list[str]) -> str:
        """The most probable legal action (a bot's ``act``)."""
        legal = self.space.indices(legal_actions)
        p, _ = self.probabilities(self.encoder.encode(observation), legal)
        return self.space.action(legal[int(np.argmax(p))])

    def save(self, path: Path) -> None:
        meta = {"game": self.game, "variant": self.variant, "space": self.space.name,
                "space_version": SPACE_VERSION}
        with path.open("wb") as out:
            np.savez_compressed(out, u=self.u.astype(np.float32), v=self.v.astype(np.float32),
                                b=self.b.astype(np.float32), meta=np.array(json.dumps(meta)))

    @classmethod
    def load(cls, path: Path) -> LinearPolicy:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            if meta["space_version"] != SPACE_VERSION:
                raise ValueError(f"{path} was trained on action space version "
                                 f"{meta['space_version']}, this tourney has {SPACE_VERSION}")
            return cls(meta["game"], meta["variant"], data["u"].astype(np.float64),
                       data["v"].astype(np.float64), data["b"].astype(np.float64))

    def write_bot(self, directory: Path, name: str = "") -> Path:
        """A bot directory playing this policy: ``bot.py``, ``policy.npz`` (and ``bot.toml``
        naming it, when ``name`` is given)."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "bot.py").write_text(LOADER, encoding="utf-8")
        self.save(directory / "policy.npz")
        if name:
            (directory / "bot.toml").write_text(f'name = "{name}"\n', encoding="utf-8")
        return directory


__all__ = ["LOADER", "RANK", "LinearPolicy"]
