"""A competition for the server's tests: a living league of Battle Line, its database with an
organiser, and the application exactly as `tourney serve` assembles it (the same factory,
:func:`harness.serve.app.create_app`, with its middleware and the human seat) behind an HTTP
client (starlette's TestClient)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette

from harness.arena import living
from harness.serve.competition import Competition
from harness.serve.db import CompetitionDB
from harness.serve.final import StageProcess
from harness.serve.human import SeatRules
from harness.serve.runner import Checker, wait_idle
from tests.patience import patience

ROOT = Path(__file__).resolve().parents[2]


def tourney(*args: str | Path, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real command line, in a child process from the repository's root (``env`` laid
    over this one's environment)."""
    return subprocess.run([sys.executable, "-m", "harness.cli.app", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=patience(timeout),
                          env={**os.environ, **(env or {})})

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note that it will prefer another client
    from starlette.testclient import TestClient

BOTS = Path(__file__).resolve().parent / "bots"


@dataclass
class Site:
    folder: Path
    competition: Competition
    client: TestClient
    organiser: str  # the organiser's token
    app: Starlette  # the application, as `tourney serve` runs it

    def bearer(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def login(self, token: str, client: TestClient | None = None) -> str:
        """Log in through the real form (``client``: another browser than the site's); returns
        the CSRF token of the session, read from the page the login leads to."""
        import re

        client = client or self.client
        r = client.post("/login", data={"token": token}, follow_redirects=False)
        assert r.status_code == 303, r.text
        page = client.get(r.headers["location"])
        found = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
        assert found, page.text
        return found.group(1)

    def browser(self) -> TestClient:
        """Another client of the same application (a second person's browser)."""
        return TestClient(self.app, base_url="http://testserver")

    def add(self, name: str) -> str:
        """A new entrant (through the API, as the organiser); returns its token."""
        r = self.client.post("/api/admin/entrants", json={"name": name},
                             headers=self.bearer(self.organiser))
        assert r.status_code == 201, r.text
        token: str = r.json()["token"]
        return token

    def upload(self, token: str, name: str, data: bytes) -> Any:
        return self.client.post("/api/submissions", files={"bot": (name, data)},
                                headers=self.bearer(token))

    def send(self, token: str, bot: str) -> dict[str, Any]:
        """Upload a bot of tests/serve/bots and wait for its entry check."""
        r = self.upload(token, bot, (BOTS / bot).read_bytes())
        assert r.status_code == 202, r.text
        self.settle()
        made: dict[str, Any] = r.json()
        return made

    def settle(self) -> None:
        checker = self.competition.checker
        assert checker is not None
        assert wait_idle(checker, patience(60)), "entry checks did not end"

    def play(self, games: int) -> None:
        """Let the living league play ``games`` games (in this process)."""
        opts = living.RunOptions(workers=0, stop_after=games, progress=False, seed=1,
                                 stop_when_idle=True, say=lambda line: None)
        living.Arena(self.folder, opts).run()
        self.competition._board = None  # the next leaderboard is read anew


def make_site(folder: Path, game: str = "battleline", seat: SeatRules | None = None,
              variants: tuple[str, ...] = (), *, clock: Callable[[], float] | None = None,
              stage: StageProcess | None = None) -> Site:
    """A new competition of ``game`` and its application, made by the factory `tourney serve`
    calls (``seat``: the human seat's limits, the server's own by default; ``clock``: the time
    the deadline is compared with; ``stage``: where the final is played, as the server's)."""
    from harness.serve.app import create_app

    living.create(folder, game, seed=11, variants=variants)
    with CompetitionDB.open(folder, create=True) as db:
        organiser = db.set_organiser_token()
    competition = Competition(folder, checker=Checker(folder),
                              public_url="http://testserver", stage=stage,
                              clock=clock or time.time)
    app = create_app(competition, seat=seat)
    client = TestClient(app, base_url="http://testserver")
    return Site(folder, competition, client, organiser, app)


def close_site(made: Site) -> None:
    made.app.state.site.close()
    made.client.close()


def end_site(made: Site) -> None:
    """Close the site, then its entry checker and its competition (a fixture's teardown)."""
    close_site(made)
    assert made.competition.checker is not None
    made.competition.checker.close()
    made.competition.close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    made = make_site(tmp_path / "contest")
    try:
        yield made
    finally:
        end_site(made)


@dataclass
class Served:
    """A real `tourney serve` process on a free loopback port."""

    folder: Path
    url: str
    organiser: str
    process: Any
    output: Path

    def stop(self, sig: int = 2) -> str:
        import subprocess

        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(patience(60))
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.output.read_text()


def start_server(folder: Path, *args: str, log: Path | None = None,
                 preexec_fn: Any = None) -> Served:
    """Start (or continue) the competition in ``folder`` and wait until it answers
    (``preexec_fn``: run in the server's process before it starts, e.g. to lower a limit)."""
    import re
    import subprocess
    import sys
    import time

    import httpx

    log = log or folder.parent / f"{folder.name}-serve-{time.monotonic_ns()}.log"
    out = open(log, "w")  # noqa: SIM115 - the server's stderr, read by the tests
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.cli.app", "serve", str(folder), "--port", "0", *args],
        stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=preexec_fn)
    out.close()
    end = time.monotonic() + patience(60)
    url = organiser = ""
    while time.monotonic() < end:
        text = log.read_text()
        found = re.search(r"listening on (http://\S+)", text) or \
            re.search(r"serving on (http://\S+)", text)
        token = re.search(r"organiser token \(shown once; keep it\): (\S+)", text)
        if found:
            url = found.group(1)
            organiser = token.group(1) if token else ""
            try:
                if httpx.get(url + "/health", timeout=5).status_code == 200:
                    return Served(folder, url, organiser, process, log)
            except httpx.HTTPError:
                pass
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise AssertionError(f"tourney serve did not start:\n{log.read_text()}")
