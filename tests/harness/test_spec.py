"""Bot specs: one parser, a value whose text parses back to it."""

from __future__ import annotations

import shlex
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.bots.spec import BUILTINS, BotSpec, BotSpecError, is_sandboxed, parse_spec

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


@st.composite
def spec_texts(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["builtin", "file", "cmd", "dir"]))
    if kind == "builtin":
        return draw(prefixes) + draw(st.sampled_from(BUILTINS))
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
    assert len(parse_spec(str(bot)).sha256()) == 64 and parse_spec("cmd:x").sha256() == ""


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
