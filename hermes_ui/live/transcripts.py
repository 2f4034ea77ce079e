"""A watched session gained messages: its cached transcript goes, so the page can append.

The session page caches the transcript it read (``sessions.cache``) for its
"load more" chunks; once an event says the session has new messages, each
worker drops its cached copy (it is per worker without Redis), and the
page's chunk request after its last message reads the new ones from Hermes.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache

from hermes_ui.live import changes as c
from hermes_ui.sessions.cache import transcript_cache_key


def stale(event: dict, watched) -> list[str]:
    """The watched sessions an event says gained messages (or changed beyond naming)."""
    grew = {c.MESSAGES, c.CHANGED, c.NEW}
    return [sid for sid, kinds in event["changes"] if sid in watched and grew & set(kinds)]


def drop(endpoint_id: str, session_ids: list[str]) -> None:
    endpoint = settings.HERMES_ENDPOINTS.get(endpoint_id)
    if endpoint is None or not session_ids:
        return
    cache.delete_many([transcript_cache_key(endpoint, sid) for sid in session_ids])
