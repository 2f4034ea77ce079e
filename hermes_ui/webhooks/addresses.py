"""Where a webhook may be sent: https to a public address, unless its host is allowed.

Checked at every delivery, not only when the URL is saved: a name that
resolved to a public address yesterday may resolve to 127.0.0.1 today. The
caller then connects to the address checked here (``Target.address``), never
resolves the name again, and follows no redirect.
``HERMES_UI_WEBHOOK_ALLOW_HOSTS`` lists host names or addresses exempt from
both rules (plain http, a loopback or private address): an internal
receiver, or the tests' loopback one.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings


class Refused(Exception):
    """The URL may not be delivered to; ``code`` says why (never the address)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as written in the URL (Host header, TLS server name)
    port: int
    address: str  # the checked IP to connect to
    path: str  # path and query

    @property
    def connect_url(self) -> str:
        literal = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{literal}:{self.port}{self.path}"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        return self.host if self.port == default else f"{self.host}:{self.port}"


def allowed(host: str) -> bool:
    return host.lower() in {h.lower() for h in settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS}


def check_form(url: str) -> None:
    """What can be told without resolving (on save): scheme, host, no credentials."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host:
        raise Refused("no_host", "The URL needs a host.")
    if parts.username or parts.password:
        raise Refused("credentials", "Put no credentials in the URL; the secret signs the body.")
    if parts.scheme not in ("https", "http"):
        raise Refused("scheme", "The URL must start with https://.")
    if parts.scheme != "https" and not allowed(host):
        raise Refused(
            "not_https",
            "The URL must be https (a plain http host must be listed in "
            "HERMES_UI_WEBHOOK_ALLOW_HOSTS).",
        )


def resolve(url: str) -> Target:
    """The address to connect to, checked; raises ``Refused``."""
    check_form(url)
    parts = urlsplit(url)
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Refused("unresolvable", "The webhook's host name does not resolve.") from None
    addresses = [info[4][0] for info in infos]
    if not addresses:
        raise Refused("unresolvable", "The webhook's host name does not resolve.")
    if not allowed(host):
        # Every address the name has must be public: a name with one public and
        # one private address could be answered with either at connect time.
        for address in addresses:
            if not ipaddress.ip_address(address.split("%")[0]).is_global:
                raise Refused(
                    "refused_address",
                    "The webhook's host resolves to a loopback, private or reserved "
                    "address; list it in HERMES_UI_WEBHOOK_ALLOW_HOSTS to allow it.",
                )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, addresses[0], path)
