"""Whether Redis answers, for everything that may use it (caches, the Hermes breaker, /readyz).

Redis is a cache and a relay here, never the system of record, so its
outage must cost the dashboard its speed, not its pages. After a failure
every user treats Redis as down for ``DOWN_SECONDS`` (no request pays a
connect timeout meanwhile), then tries it again. The log says so once when
an outage starts and once when it ends, not once per request.
"""

from __future__ import annotations

import functools
import time

from django.conf import settings

from hermes_ui.platform.outages import Outage

DOWN_SECONDS = 2.0
# A Redis that hangs must not hold a page: each command fails after this long.
SOCKET_TIMEOUT = 0.5

_down_until = 0.0
OUTAGE = Outage("redis", "serving without the cache and shared state", "hermes_ui.redis")


def configured() -> bool:
    return bool(getattr(settings, "REDIS_URL", None))


def available() -> bool:
    """Configured, and not inside the quiet period after a failure."""
    return configured() and time.monotonic() >= _down_until


def failed(exc: BaseException, where: str) -> None:
    """Record a failed Redis command; the first of an outage is logged."""
    global _down_until
    _down_until = time.monotonic() + DOWN_SECONDS
    OUTAGE.failed(exc, where)


def answered() -> None:
    """Record a command Redis answered; ends an outage (logged once)."""
    OUTAGE.answered()


@functools.cache
def _client(url: str):
    import redis

    return redis.Redis.from_url(
        url,
        socket_timeout=SOCKET_TIMEOUT,
        socket_connect_timeout=SOCKET_TIMEOUT,
        health_check_interval=30,
    )


def client():
    """The shared client (thread-safe, pooled), or ``None`` when Redis is not configured."""
    return _client(settings.REDIS_URL) if configured() else None


def ping() -> bool:
    """One ``PING`` now, whatever the quiet period says (``/readyz``)."""
    import redis

    try:
        client().ping()
    except redis.RedisError as exc:
        failed(exc, "ping")
        return False
    answered()
    return True
