"""The jail's report is measured: which namespaces are the bot's own comes from the inode numbers
the runner reads from inside (and bubblewrap reports), compared with the referee's own."""

from __future__ import annotations

import os

from harness.bots import jail, sandbox
from harness.bots.spec import parse_spec
from harness.records import Limits


def test_a_namespace_is_the_bots_own_only_where_its_number_differs_from_the_referees() -> None:
    host = jail.own_namespaces()
    assert set(host) == set(jail.NAMESPACES)
    assert not any(jail.compare(host).values())  # the referee's own: none is the bot's
    assert not any(jail.compare({}).values())  # nothing measured: nothing claimed
    other = {name: number + 1 for name, number in host.items()}
    assert all(jail.compare(other).values())
    only_ipc = {**host, "ipc": host["ipc"] + 1}
    flags = jail.compare(only_ipc)
    assert flags["ipc_namespace"] and not flags["network"] and not flags["pid_namespace"]


def test_the_runner_reports_the_namespaces_it_finds_itself_in() -> None:
    agent = sandbox.SandboxedAgent(parse_spec("sandbox:random"), Limits())
    try:
        agent.start({}, 30)
        seen = agent.sandbox["namespaces"]
    finally:
        agent.close()
    assert set(seen) == set(jail.NAMESPACES) and all(isinstance(n, int) for n in seen.values())
    if sandbox.report()["engine"] == "bubblewrap":  # in a jail: every one differs
        host = {name: os.stat(f"/proc/self/ns/{name}").st_ino for name in seen}
        assert all(seen[name] != host[name] for name in seen)
        assert agent.sandbox["pid_namespace"] and agent.sandbox["ipc_namespace"]
