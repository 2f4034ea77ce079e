"""Where the dashboard keeps its own data: SQLite and process memory, or PostgreSQL and Redis.

The embedded default needs nothing but Python (one process, one SQLite file,
LocMem caches). ``DATABASE_URL`` and ``REDIS_URL`` switch to shared services so
several worker processes, on one host or several, serve the same dashboard.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

REDIS_CACHE = "hermes_ui.platform.redis_cache.ForgivingRedisCache"
LOCMEM_CACHE = "django.core.cache.backends.locmem.LocMemCache"
# Rendered lineage drawings kept in memory when there is no Redis (per process).
SVG_MEMORY_ENTRIES = 32
SVG_TTL = 24 * 3600
# Sign-in sessions kept in memory when there is no Redis (per process; the table has them all).
SESSION_MEMORY_ENTRIES = 5000


def sqlite_database(path: str, test_path: str) -> dict:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        "OPTIONS": {
            # WAL plus immediate transactions keep concurrent writers (streams,
            # page loads, the task workers) from failing with "database is
            # locked" in the middle of a request. secure_delete zeroes what a
            # DELETE or an overwrite frees, so text erased after a deletion or
            # by turn retention does not linger in free pages (the WAL is
            # truncated after each erasure: see ``sqlite_wipe``).
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON;"
            ),
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
        # Kept open between requests: pages run on a worker's small pool of
        # threads (see ``hermes_ui.asgi``), and opening a connection costs
        # more than a page's queries (PRAGMAs, Django's SQL functions).
        "CONN_MAX_AGE": 600,
        "CONN_HEALTH_CHECKS": True,
        # A file, not SQLite's shared-cache memory database, so tests see the
        # same locking (WAL, busy timeout) as the running dashboard.
        # One file per test process, so parallel runs never share a database.
        "TEST": {"NAME": test_path},
    }


def postgres_database(url: str, pool_size: int = 8, wait: float = 2.0) -> dict:
    """``DATABASE_URL`` (``postgres://user:password@host:port/name``) as Django settings."""
    import dj_database_url

    if urlsplit(url).scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must be a postgres:// URL (SQLite is the default without it), "
            f"got scheme {urlsplit(url).scheme!r}"
        )
    # Each process keeps a small pool of open connections (psycopg_pool, through
    # Django's own "pool" option). Opening one per request, as Django does by
    # default, made PostgreSQL fork a backend for every page: in the scale bench
    # that cost more CPU than the page itself. A pool, unlike CONN_MAX_AGE, is
    # not pinned to the thread that ran a view, which matters under ASGI.
    # Health checks also make the pool test a connection before handing it out,
    # so a restart or failover of PostgreSQL costs a reconnect, not an error page.
    config = dj_database_url.parse(url, conn_max_age=0, conn_health_checks=True)
    if not config.get("NAME"):
        raise ImproperlyConfigured("DATABASE_URL must name a database (…/dbname)")
    # ``wait`` bounds both a wait for a free connection and a connection attempt,
    # so while PostgreSQL is unreachable a page fails in seconds (503), not minutes.
    # It also ends each of the pool's reconnection attempts: they back off 1, 2, 4,
    # 8... s, so after a minute's outage the pool would next try up to half a minute
    # after PostgreSQL was back; given up, the next page that waits starts a new one.
    options = config.setdefault("OPTIONS", {})
    options["connect_timeout"] = max(1, round(wait))
    options["pool"] = {
        "min_size": 1,
        "max_size": pool_size,
        "timeout": wait,
        "reconnect_timeout": wait,
    }
    return config  # type: ignore[return-value]


def caches(redis_url: str | None) -> dict:
    """The default cache (transcripts), the ``lineage`` cache (rendered SVGs) and the
    ``sessions`` cache (sign-in sessions in front of their table: Django's ``cached_db``,
    so a page does not query for its session; a miss or a Redis outage reads the table)."""
    if not redis_url:
        return {
            "default": {"BACKEND": LOCMEM_CACHE},
            "lineage": {
                "BACKEND": LOCMEM_CACHE,
                "LOCATION": "lineage-svg",
                "TIMEOUT": SVG_TTL,
                "OPTIONS": {"MAX_ENTRIES": SVG_MEMORY_ENTRIES},
            },
            "sessions": {
                "BACKEND": LOCMEM_CACHE,
                "LOCATION": "sign-in-sessions",
                "OPTIONS": {"MAX_ENTRIES": SESSION_MEMORY_ENTRIES},
            },
        }
    if urlsplit(redis_url).scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(
            f"REDIS_URL must be a redis:// URL, got scheme {urlsplit(redis_url).scheme!r}"
        )
    # A Redis that hangs costs a page half a second per command at most, and then
    # nothing while it stays down (see hermes_ui.platform.redis_link).
    timeouts = {"socket_timeout": 0.5, "socket_connect_timeout": 0.5}
    shared = {"BACKEND": REDIS_CACHE, "LOCATION": redis_url, "OPTIONS": timeouts}
    return {
        "default": {**shared, "KEY_PREFIX": "hui"},
        "lineage": {**shared, "KEY_PREFIX": "hui-svg", "TIMEOUT": SVG_TTL},
        "sessions": {**shared, "KEY_PREFIX": "hui-signin"},
    }
