"""Wire messages: encoding, decoding and the judgement of malformed replies."""

from __future__ import annotations

import json
import random

import pytest

from games import registry
from harness.bots.protocol import AgentCrash, AgentProtocolError, decode, encode, expect


def test_messages_are_one_compact_json_line() -> None:
    line = encode({"type": "act", "legal_actions": ["a b", "é"]})
    assert line == '{"type":"act","legal_actions":["a b","é"]}\n'.encode()
    assert decode(line.rstrip(b"\n")) == {"type": "act", "legal_actions": ["a b", "é"]}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"hello", "sent a line that is not JSON: 'hello'"),
        (b"[1, 2]", "sent JSON that is not a message object: '[1, 2]'"),
        (b'{"action": "x"}', "not a message object"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_malformed_lines_are_protocol_errors(line: bytes, expected: str) -> None:
    with pytest.raises(AgentProtocolError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        decode(line)


def test_replies_of_the_wrong_type_and_errors() -> None:
    assert expect({"type": "action", "action": "x"}, "action")["action"] == "x"
    with pytest.raises(AgentProtocolError, match="answered 'ready' where 'action' was expected"):
        expect({"type": "ready"}, "action")
    with pytest.raises(AgentCrash, match="gave up: out of ideas"):
        expect({"type": "error", "message": "out of ideas"}, "action")


def _standard(message: object) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


@pytest.mark.parametrize("game", ["battleline", "warchest"])
def test_the_wire_writes_what_the_standard_library_writes(game: str) -> None:
    """Every observation of a few random games, as its ``act`` message: the same bytes as
    Python's own compact JSON (the wire is written by orjson for speed)."""
    engine = registry.get(game)
    for seed in range(3):
        state, rng = engine.new_game(seed), random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player
            message = {"type": "act", "observation": state.observation(seat),
                       "legal_actions": state.legal_actions(), "time_left": 0.25}
            assert encode(message) == _standard(message)
            state.apply(rng.choice(state.legal_actions()))


def test_what_orjson_does_not_write_the_standard_library_does() -> None:
    for message in ({"type": "end", "result": {1: "one", "big": 2 ** 70}},
                    {"type": "start", "info": {"name": "é ✓ \u2028", "seeds": [0, -1, 1.5]}}):
        assert encode(message) == _standard(message)
        assert json.loads(encode(message)) == json.loads(_standard(message))


@pytest.mark.parametrize("line", [
    b'{"type":"action","action":"play r1 3"}',
    b'{"type":"action","action":"\\u00e9","n":-0,"f":1.5e-7,"d":{"a":[1,2,{"b":null}]}}',
    b'{"type":"x","type":"action"}',  # a key twice: the last one counts
    b'{"type":"action","big":123456789012345678901234567890}',  # past 64 bits
    b'{"type":"action","nan":NaN,"inf":-Infinity,"huge":1e400}',
    b'{"type":"action","lone":"\\ud800"}',  # a lone surrogate
    '{"type":"action","action":"x"}'.encode("utf-16"),  # UTF-16, with its byte order mark
])
def test_a_reply_reads_as_the_standard_library_reads_it(line: bytes) -> None:
    """Replies are read by orjson where it can; what it refuses, the standard library reads:
    either way, the message the referee judges is the one Python's own JSON gives."""
    read = decode(line)
    expected = json.loads(line)
    assert repr(read) == repr(expected)  # repr: NaN is not equal to itself


def test_a_reply_nested_past_any_reader_is_a_protocol_error() -> None:
    deep = b'{"type":"action","a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(AgentProtocolError, match="nested too deeply"):
        decode(deep)
