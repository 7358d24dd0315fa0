"""Fuzzing the wire: whatever bytes or JSON a bot sends, the decoder gives a message or a
protocol error, and the referee a typed forfeit of that bot, never an exception or a void game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.bots.inprocess import InProcessAgent
from harness.bots.protocol import JSON, AgentProtocolError, decode, expect
from harness.bots.spec import BotSpec as BotSource
from harness.league import schema
from harness.match import referee
from harness.records import BotRef, GameSpec, Termination

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
nested = st.integers(1, 200_000).map(lambda n: b"[" * n + b"]" * n)
big_numbers = st.integers(4000, 100_000).map(lambda n: b'{"type": "action", "action": '
                                             + b"7" * n + b"}")
surrogates = st.text().map(lambda t: json.dumps({"type": "action", "action": t + "\ud800"},
                                                ensure_ascii=True).encode())
messages = json_values.map(lambda v: json.dumps({"type": "action", "action": v}).encode())
lines = st.binary(max_size=200) | nested | big_numbers | surrogates | messages | \
    json_values.map(lambda v: json.dumps(v).encode())


@settings(max_examples=300, deadline=None)
@given(lines)
def test_the_decoder_gives_a_message_or_a_protocol_error(line: bytes) -> None:
    try:
        message = decode(line)
    except AgentProtocolError as exc:
        assert exc.reason.encode("utf-8") and len(exc.reason) < 1000
        return
    assert isinstance(message, dict) and isinstance(message["type"], str)


class First:
    def act(self, observation: Any, legal_actions: list[str]) -> str:
        return legal_actions[0]


class LineAgent:
    """An agent whose answers are raw wire lines, judged exactly as a sandboxed bot's."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines: Iterator[bytes] = iter(lines)

    def start(self, info: JSON, timeout: float) -> None:
        return None

    def act(self, observation: JSON, legal_actions: list[str], timeout: float) -> object:
        line = next(self.lines, b'{"type": "action", "action": "pass"}')
        return expect(decode(line), "action").get("action")

    def end(self, result: JSON, timeout: float) -> None:
        return None

    def close(self) -> None:
        return None

    def logs(self) -> str:
        return ""


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(lines, min_size=1, max_size=4))
def test_the_referee_judges_any_answer_as_a_forfeit_of_its_sender(
        toy: str, monkeypatch: pytest.MonkeyPatch, answers: list[bytes]) -> None:
    def fake_open(source: Any, limits: Any) -> Any:
        return LineAgent(answers) if source.builtin == "lines" else InProcessAgent(First())

    monkeypatch.setattr(referee, "open_agent", fake_open)
    monkeypatch.setattr(referee, "_source", lambda spec: BotSource(None, None, (), spec, False))
    seats = (BotRef("lines", "lines"), BotRef("r", "random"))
    record = referee.play_game(GameSpec("g", toy, {}, 1, seats))
    if record.termination.is_forfeit:
        assert record.offender == 0, record.reason  # never void, never the other bot
        assert record.termination in (Termination.PROTOCOL, Termination.CRASH,
                                      Termination.ILLEGAL)
    assert len(record.reason) < 1000
    schema.games_table([record])  # storable as it is (no unencodable text)
