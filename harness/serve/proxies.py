"""Whom the server believes about a client's address.

A client is the address it connects from, unless it connects from a reverse proxy the organiser
named (``tourney serve --trusted-proxy ADDR``): then the client is the address that proxy wrote
into ``X-Forwarded-For`` (the last one no trusted proxy wrote), and ``X-Forwarded-Proto`` its
scheme. By default no proxy is trusted, loopback included: anyone who reaches the port through a
local hop (an SSH tunnel, another service on the machine) would otherwise choose their own
address, and with it escape the per-address limits on logins and sign-ups.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.middleware import Middleware


class ProxyError(ValueError):
    """A --trusted-proxy that is not an address or a network."""


def trusted_networks(values: Iterable[str]) -> list[str]:
    """The trusted proxies as addresses and networks in their usual spelling; :class:`ProxyError`
    naming the first that is neither."""
    out: list[str] = []
    for raw in values:
        value = raw.strip()
        try:
            spelled = str(ipaddress.ip_network(value, strict=False)) if "/" in value \
                else str(ipaddress.ip_address(value))
        except ValueError:
            raise ProxyError(f"--trusted-proxy {raw!r} is not an IP address or network; give "
                             f"the proxy's address as the server sees it, e.g. 127.0.0.1 or "
                             f"10.0.0.0/8") from None
        if spelled not in out:
            out.append(spelled)
    return out


def middleware(proxies: Iterable[str]) -> list[Middleware]:
    """The app's first middleware: the client's address taken from the trusted proxies' headers
    (nothing when none is trusted)."""
    trusted = trusted_networks(proxies)
    if not trusted:
        return []
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    return [Middleware(ProxyHeadersMiddleware, trusted_hosts=trusted)]
