"""Suite-wide reporting: the browser and reverse-proxy tests that did not run, and why, said once
at the end."""

from __future__ import annotations

from typing import Any

from tests.report.browser import INSTALL_HINT, NOT_RUN


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.serve.test_nginx import NGINX_HINT

    not_run = [str(report.longrepr) for report in terminalreporter.stats.get("skipped", [])
               if f"{NOT_RUN}: " in str(report.longrepr)]
    proxy = [text for text in not_run if NGINX_HINT in text]
    browser = len(not_run) - len(proxy)
    if browser:
        terminalreporter.write_line(
            f"{browser} browser tests not run: {INSTALL_HINT}", yellow=True, bold=True)
    if proxy:
        terminalreporter.write_line(
            f"{len(proxy)} reverse-proxy test not run: {NGINX_HINT}", yellow=True, bold=True)
