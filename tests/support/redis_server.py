"""A throwaway Redis for unit tests that need the shared (multi-worker) code paths.

``redis_url`` starts one ``redis-server`` per test session; ``with_redis``
points this process's settings at it (``REDIS_URL`` and the Redis caches)
and empties it after each test. ``tests/conftest.py`` makes both fixtures
available to every test.
"""

import pytest

from devtools.services import Redis
from hermes_ui.platform import backends


@pytest.fixture(scope="session")
def redis_url():
    with Redis() as server:
        yield server.url


@pytest.fixture
def with_redis(settings, redis_url):
    import redis

    settings.REDIS_URL = redis_url
    settings.CACHES = backends.caches(redis_url)
    conn = redis.Redis.from_url(redis_url)
    yield conn
    conn.flushdb()
    conn.close()
