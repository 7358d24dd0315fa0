"""Bots: what a bot is (a spec), how the referee talks to it (the agent protocol), and where it
runs (in the referee's process, or sandboxed in its own).

* :mod:`~harness.bots.spec`: a bot spec parsed into a value, its label and file hash;
* :mod:`~harness.bots.protocol`: the :class:`Agent` protocol, its errors and the wire codec;
* :mod:`~harness.bots.inprocess`: trusted bots called directly;
* :mod:`~harness.bots.sandbox`: a bot in its own confined process, deadlines enforced by killing;
* :mod:`~harness.bots.runner`: the stdlib-only program that runs inside the sandbox.

:func:`open_agent` turns a spec into a ready-to-start agent.
"""

from __future__ import annotations

from harness.bots.inprocess import InProcessAgent, load_factory
from harness.bots.protocol import Agent, AgentCrash
from harness.bots.runner import BotLoadError
from harness.bots.spec import BotSpec
from harness.records import Limits


def open_agent(source: BotSpec, limits: Limits) -> Agent:
    """A ready-to-start agent for ``source``: sandboxed process or in-process object.

    Raises :class:`harness.bots.protocol.AgentCrash` when an in-process bot cannot be loaded.
    """
    if source.sandboxed:
        from harness.bots import spares
        from harness.bots.sandbox import SandboxedAgent

        return spares.take(source, limits) or SandboxedAgent(source, limits)
    try:
        factory = load_factory(source)
    except BotLoadError as exc:
        raise AgentCrash(f"could not load bot: {exc}") from None
    try:
        return InProcessAgent(factory(**source.kwargs()), limits.log_bytes)
    except Exception as exc:
        raise AgentCrash(f"creating the bot raised {type(exc).__name__}: {exc}") from None
