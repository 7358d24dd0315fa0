"""Bot specs: one parser, a value whose text parses back to it."""

from __future__ import annotations

import shlex
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.bots.spec import (
    BUILTIN_OPTIONS,
    BUILTINS,
    BotSpec,
    BotSpecError,
    is_sandboxed,
    parse_spec,
)

BOT_DIR = Path(tempfile.mkdtemp(prefix="tourney-spec-test-"))
for stem in ("alpha", "beta_2", "with space"):
    (BOT_DIR / f"{stem}.py").write_text("def act(observation, legal_actions):\n"
                                        "    return legal_actions[0]\n")
(BOT_DIR / "dir bot").mkdir()
(BOT_DIR / "dir bot" / "bot.py").write_text((BOT_DIR / "alpha.py").read_text())

prefixes = st.sampled_from(["", "sandbox:", "inproc:"])
entries = st.one_of(st.none(), st.text(string.ascii_letters + "_", min_size=1, max_size=8))
files = st.sampled_from(sorted(BOT_DIR.glob("*.py")))
words = st.text(st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="'\"\\"),
                min_size=1, max_size=8)


OPTION_VALUES = {"p": ".25", "iters": "300", "ms": "50.0", "c": "0.5", "depth": "2",
                 "worlds": "0", "rollout": "greedy", "prior": "4", "bias": "20", "top": "3",
                 "reply": "1", "expand": "random", "widen": "0.5", "scale": "4",
                 "learned": "1"}


def test_the_round_trip_has_a_value_for_every_builtin_option() -> None:
    """A new option without a sample value would fail the round trip only when drawn."""
    assert {k for table in BUILTIN_OPTIONS.values() for k in table} <= set(OPTION_VALUES)


@st.composite
def spec_texts(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["builtin", "file", "cmd", "dir"]))
    if kind == "builtin":
        name = draw(st.sampled_from(BUILTINS))
        keys = draw(st.lists(st.sampled_from(sorted(BUILTIN_OPTIONS[name]) or [""]),
                             unique=True, max_size=3))
        if {"iters", "ms"} & set(keys):  # scale multiplies the default budget: never with these
            keys = [k for k in keys if k != "scale"]
        options = ",".join(f"{k}={OPTION_VALUES[k]}" for k in keys if k)
        return draw(prefixes) + name + (f":{options}" if options else "")
    if kind == "file":
        entry = draw(entries)
        return draw(prefixes) + str(draw(files)) + (f":{entry}" if entry else "")
    if kind == "dir":
        entry = draw(entries)
        return draw(st.sampled_from(["", "sandbox:"])) + f"{BOT_DIR / 'dir bot'}/" + (
            f":{entry}" if entry else "")
    where = draw(st.sampled_from(["cmd:", f"cmd[cwd={BOT_DIR}]:"]))
    return draw(st.sampled_from(["", "sandbox:"])) + where + shlex.join(
        draw(st.lists(words, min_size=1, max_size=4)))


@settings(max_examples=60, deadline=None)
@given(spec_texts())
def test_a_spec_prints_as_text_that_parses_back_to_it(text: str) -> None:
    spec = parse_spec(text)
    assert parse_spec(str(spec)) == spec
    assert str(parse_spec(str(spec))) == str(spec)
    assert is_sandboxed(text) == spec.sandboxed == is_sandboxed(str(spec))


@settings(max_examples=30, deadline=None)
@given(spec_texts())
def test_running_in_the_sandbox_keeps_the_bot(text: str) -> None:
    spec = parse_spec(text)
    boxed = spec.in_sandbox()
    assert boxed.sandboxed and parse_spec(str(boxed)) == boxed
    assert (boxed.path, boxed.entry, boxed.command, boxed.builtin) == \
        (spec.path, spec.entry, spec.command, spec.builtin)


def test_what_a_spec_says() -> None:
    assert str(parse_spec("random")) == "random" and not parse_spec("random").sandboxed
    assert parse_spec("inproc:greedy") == BotSpec(parse_spec("greedy").path, None, (), "greedy",
                                                  False, forced=True)
    bot = BOT_DIR / "alpha.py"
    spec = parse_spec(f"{bot}:Fast")
    assert spec.sandboxed and spec.prefix == "" and spec.name == "alpha.Fast"
    assert spec.label == "alpha.py:Fast" and str(spec) == f"{bot.resolve()}:Fast"
    assert parse_spec("cmd:./engine --fast").name == "engine"
    assert len(parse_spec(str(bot)).sha256()) == 64 and len(parse_spec("cmd:x").sha256()) == 64
    assert parse_spec("cmd:x").sha256() != parse_spec("cmd:y").sha256()  # the line counts too


def test_an_external_command_is_named_and_hashed_by_what_it_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cmd: bot is named after its script (not its interpreter) and its identity covers the
    files it names and its own directory: a changed script is another version."""
    monkeypatch.chdir(tmp_path)
    script = tmp_path / "fox.py"
    script.write_text("print('v1')\n")
    first = parse_spec("cmd:python3 -u fox.py --fast", check=False)
    assert first.name == "fox" and parse_spec("cmd:node bots/owl.js", check=False).name == "owl"
    before = first.sha256()
    assert before == parse_spec("cmd:python3 -u fox.py --fast", check=False).sha256()
    script.write_text("print('v2')\n")
    assert first.sha256() != before
    own = tmp_path / "engine"
    own.mkdir()
    (own / "rule.txt").write_text("first")
    spec = parse_spec(f"cmd[cwd={own}]:/bin/true", check=False)
    digest = spec.sha256()
    (own / "rule.txt").write_text("last")
    assert spec.sha256() != digest  # a data file in its own directory counts


def test_a_version_managers_shim_is_refused_with_the_real_interpreter_to_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shims = tmp_path / ".pyenv" / "shims"
    shims.mkdir(parents=True)
    shim = shims / "python9"
    shim.write_text("#!/usr/bin/env bash\nexec pyenv exec python9 \"$@\"\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}:/usr/bin:/bin")
    with pytest.raises(BotSpecError) as refused:
        parse_spec("cmd:python9 bot.py")
    message = str(refused.value)
    assert "python9 is pyenv's shim" in message and "cmd:$(pyenv which python9) ..." in message
    assert "\n" not in message


def test_a_builtin_takes_options_that_name_it_and_reach_its_constructor() -> None:
    spec = parse_spec("sandbox:mcts:ms=200.0,iters=50,rollout=greedy")
    assert spec.builtin == "mcts" and spec.sandboxed
    assert str(spec) == "sandbox:mcts:ms=200,iters=50,rollout=greedy"
    assert spec.name == spec.label == "mcts:ms=200,iters=50,rollout=greedy"
    assert spec.kwargs() == {"ms": 200.0, "iters": 50, "rollout": "greedy"}
    assert parse_spec("greedy:p=.3").name == "greedy:p=0.3"
    assert parse_spec("greedy") != parse_spec("greedy:p=0") and parse_spec("mcts").kwargs() == {}
    assert set(BUILTIN_OPTIONS) == set(BUILTINS)


@pytest.mark.parametrize(("text", "message"), [
    ("greedy:q=1", "greedy has no option 'q'; its options: p"),
    ("random:p=1", "random has no option 'p'; its options: none"),
    ("greedy:p=1.5", "greedy option p=1.5: give a probability from 0 to 1"),
    ("greedy:p=lots", "greedy option p=lots: give a probability"),
    ("mcts:iters=0", "mcts option iters=0: give a whole number >= 1"),
    ("mcts:iters=2.5", "give a whole number >= 1"),
    ("mcts:rollout=smart", "give one of policy, random, greedy"),
    ("mcts:iters", "option 'iters' needs a value: write iters=VALUE"),
    ("mcts:", "gives no options; write mcts alone"),
    ("mcts:ms=5,ms=6", "option 'ms' is given twice"),
])
def test_a_bad_builtin_option_says_what_to_write(text: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message.replace(".", r"\.").replace("(", r"\(")):
        parse_spec(text)


@pytest.mark.parametrize(("text", "message"), [
    ("inproc:cmd:x", "always runs in its own process"),
    ("cmd:", "names no command"),
    ("cmd:'open", "cannot split"),
    ("nothing", "is not a bot spec"),
    ("missing.py", "not found"),
])
def test_a_bad_spec_says_what_to_write(text: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message):
        parse_spec(text)


def test_the_text_alone_decides_where_a_bot_runs() -> None:
    # No file system access: a missing file still reads as a sandboxed bot file, and a spec
    # that names nothing usable counts as sandboxed (the referee judges it).
    assert is_sandboxed("missing.py") and not is_sandboxed("inproc:missing.py")
    assert is_sandboxed("nothing") and is_sandboxed("cmd:x")
