"""``manage.py serve``: production start-up refuses a setup that cannot work."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def test_more_than_one_worker_without_redis_stops_at_start_up(settings, monkeypatch):
    settings.REDIS_URL = None
    started = []
    monkeypatch.setattr("hermes_ui.platform.serving.supervise", lambda *a: started.append(a))
    with pytest.raises(CommandError, match="WEB_CONCURRENCY=2 needs REDIS_URL"):
        call_command("serve", "--workers", "2")
    assert started == []  # nothing was launched


def test_bad_backend_urls_stop_start_up():
    from django.core.exceptions import ImproperlyConfigured

    from hermes_ui.platform import backends

    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        backends.postgres_database("mysql://u@h/db")
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL"):
        backends.caches("http://h:6379")
    assert backends.caches("redis://127.0.0.1:6379/0")["lineage"]["BACKEND"].endswith("RedisCache")


def test_a_bad_redis_url_is_refused_without_echoing_its_password():
    from django.core.exceptions import ImproperlyConfigured

    from hermes_ui.platform import backends

    with pytest.raises(ImproperlyConfigured) as refused:
        backends.caches("http://admin:s3cret-pass@h:6379/0")
    assert "'http'" in str(refused.value)
    assert "s3cret-pass" not in str(refused.value)
