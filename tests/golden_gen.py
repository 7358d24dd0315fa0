"""Golden playthroughs: fixed-seed random games written as text, compared line by line.

``python -m tests.golden_gen`` (``make golden``) rewrites every file in ``tests/golden/`` from
:data:`CASES`; ``tests/battleline/test_golden.py`` regenerates them in memory and fails with a
readable diff when a rules change alters a game. A case names a registered game, a variant dict
and a seed; the writer uses only the public game protocol (``games.registry``), so any game can
add cases here.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from games import registry

GOLDEN_DIR = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class Case:
    """One golden game: ``file`` is the output name (without ``.txt``)."""

    file: str
    game: str
    seed: int
    variant: dict[str, str] = field(default_factory=dict)
    board_every: int = 10  # draw the board every this many plies (and at the end)


CASES: list[Case] = [
    Case("battleline-standard-1", "battleline", 1),
    Case("battleline-standard-2", "battleline", 2),
    Case("battleline-no-tactics-3", "battleline", 3, {"rules": "no-tactics"}),
    Case("battleline-advanced-4", "battleline", 4, {"rules": "advanced"}),
    Case("battleline-schotten-totten-5", "battleline", 5, {"rules": "schotten-totten"}),
    Case("battleline-3p-standard-1", "battleline", 1, {"players": "3"}),
    Case("battleline-3p-standard-7", "battleline", 7, {"players": "3"}),
    Case("battleline-3p-no-tactics-4", "battleline", 4, {"players": "3", "rules": "no-tactics"}),
    Case("battleline-3p-advanced-3", "battleline", 3, {"players": "3", "rules": "advanced"}),
    Case("warchest-2p-random-9", "warchest", 9, board_every=40),
    Case("warchest-2p-draft-4", "warchest", 4, {"setup": "draft"}, board_every=40),
    Case("warchest-4p-35", "warchest", 35, {"players": "4"}, board_every=40),
]


def play_case(case: Case) -> str:
    """The playthrough text of one case: header, one line per ply, boards, the result."""
    game = registry.get(case.game)
    info = game.info
    variant = info.resolve_variant(case.variant)
    state = game.new_game(case.seed, **variant)
    rng = random.Random(case.seed)
    lines = [
        f"# game: {info.name}  rules_version: {info.rules_version}",
        f"# variant: {' '.join(f'{k}={v}' for k, v in sorted(variant.items())) or '-'}",
        f"# seed: {case.seed}  policy: uniform random over legal_actions(), "
        f"random.Random({case.seed})",
        "",
        str(state),
        "",
    ]
    ply = 0
    while not state.is_terminal():
        seat = state.current_player
        action = rng.choice(state.legal_actions())
        state.apply(action)
        ply += 1
        lines.append(f"{ply:4d}  seat {seat}  {action}")
        if ply % case.board_every == 0 and not state.is_terminal():
            lines += ["", str(state), ""]
    ended = state.end()
    assert ended is not None
    lines += [
        "",
        str(state),
        "",
        f"# end: {ended[0].value}: {ended[1]}",
        f"# returns: {state.returns()}  scores: {state.scores()}  decisions: {ply}",
    ]
    return "\n".join(lines) + "\n"


def path_of(case: Case) -> Path:
    return GOLDEN_DIR / f"{case.file}.txt"


def main() -> int:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for case in CASES:
        path = path_of(case)
        path.write_text(play_case(case))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
