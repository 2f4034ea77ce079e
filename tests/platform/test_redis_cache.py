"""The Redis caches while Redis is away: misses, not errors; one log line each way."""

import logging
import time

import pytest
from django.core.cache import caches

from devtools import services
from devtools.peer.launcher import free_port
from hermes_ui.platform import backends, redis_link
from hermes_ui.platform.redis_cache import ForgivingRedisCache

QUIET = 0.2  # redis_link.DOWN_SECONDS for these tests


@pytest.fixture
def redis_at(settings, monkeypatch):
    """Point REDIS_URL and both caches at ``redis://127.0.0.1:<port>``; nobody listens yet."""
    monkeypatch.setattr(redis_link, "_down_until", 0.0)
    monkeypatch.setattr(redis_link.OUTAGE, "_since", None)
    monkeypatch.setattr(redis_link, "DOWN_SECONDS", QUIET)
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    settings.REDIS_URL = url
    settings.CACHES = backends.caches(url)
    return port


def outage_lines(caplog, text):
    return [r for r in caplog.records if r.name == "hermes_ui.redis" and text in r.getMessage()]


def use_every_command(cache):
    assert cache.get("k") is None
    assert cache.get("k", "fallback") == "fallback"
    assert cache.get_many(["k", "j"]) == {}
    assert cache.has_key("k") is False
    assert cache.set("k", "v") is None
    assert cache.add("k", "v") is False
    assert cache.set_many({"k": 1, "j": 2}) == ["k", "j"]
    assert cache.touch("k") is False


def test_an_unreachable_redis_is_a_cache_miss_logged_once(redis_at, caplog):
    cache = caches["default"]
    assert isinstance(cache, ForgivingRedisCache)
    started = time.monotonic()
    with caplog.at_level(logging.INFO, logger="hermes_ui.redis"):
        for _ in range(5):
            redis_link._down_until = 0.0  # past the quiet period: Redis is really tried
            use_every_command(cache)
            use_every_command(caches["lineage"])
    assert time.monotonic() - started < 5
    assert len(outage_lines(caplog, "redis unreachable")) == 1
    assert not outage_lines(caplog, "redis is back")


def test_during_the_quiet_period_nobody_waits_for_redis(redis_at, monkeypatch):
    cache = caches["default"]
    cache.get("k")  # fails: the outage starts
    assert not redis_link.available()
    # A Redis that would hang every command: not asked while the quiet period lasts.
    monkeypatch.setattr(redis_link, "_client", lambda url: pytest.fail("Redis was asked"))
    monkeypatch.setattr(cache, "_cache", None)
    started = time.monotonic()
    for _ in range(100):
        assert cache.get("k", "d") == "d"
    assert time.monotonic() - started < 0.5


def test_values_round_trip_again_when_redis_is_back(redis_at, monkeypatch, caplog):
    cache = caches["default"]
    with caplog.at_level(logging.INFO, logger="hermes_ui.redis"):
        cache.set("k", {"kept": 1})
        assert cache.get("k") is None
        monkeypatch.setattr(services, "free_port", lambda: redis_at)
        with services.Redis():
            time.sleep(QUIET + 0.05)  # the quiet period ends; no restart needed
            cache.set("k", {"kept": 1})
            assert cache.get("k") == {"kept": 1}
            assert cache.add("j", 2) is True and cache.get("j") == 2
    assert len(outage_lines(caplog, "redis unreachable")) == 1
    assert len(outage_lines(caplog, "redis is back")) == 1


def test_a_delete_that_cannot_reach_redis_fails_for_erasure_to_see(redis_at):
    import redis

    cache = caches["default"]
    # Only erasure deletes: a copy left in Redis must not be reported as erased.
    with pytest.raises(redis.RedisError):
        cache.delete("k")
    with pytest.raises(redis.RedisError):
        cache.delete_many(["k", "j"])


def test_sign_ins_hold_while_redis_is_away(redis_at, users):
    """Sign-in sessions are rows with Redis in front (cached_db): without Redis, the rows."""
    from django.contrib.sessions.models import Session
    from django.test import Client

    from tests.conftest import PASSWORD

    client = Client()
    answer = client.post("/accounts/login/", {"username": "support", "password": PASSWORD})
    assert answer.status_code == 302
    assert Session.objects.filter(session_key=client.cookies["sessionid"].value).exists()
    for _ in range(2):
        redis_link._down_until = 0.0  # Redis is really tried each time
        assert client.get("/mentions/").status_code == 200
