"""What :func:`harness.bots.sandbox.report` says on a machine that gives bots every protection,
for tests that need such a machine whatever this one (or its user) gives."""

from __future__ import annotations

from typing import Any


def everything_in_force() -> dict[str, Any]:
    """A fresh report with every protection of :data:`harness.bots.isolation.REQUIRED` held."""
    return {"mechanism": "cgroup2", "cgroups": True, "pid_namespace": True,
            "ipc_namespace": True, "network": True, "filesystem": True, "user": True,
            "capabilities": "none", "seccomp": True, "freeze": "whole tree (freezer)"}
