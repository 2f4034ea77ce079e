"""Django's Redis cache, made optional at run time: while Redis is down, pages go without it.

Every cache here holds copies (transcripts, rendered drawings) that the
dashboard can rebuild, so a failed command is a miss: ``get`` returns its
default, a write is dropped. A delete still fails: erasure must know when a
copy could not be removed. ``hermes_ui.platform.redis_link`` logs the outage once,
keeps requests from paying a connect timeout each while it lasts, and logs
the recovery; nothing needs a restart.

django-redis's ``IGNORE_EXCEPTIONS`` does the same but logs every ignored
command (one line per request during an outage) and would replace Django's
own backend, which the erasure code reads directly.
"""

from __future__ import annotations

import functools

from django.core.cache.backends.redis import RedisCache

from hermes_ui.platform import redis_link


def _forgiving(missed):
    """``missed(*args, **kwargs)`` is what the method returns when Redis did not answer."""

    def wrap(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            if not redis_link.available():
                return missed(*args, **kwargs)
            import redis

            try:
                result = method(self, *args, **kwargs)
            except redis.RedisError as exc:
                redis_link.failed(exc, "cache")
                return missed(*args, **kwargs)
            redis_link.answered()
            return result

        return call

    return wrap


def _default(key, default=None, version=None):
    return default


def _nothing(*args, **kwargs):
    return None


def _false(*args, **kwargs):
    return False


def _no_values(*args, **kwargs):
    return {}


def _all_keys_failed(data, *args, **kwargs):
    return list(data)


class ForgivingRedisCache(RedisCache):
    get = _forgiving(_default)(RedisCache.get)
    get_many = _forgiving(_no_values)(RedisCache.get_many)
    has_key = _forgiving(_false)(RedisCache.has_key)
    add = _forgiving(_false)(RedisCache.add)
    set = _forgiving(_nothing)(RedisCache.set)
    set_many = _forgiving(_all_keys_failed)(RedisCache.set_many)
    touch = _forgiving(_false)(RedisCache.touch)
    # ``delete`` and ``delete_many`` are not forgiven: only erasure deletes, and an
    # erasure that could not reach Redis must fail, not report copies gone that are not.
