"""What a trusted in-process bot sees: its observation, computed only if it looks.

The referee hands every other agent the full observation dict; a built-in running in the
referee's process gets a :class:`LazyObservation` instead (``docs/protocol.md``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from games.protocol import JSON, State


class ObservationExpired(RuntimeError):
    """An in-process bot first read a lazy observation after its decision was over."""


class LazyObservation(Mapping[str, Any]):
    """A trusted (in-process) bot's observation, computed only if the bot reads it.

    A read-only mapping with exactly the content of ``state.observation(seat)``, which it
    computes on first access and keeps. Most built-ins (``random``) never look, so the referee
    does not pay for it. The first access must happen during the decision (before the referee
    applies the answer): a view first read later raises :class:`ObservationExpired` rather than
    showing a later position. A view read during its decision stays readable afterwards.
    ``dict(observation)`` gives a plain dict (e.g. for ``json.dumps``).
    """

    __slots__ = ("_data", "_decision", "_seat", "_state")

    def __init__(self, state: State, seat: int, decision: int) -> None:
        self._state = state
        self._seat = seat
        self._decision = decision
        self._data: JSON | None = None

    def _materialise(self) -> JSON:
        data = self._data
        if data is None:
            if len(self._state.history) != self._decision:
                raise ObservationExpired(
                    f"the observation of decision {self._decision} was first read after that "
                    "decision was over; read (or copy with dict(observation)) what you need "
                    "inside act()")
            data = self._data = self._state.observation(self._seat)
        return data

    def __getitem__(self, key: str) -> Any:
        return self._materialise()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._materialise())

    def __len__(self) -> int:
        return len(self._materialise())

    def __contains__(self, key: object) -> bool:
        return key in self._materialise()

    def get(self, key: str, default: Any = None) -> Any:
        return self._materialise().get(key, default)

    def __repr__(self) -> str:
        if self._data is None:
            return f"<LazyObservation seat={self._seat} decision={self._decision} (unread)>"
        return f"LazyObservation({self._data!r})"
