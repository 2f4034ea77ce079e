"""Where a session's transcript is cached between the page and its "load more" chunks.

Written once per change of the transcript, not on every view: a page view
reads a small version entry (resolved id, message count, last message id)
and writes the transcript only when that differs or the entry has expired.
"""

import hashlib

from django.core.cache import cache

from hermes_ui.platform.endpoints import Endpoint

# A long transcript is fetched once for the page and its "load more" chunks.
# Django's cache holds it briefly: process memory by default, Redis (shared by
# every worker) with REDIS_URL.
MESSAGES_TTL = 120


def transcript_cache_key(ep: Endpoint, session_id: str) -> str:
    """The cache key of a session's transcript (``sessions.erase`` drops it too).

    The endpoint's identity is part of the key: an id re-pointed at another
    Hermes never serves the old server's cached transcript.
    """
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"messages:{ep.id}:{ep.fingerprint}:{digest}"


def version_key(key: str) -> str:
    return key + ":version"


def _version(messages: dict) -> str:
    rows = messages["data"]
    last = rows[-1].get("id") if rows and isinstance(rows[-1], dict) else None
    return f"{messages['session_id']}:{len(rows)}:{last}"


def remember(ep: Endpoint, session_id: str, messages: dict) -> bool:
    """Keep ``messages`` for the page's chunks; True when it was written now."""
    key = transcript_cache_key(ep, session_id)
    version = _version(messages)
    if cache.get(version_key(key)) == version and cache.touch(key, MESSAGES_TTL):
        cache.touch(version_key(key), MESSAGES_TTL)
        return False
    cache.set_many({key: messages, version_key(key): version}, MESSAGES_TTL)
    return True


def store(ep: Endpoint, session_id: str, messages: dict) -> None:
    """Keep ``messages`` fetched by a chunk (the page's copy had expired)."""
    key = transcript_cache_key(ep, session_id)
    cache.set_many({key: messages, version_key(key): _version(messages)}, MESSAGES_TTL)
