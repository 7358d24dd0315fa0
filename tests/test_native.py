"""The compiled engines (games/native.py) play exactly the games their sources play, and are
used only while they match those sources."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

import games.battleline.state as battleline_state
import games.warchest.state as warchest_state
from games import native, registry
from tests.patience import patience

ROOT = Path(__file__).resolve().parent.parent

CASES: list[tuple[str, dict[str, str], int]] = [
    ("battleline", {}, 8),
    ("battleline", {"rules": "no-tactics"}, 4),
    ("battleline", {"rules": "advanced"}, 4),
    ("battleline", {"rules": "schotten-totten"}, 4),
    ("battleline", {"players": "3"}, 4),
    ("warchest", {}, 3),
    ("warchest", {"players": "4"}, 2),
    ("warchest", {"setup": "draft"}, 2),
]


def fingerprints() -> dict[str, object]:
    """Per case, a digest of seeded random games: every legal-action list and action, and at
    every seventh decision the observation, a clone's JSON, a pickled copy's JSON and a
    ``sample_state`` drawn from the observation; then the returns. Also the engines' status."""
    out: dict[str, object] = {"status": native.status()}
    for name, variant, games in CASES:
        game = registry.get(name)
        digest = hashlib.sha256()
        for seed in range(games):
            state = game.new_game(seed, **variant)
            rng = random.Random(seed)
            step = 0
            while not state.is_terminal():
                legal = state.legal_actions()
                digest.update(repr(legal).encode())
                if step % 7 == 0:
                    seat = state.current_player
                    observation = state.observation(seat)
                    sample = game.sample_state(observation, random.Random(step))
                    for part in (observation, state.clone().to_json(),
                                 pickle.loads(pickle.dumps(state)).to_json(), sample.to_json()):
                        digest.update(json.dumps(part, sort_keys=True).encode())
                first = legal[0]
                action = first if first.startswith("claim") else rng.choice(legal)
                state.apply(action)
                step += 1
            digest.update(repr(state.returns()).encode())
        out[f"{name} {variant}"] = digest.hexdigest()
    return out


def _run(switch: str) -> dict[str, object]:
    env = {**os.environ, native.SWITCH: switch}
    code = ("import json; from tests.test_native import fingerprints; "
            "print(json.dumps(fingerprints()))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=patience(1200), check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_compiled_engines_play_the_same_games_as_their_sources() -> None:
    compiled, sources = _run("1"), _run("0")
    assert compiled.pop("status") == {g: "compiled" for g in native.GROUPS}, (
        "the engines are not compiled: run make setup (or make native)")
    assert sources.pop("status") == {g: f"from sources ({native.SWITCH}=0)" for g in native.GROUPS}
    assert compiled == sources


def test_this_test_run_uses_the_compiled_engines() -> None:
    # make test builds them first; a run from sources would hide a compiled-only defect
    assert native.status() == {g: "compiled" for g in native.GROUPS}
    for module in (battleline_state, warchest_state):
        assert str(module.__file__).endswith(".so"), module.__file__


# --- only a build that matches today's sources is used --------------------------------------


def _manifest(root: Path, sources: dict[str, str], files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / native.MANIFEST).write_text(json.dumps(
        {"groups": {"battleline": {"sources": sources, "files": files}},
         "failed": {"warchest": "the build failed: no compiler"}}))


def _sources(group: str) -> dict[str, str]:
    return {m: native.digest(native.source_of(m)) for m in native.modules_of(group)}


def test_a_build_of_todays_sources_is_served(tmp_path: Path) -> None:
    files = {m: f"{m}.so" for m in native.modules_of("battleline")}
    for rel in files.values():
        (tmp_path / rel).write_bytes(b"")
    _manifest(tmp_path, _sources("battleline"), files)
    served, found = native.examine(tmp_path)
    assert found == {"battleline": "compiled",
                     "warchest": "from sources (the build failed: no compiler)"}
    assert served == {m: tmp_path / rel for m, rel in files.items()}


def test_an_edited_source_is_not_shadowed_by_its_old_build(tmp_path: Path) -> None:
    sources = _sources("battleline")
    sources["games.battleline.state"] = "0" * 64  # built from another text
    files = {m: f"{m}.so" for m in native.modules_of("battleline")}
    for rel in files.values():
        (tmp_path / rel).write_bytes(b"")
    _manifest(tmp_path, sources, files)
    served, found = native.examine(tmp_path)
    assert served == {}
    assert found["battleline"] == (
        "from sources (games.battleline.state changed since the build: make setup)")


@pytest.mark.parametrize("damage", ["missing file", "no manifest", "corrupt manifest"])
def test_a_damaged_build_falls_back_to_the_sources(tmp_path: Path, damage: str) -> None:
    files = {m: f"{m}.so" for m in native.modules_of("battleline")}
    _manifest(tmp_path, _sources("battleline"), files)  # no compiled file written
    if damage == "no manifest":
        (tmp_path / native.MANIFEST).unlink()
    elif damage == "corrupt manifest":
        (tmp_path / native.MANIFEST).write_text("{not json")
    served, found = native.examine(tmp_path)
    assert served == {}
    assert found["battleline"].startswith("from sources (")


def test_the_switch_turns_the_compiled_engines_off() -> None:
    env = {**os.environ, native.SWITCH: "0"}
    code = ("import games.battleline.state as s, games.native as n; "
            "print(s.__file__.endswith('.py'), sorted(set(n.status().values())))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=patience(600), check=True)
    assert done.stdout.split(None, 1) == ["True", "['from sources (TOURNEY_NATIVE=0)']\n"]
