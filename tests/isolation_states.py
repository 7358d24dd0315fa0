"""What :func:`harness.bots.sandbox.report` says on a machine that gives bots every protection,
for tests that need such a machine whatever this one (or its user) gives."""

from __future__ import annotations

from typing import Any

from harness.bots.sandbox import report as machine_report  # this machine's, before any patch


def everything_in_force() -> dict[str, Any]:
    """A fresh report with every protection of :data:`harness.bots.isolation.REQUIRED` held,
    over this machine's own (so what a started bot reads of it, such as the engine that jails
    it, is still true when a test runs a bot under this report)."""
    return {**machine_report(), "mechanism": "cgroup2", "cgroups": True, "pid_namespace": True,
            "ipc_namespace": True, "network": True, "filesystem": True, "user": True,
            "capabilities": "none", "seccomp": True, "freeze": "whole tree (freezer)"}
