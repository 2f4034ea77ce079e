"""Requests per person per minute, all their tokens together, counted in Django's
cache (Redis with REDIS_URL, so every worker counts into one window): a person
may mint any number of tokens, and more tokens must not mean more requests."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

WINDOW = 60  # seconds


def over_limit(user_id: int) -> int | None:
    """Count one request of the person; the seconds to wait when they are over the limit."""
    now = time.time()
    window = int(now // WINDOW)
    key = f"api-rate:user:{user_id}:{window}"
    cache.add(key, 0, WINDOW + 5)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr: a new window
        cache.add(key, 1, WINDOW + 5)
        count = 1
    if count > settings.HERMES_UI_API_RATE:
        return max(1, int((window + 1) * WINDOW - now) + 1)
    return None
