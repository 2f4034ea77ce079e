"""Strict readers for settings that come from the environment.

A typo in an environment variable must stop the process at start-up with a
clear message, not surface later as odd behaviour, so every reader raises
``ImproperlyConfigured`` on a value it cannot parse.
"""

import ipaddress
import os
from typing import overload
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of {sorted(_TRUE | _FALSE)}, got {value!r}")


def env_int(
    name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        parsed = int(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and parsed < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {parsed}")
    if maximum is not None and parsed > maximum:
        raise ImproperlyConfigured(f"{name} must be <= {maximum}, got {parsed}")
    return parsed


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        parsed = float(value.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from None
    if parsed < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {parsed}")
    return parsed


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_url(name: str, default: str | None = None) -> str | None:
    value = env_str(name, default)
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ImproperlyConfigured(f"{name} must be an http(s) URL, got {value!r}")
    if parts.query or parts.fragment:
        raise ImproperlyConfigured(f"{name} must not carry a query or fragment")
    return value.rstrip("/")


def env_addresses(name: str, default: list[str]) -> list[str]:
    """Comma-separated IP addresses and networks (``10.0.0.5``, ``10.0.1.0/24``, ``::1``).

    uvicorn, which receives them, silently treats anything else as a literal
    that never matches, and ``*`` would let every client choose its address.
    """
    items = env_list(name, default)
    for item in items:
        try:
            ipaddress.ip_network(item) if "/" in item else ipaddress.ip_address(item)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must list IP addresses or networks (e.g. 10.0.0.5,10.0.1.0/24), "
                f"got {item!r}"
            ) from None
    return items


def env_email(name: str, default: str) -> str:
    """An address (``a@b.c`` or ``Name <a@b.c>``), as ``DEFAULT_FROM_EMAIL`` takes it."""
    from email.utils import parseaddr

    value = env_str(name, default)
    _, address = parseaddr(value)
    if "@" not in address or address.startswith("@") or address.endswith("@"):
        raise ImproperlyConfigured(
            f"{name} must be an e-mail address (hermes@example.org), got {value!r}"
        )
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    lowered = value.strip().lower()
    if lowered not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {list(choices)}, got {value!r}")
    return lowered
