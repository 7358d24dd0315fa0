"""The weights of a learned judgement (``mcts``'s, per game), and the check that a weights file
fits the features the code reads.

A weights file (``agents/<game>_value.json``, written by ``make learn``) names the features it
was fit on, in order, and holds a *probe*: the features of a few fixed positions as the code
that fit it read them. Reading the file checks both against the code that will use it, so a
file fit on other features, or on features whose reading has since changed under the same
names, is refused with one line naming the file and the command that fits it again
(:class:`WeightsMismatch`), rather than judging positions with weights that mean something
else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROBE_DIGITS = 6  # the probe's values are stored and compared rounded to this many places


class WeightsMismatch(ValueError):
    """A weights file that does not fit the features the code reads."""


@dataclass(frozen=True)
class Weights:
    """A logistic model over a game's features: each feature's weight at the start of a game
    (``base``) and its change by the end (``late``, times the stage), and a constant."""

    base: tuple[float, ...]
    late: tuple[float, ...]
    constant: float

    def logit(self, values: Sequence[float], stage: float) -> float:
        z = self.constant
        for value, base, late in zip(values, self.base, self.late, strict=True):
            z += value * (base + late * stage)
        return z


def probe_values(rows: Sequence[Sequence[float]]) -> list[list[float]]:
    """Features of the probe positions as a weights file stores them (rounded)."""
    return [[round(float(v), PROBE_DIGITS) for v in row] for row in rows]


def read_weights(path: Path, features: Sequence[str], fix: str,
                 probe: Sequence[Sequence[float]] | None = None) -> Weights:
    """The weights in ``path``, checked against ``features`` (their names, in order) and, when
    the file holds a probe, against ``probe`` (the features of the same positions read by this
    code). ``fix`` is the command that writes the file again."""
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        names = tuple(data["features"])
        weights = Weights(tuple(float(v) for v in data["base"]),
                          tuple(float(v) for v in data["late"]), float(data["constant"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise WeightsMismatch(f"{path}: not a weights file of the learned judgement ({exc}); "
                              f"fit it again with `{fix}`") from None
    if names != tuple(features):
        raise WeightsMismatch(f"{path}: its features {list(names)} are not the "
                              f"{list(features)} the code reads; fit it again with `{fix}`")
    if len(weights.base) != len(names) or len(weights.late) != len(names):
        raise WeightsMismatch(f"{path}: {len(weights.base)} and {len(weights.late)} weights for "
                              f"{len(names)} features; fit it again with `{fix}`")
    stored = data.get("probe")
    if stored is not None and probe is not None and stored != probe_values(probe):
        raise WeightsMismatch(f"{path}: it was fit on features read differently from how the "
                              f"code reads them now (its probe positions differ); fit it "
                              f"again with `{fix}`")
    return weights
