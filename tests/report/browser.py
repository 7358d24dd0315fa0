"""Headless Chromium (Debian's ``chromium`` + ``chromium-driver``) driven through Selenium.

``make setup`` installs both when it runs as root. Where they are missing (a user who is not
root), :func:`require` reports the browser tests as not run, with the command that installs
them, so that every other test still runs; under CI (``CI`` set in the environment), which must
prove the pages in a real browser, a missing browser fails them instead.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.patience import patience

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
INSTALL_HINT = ("headless Chromium is needed for the browser tests: `sudo apt-get install "
                "chromium chromium-driver` (or `make setup` as root) installs it")
NOT_RUN = "not run"  # how a skipped browser test's reason begins (tests/conftest.py counts them)


def missing() -> str:
    """Why the browser cannot run here, or "" when it can."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists() and shutil.which(Path(path).name) is None:
            return f"{path} not found; {INSTALL_HINT}"
    return ""


def require() -> None:
    """Return where the browser can run; otherwise report the calling test as not run (with the
    command that installs the browser), or fail it under CI."""
    import pytest

    problem = missing()
    if not problem:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI runs the browser tests, but {problem}")
    pytest.skip(f"{NOT_RUN}: {problem}")


@contextmanager
def chromium(width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A headless Chromium WebDriver that keeps the page's console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    problem = missing()
    if problem:
        raise RuntimeError(problem)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--hide-scrollbars",
                "--force-device-scale-factor=1"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(shutil.which("chromedriver") or CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """The page's console messages of level SEVERE (errors) since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def open_page(driver: Any, path: Path, fragment: str = "") -> None:
    """Load a page (a fragment such as ``#entrants`` too) and wait until it is ready."""
    from selenium.webdriver.support.ui import WebDriverWait

    console_errors(driver)  # drop what earlier pages logged
    driver.get(path.resolve().as_uri() + fragment)
    WebDriverWait(driver, patience(10)).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def wait_until(driver: Any, check: Any, what: str, seconds: float = 60) -> Any:
    """``check()``'s first true answer, tried until ``seconds`` (stretched by the machine's
    load) have passed; an element not there yet, as while a form's answer loads, counts as
    not yet. AssertionError with the page's text when it never comes."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    end = time.monotonic() + patience(seconds)
    while time.monotonic() < end:
        try:
            found = check()
        except (NoSuchElementException, StaleElementReferenceException):
            found = None
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"{what} did not happen in time; page: {driver.current_url}\n"
                         f"{driver.find_element('tag name', 'body').text[:2000]}")
