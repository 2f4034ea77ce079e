"""Where a webhook may be sent: https to a globally routable unicast address, unless
its host is allowed.
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


# What Python 3.11's ``is_global`` lets through that is no globally routable unicast
# address: each reaches (or stands for) another network, a gateway or nothing.
_NOT_ROUTABLE = tuple(
    ipaddress.ip_network(net)
    for net in (
        "64:ff9b::/96",  # NAT64: an IPv4 host behind the gateway, internal ones included
        "64:ff9b:1::/48",  # NAT64, local use
        "2002::/16",  # 6to4: an embedded IPv4 address
        "2001::/32",  # Teredo
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation (RFC 9637)
        "192.88.99.0/24",  # 6to4 relay anycast
        "192.0.2.0/24",  # documentation (TEST-NET-1..3)
        "198.51.100.0/24",
        "203.0.113.0/24",
    )
)
# IPv6 global unicast (RFC 4291); anything outside it (multicast, mapped, NAT64 ...) is not.
_V6_GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")
# Codes of URLs no retry can deliver to: the delivery fails at once.
PERMANENT = frozenset({"no_host", "credentials", "scheme", "not_https", "port"})


def routable(address: str) -> bool:
    """Whether ``address`` is globally routable unicast (the only kind a webhook may reach)."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if ip.is_multicast or not ip.is_global:
        return False
    if ip.version == 6 and ip not in _V6_GLOBAL_UNICAST:
        return False
    return not any(ip in net for net in _NOT_ROUTABLE if net.version == ip.version)


def allowed(host: str) -> bool:
    return host.lower() in {h.lower() for h in settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS}


def check_form(url: str) -> None:
    """What can be told without resolving (on save and at every attempt): scheme, host,
    port, no credentials."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if not host:
        raise Refused("no_host", "The URL needs a host.")
    if "@" in parts.netloc:
        raise Refused("credentials", "Put no credentials in the URL; the secret signs the body.")
    try:
        port = parts.port
    except ValueError:
        port = -1
    if port is not None and not 1 <= port <= 65535:
        raise Refused("port", "The port must be a number from 1 to 65535.")
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
    if not allowed(host):  # type: ignore[arg-type]
        # Every address the name has must be public: a name with one public and
        # one private address could be answered with either at connect time.
        for address in addresses:
            if not routable(address):  # type: ignore[arg-type]
                raise Refused(
                    "refused_address",
                    "The webhook's host resolves to an address that is not globally "
                    "routable unicast (loopback, private, multicast, NAT64, 6to4 and the "
                    "like); list it in HERMES_UI_WEBHOOK_ALLOW_HOSTS to allow it.",
                )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, addresses[0], path)  # type: ignore[arg-type]
