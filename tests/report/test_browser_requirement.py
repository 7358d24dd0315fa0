"""Where Chromium is missing the browser tests are reported as not run, with the command that
installs it; under CI they fail instead, since CI must prove the pages in a real browser."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.report import browser

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_browser_is_not_run_with_the_install_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser, "CHROMIUM", "/nonexistent/chromium")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        browser.require()
    assert str(skipped.value).startswith("not run: /nonexistent/chromium not found")
    assert "sudo apt-get install chromium chromium-driver" in str(skipped.value)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI runs the browser tests, but "):
        browser.require()


def test_a_present_browser_is_required_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser, "missing", lambda: "")
    monkeypatch.setenv("CI", "true")
    browser.require()  # neither skips nor fails


def test_the_suite_says_once_which_browser_tests_did_not_run(tmp_path: Path) -> None:
    """A run of two browser tests without a browser: both reported as not run, one summary line
    with the install command, exit status 0."""
    (tmp_path / "test_pages.py").write_text(textwrap.dedent("""
        import pytest
        from tests.report import browser

        @pytest.mark.parametrize("page", ["a", "b"])
        def test_page(page, monkeypatch):
            monkeypatch.setattr(browser, "missing", lambda: "/usr/bin/chromium not found")
            browser.require()
            assert False, "ran without a browser"
    """))
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest",
                           "-p", "no:cacheprovider", str(tmp_path / "test_pages.py")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout
    assert done.stdout.count("browser tests not run: ") == 1
    assert "2 browser tests not run: headless Chromium is needed" in done.stdout
