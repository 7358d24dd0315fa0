"""One owner of a results folder (harness/league/folder.py): the only module that names the
configuration file, mints a league's key and assembles a new configuration; its public copy
holds no key; the folder it plays into is hidden from bots because the caller says so, not
because the referee went looking for a configuration file."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from harness.bots import sandbox
from harness.league import schedule
from harness.league.config import GameChoice
from harness.league.folder import CONFIG_FILE, ResultsFolder, logs_cover, public_json
from harness.league.service import League, make_executor, prepare_league
from harness.records import BotRef, GameSpec

ROOT = Path(__file__).resolve().parents[2]
OWNER = "harness/league/folder.py"
FIXTURES = ROOT / "tests" / "fixtures" / "main-c611855"
BL = GameChoice("battleline", {}, "bl-1", 2)


def _product() -> list[Path]:
    return [p for folder in ("harness", "bench") for p in sorted((ROOT / folder).rglob("*.py"))]


def _strings(path: Path) -> list[str]:
    """A module's string constants, its docstrings left out (prose may name the file)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and id(node) not in docs]


def _calls(path: Path, names: set[str]) -> bool:
    """Whether the module calls a function or method by one of ``names``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in names:
                return True
    return False


def test_only_the_owner_names_the_configuration_file() -> None:
    naming = {str(p.relative_to(ROOT)) for p in _product()
              if any(CONFIG_FILE in s for s in _strings(p))}
    assert naming == {OWNER}


def test_only_the_owner_mints_a_key_or_assembles_a_configuration() -> None:
    minting = {str(p.relative_to(ROOT)) for p in _product()
               if _calls(p, {"new_key", "key_from_seed"})}
    assert minting == {OWNER}
    assembling = {str(p.relative_to(ROOT)) for p in _product() if _calls(p, {"LeagueConfig"})}
    assert assembling == {OWNER, "harness/league/config.py"}  # new, and merged on a resume
    decoding = {str(p.relative_to(ROOT)) for p in _product() if _calls(p, {"fromhex"})}
    assert decoding == {"harness/league/config.py"}  # LeagueConfig.key_bytes


def test_a_key_minted_by_the_owner_round_trips(tmp_path: Path) -> None:
    folder = ResultsFolder(tmp_path / "lg")
    folder.root.mkdir()
    config = folder.new_config(BL, kind="round-robin", games_per_pair=2,
                               bots=[BotRef("a", "random")])
    assert config.deal_scheme == schedule.KEYED and config.name == "lg"
    assert config.key_bytes is not None and len(config.key_bytes) == schedule.KEY_BYTES
    folder.write_config(config)
    assert folder.holds_league() and folder.config_path.stat().st_mode & 0o077 == 0
    back = folder.read_config()
    assert back == config and back.key_bytes == config.key_bytes
    other = ResultsFolder(tmp_path / "other").new_config(BL, kind="round-robin",
                                                         games_per_pair=2)
    assert other.key != config.key  # random, 128 bits
    seeded = folder.new_config(BL, kind="round-robin", games_per_pair=2, seed=5)
    assert seeded.key_bytes == schedule.key_from_seed(5) and seeded.seed == 5
    # a stored league keeps its name, seed, key and scheme; another seed is another key
    kept = ResultsFolder(tmp_path / "elsewhere").new_config(
        BL, kind="round-robin", games_per_pair=4, stored=back, name="ignored")
    assert (kept.name, kept.seed, kept.key, kept.deal_scheme) == (
        "lg", None, config.key, config.deal_scheme)
    moved = folder.new_config(BL, kind="round-robin", games_per_pair=2, seed=9, stored=back)
    assert moved.key_bytes == schedule.key_from_seed(9)


def test_the_same_seed_deals_the_same_games_as_the_schedule(tmp_path: Path) -> None:
    """The league's deals and ids are the schedule's under the key the seed derives."""
    plan = prepare_league("battleline", ["a=random", "b=greedy"], out=tmp_path / "lg",
                          games=4, seed=7)
    refs = [BotRef("a", "random"), BotRef("b", "greedy")]
    direct = schedule.round_robin("battleline", {}, refs, 4, 7, league="lg",
                                  key=schedule.key_from_seed(7))
    assert [(s.game_id, s.seed) for s in plan.specs] == [(s.game_id, s.seed) for s in direct]


def test_the_public_copy_never_holds_the_key(tmp_path: Path) -> None:
    out = tmp_path / "lg"
    League.prepare("bl", ["random", "greedy"], out=out, games=2).run(workers=0, progress=False)
    folder = ResultsFolder(out)
    config = folder.read_config()
    name, public = folder.public_config()
    assert name == folder.config_path.name
    assert config.key and config.key not in json.dumps(public) and "key" not in public
    stored = json.loads(folder.config_path.read_text())
    assert {k: v for k, v in stored.items() if k != "key"} == public  # the rest as written
    shown = public_json(config)
    assert "key" not in shown and config.key not in json.dumps(shown)
    assert config.key in folder.config_path.read_text()  # the folder itself keeps it


@pytest.mark.parametrize("name", ["battleline", "warchest4"])
def test_folders_written_by_an_older_tourney_open_through_the_owner(
        name: str, tmp_path: Path) -> None:
    copy = tmp_path / name
    shutil.copytree(FIXTURES / name, copy)
    folder = ResultsFolder(copy)
    config = folder.read_config()
    assert config.game in ("battleline", "warchest") and config.bots
    _, public = folder.public_config()
    assert "key" not in public and public["game"] == config.game


def test_the_referee_hides_the_folder_it_plays_into(tmp_path: Path) -> None:
    """The league's executor tells the referee to hide the results folder (its configuration
    holds the key), in the process that plays; nothing probes for the configuration file."""
    out = tmp_path / "lg"
    out.mkdir()
    assert logs_cover(ResultsFolder(out).logs) == ()  # no league here (yet)
    spec = GameSpec("g1", "battleline", {}, 3, (BotRef("a", "sandbox:random"),
                                                BotRef("b", "random")))
    with make_executor(0, out, None) as executor:
        [record] = list(executor.run([spec]))
    assert record.decisions > 0 and not record.termination.is_forfeit, record.reason
    assert str(out.resolve()) in sandbox.hidden_paths()
    assert str((out / "logs").resolve()) in sandbox.hidden_paths()
    ResultsFolder(out).write_config(ResultsFolder(out).new_config(
        BL, kind="round-robin", games_per_pair=2))
    assert logs_cover(ResultsFolder(out).logs) == (out,)
