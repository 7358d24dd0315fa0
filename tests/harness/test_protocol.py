"""Wire messages: encoding, decoding and the judgement of malformed replies."""

from __future__ import annotations

import pytest

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
