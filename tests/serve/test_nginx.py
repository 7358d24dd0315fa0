"""docs/serve.md's nginx site runs as written in front of a real `tourney serve`: over TLS (a
self-signed certificate), uploads larger than nginx's default limit pass, the client's address is
nginx's view of it (a client cannot choose its own), and plain http is sent to https.

nginx comes from Debian's package (`make setup` installs it as root, with openssl). Without it
the test is reported as not run, with the command that installs it; under CI it fails."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.patience import patience
from tests.report.browser import NOT_RUN
from tests.serve.conftest import Served, start_server
from tests.serve.test_docs import DOC, free_port

NGINX_HINT = ("nginx and openssl are needed for the reverse-proxy test: `sudo apt-get install "
              "nginx openssl` (or `make setup` as root) installs them")


def require_nginx() -> str:
    """The nginx program; the test is reported as not run without it (failed under CI)."""
    nginx = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None)
    problem = "" if nginx and shutil.which("openssl") else \
        f"{'openssl' if nginx else 'nginx'} not found; {NGINX_HINT}"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI runs the reverse-proxy test, but {problem}")
        pytest.skip(f"{NOT_RUN}: {problem}")
    assert nginx is not None
    return nginx


def site_of_the_docs() -> str:
    found = re.findall(r"^```nginx\n(.*?)^```", DOC.read_text(encoding="utf-8"),
                       flags=re.S | re.M)
    assert len(found) == 1, "docs/serve.md has one nginx site"
    site: str = found[0]
    return site


def certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=patience(60))
    return cert, key


def nginx_conf(folder: Path, site: str) -> Path:
    """A whole nginx.conf of this folder around the docs' site (paths and ports are the test's;
    as root, workers keep root's user so they can read the test's folder)."""
    user = "user root;\n" if os.geteuid() == 0 else ""
    for temp in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / temp).mkdir(parents=True)
    (folder / "tourney.conf").write_text(site)
    conf = folder / "nginx.conf"
    conf.write_text(f"""{user}daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/tourney.conf;
}}
""")
    return conf


def test_the_nginx_site_of_the_manual_serves_the_competition_over_tls(tmp_path: Path) -> None:
    nginx = require_nginx()
    tls, plain = free_port(), free_port()
    public = f"https://127.0.0.1:{tls}"
    doc = DOC.read_text(encoding="utf-8")
    # the command the manual gives, with this test's address
    assert "tourney serve results/contest --public-url https://bots.example.org " \
           "--trusted-proxy 127.0.0.1" in doc
    served = start_server(tmp_path / "contest", "--game", "battleline", "--public-url", public,
                          "--trusted-proxy", "127.0.0.1")
    try:
        through_nginx(nginx, served, tmp_path, tls, plain)
    finally:
        served.stop()


def through_nginx(nginx: str, served: Served, tmp_path: Path, tls: int, plain: int) -> None:
    """The docs' site, with this test's ports and certificate, in front of ``served``."""
    public = f"https://127.0.0.1:{tls}"
    site = site_of_the_docs()
    backend = served.url.rsplit(":", 1)[1]
    cert, key = certificate(tmp_path)
    site = (site.replace("listen 443 ssl;", f"listen 127.0.0.1:{tls} ssl;")
            .replace("listen 80;", f"listen 127.0.0.1:{plain};")
            .replace("127.0.0.1:8000", f"127.0.0.1:{backend}")
            .replace("/etc/letsencrypt/live/bots.example.org/fullchain.pem", str(cert))
            .replace("/etc/letsencrypt/live/bots.example.org/privkey.pem", str(key)))
    conf = nginx_conf(tmp_path / "nginx", site)
    checked = subprocess.run([nginx, "-t", "-p", str(conf.parent), "-c", str(conf)],
                             capture_output=True, text=True, timeout=patience(60))
    assert checked.returncode == 0, checked.stderr
    proxy = subprocess.Popen([nginx, "-p", str(conf.parent), "-c", str(conf)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    trust = ssl.create_default_context(cafile=str(cert))
    try:
        with httpx.Client(base_url=public, verify=trust, timeout=patience(30)) as web:
            end = time.monotonic() + patience(30)
            while True:
                try:
                    board = web.get("/api/leaderboard")
                    break
                except httpx.ConnectError:
                    assert proxy.poll() is None, proxy.stderr.read() if proxy.stderr else ""
                    assert time.monotonic() < end, "nginx did not answer"
                    time.sleep(0.2)
            assert board.status_code == 200 and board.json()["game"] == "battleline"
            page = web.get("/")
            assert page.status_code == 200 and "Content-Security-Policy" in page.headers
            # the organiser logs in through the proxy: the cookie is for https only
            r = web.post("/login", data={"token": served.organiser}, follow_redirects=False)
            assert r.status_code == 303 and "secure" in r.headers["set-cookie"].lower()
            made = web.post("/api/admin/entrants", json={"name": "alice"},
                            headers={"Authorization": f"Bearer {served.organiser}"})
            assert made.status_code == 201 and made.json()["invite"].startswith(public)
            alice = made.json()["token"]
            # an upload larger than nginx's default (1 MB) reaches the server
            big = b"def act(observation, legal_actions):\n    return legal_actions[0]\n" + \
                b"# padding\n" * 150_000
            sent = web.post("/api/submissions", files={"bot": ("big.py", big)},
                            headers={"Authorization": f"Bearer {alice}"})
            assert sent.status_code == 202, sent.text
            # the client's address is nginx's view of it: a forged X-Forwarded-For is replaced
            codes = [web.post("/login", data={"token": f"tny_guess{i}"},
                              headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
                     for i in range(12)]
            assert codes == [401] * 10 + [429] * 2, codes
        with httpx.Client(timeout=patience(30)) as http:
            r = http.get(f"http://127.0.0.1:{plain}/api/leaderboard", follow_redirects=False)
            assert r.status_code == 301
            assert r.headers["location"] == "https://127.0.0.1/api/leaderboard"
    finally:
        proxy.terminate()
        try:
            proxy.wait(patience(30))
        except subprocess.TimeoutExpired:
            proxy.kill()
            proxy.wait()
