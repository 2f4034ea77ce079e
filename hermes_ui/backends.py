"""Where the dashboard keeps its own data: SQLite and process memory, or PostgreSQL and Redis.

The embedded default needs nothing but Python (one process, one SQLite file,
LocMem caches). ``DATABASE_URL`` and ``REDIS_URL`` switch to shared services so
several worker processes, on one host or several, serve the same dashboard.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"
LOCMEM_CACHE = "django.core.cache.backends.locmem.LocMemCache"
# Rendered lineage drawings kept in memory when there is no Redis (per process).
SVG_MEMORY_ENTRIES = 32
SVG_TTL = 24 * 3600


def sqlite_database(path: str, test_path: str) -> dict:
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        "OPTIONS": {
            # WAL plus immediate transactions keep concurrent writers (streams,
            # page loads, the index refresher) from failing with "database is
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
        # A file, not SQLite's shared-cache memory database, so tests see the
        # same locking (WAL, busy timeout) as the running dashboard.
        # One file per test process, so parallel runs never share a database.
        "TEST": {"NAME": test_path},
    }


def postgres_database(url: str) -> dict:
    """``DATABASE_URL`` (``postgres://user:password@host:port/name``) as Django settings."""
    import dj_database_url

    if urlsplit(url).scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_URL must be a postgres:// URL (SQLite is the default without it), "
            f"got scheme {urlsplit(url).scheme!r}"
        )
    # Connections are opened per request and closed after it: under ASGI a
    # persistent connection would be pinned to whichever thread ran the view.
    config = dj_database_url.parse(url, conn_max_age=0, conn_health_checks=True)
    if not config.get("NAME"):
        raise ImproperlyConfigured("DATABASE_URL must name a database (…/dbname)")
    return config


def caches(redis_url: str | None) -> dict:
    """The default cache (transcripts) and the ``lineage`` cache (rendered SVGs)."""
    if not redis_url:
        return {
            "default": {"BACKEND": LOCMEM_CACHE},
            "lineage": {
                "BACKEND": LOCMEM_CACHE,
                "LOCATION": "lineage-svg",
                "TIMEOUT": SVG_TTL,
                "OPTIONS": {"MAX_ENTRIES": SVG_MEMORY_ENTRIES},
            },
        }
    if urlsplit(redis_url).scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(
            f"REDIS_URL must be a redis:// URL, got scheme {urlsplit(redis_url).scheme!r}"
        )
    shared = {"BACKEND": REDIS_CACHE, "LOCATION": redis_url}
    return {
        "default": {**shared, "KEY_PREFIX": "hui"},
        "lineage": {**shared, "KEY_PREFIX": "hui-svg", "TIMEOUT": SVG_TTL},
    }
