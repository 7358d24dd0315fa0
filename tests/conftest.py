"""Suite-wide reporting: the browser tests that did not run, and why, said once at the end."""

from __future__ import annotations

from typing import Any

from tests.report.browser import INSTALL_HINT, NOT_RUN


def pytest_terminal_summary(terminalreporter: Any) -> None:
    not_run = [report for report in terminalreporter.stats.get("skipped", [])
               if f"{NOT_RUN}: " in str(report.longrepr)]
    if not_run:
        terminalreporter.write_line(
            f"{len(not_run)} browser tests not run: {INSTALL_HINT}", yellow=True, bold=True)
