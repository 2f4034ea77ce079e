"""Counts every index page shows, cached per state of the index.

The freshness line's "N sessions" and the search's "transcripts indexed"
are ``COUNT``s over every row of the endpoint: a few milliseconds at 10,000
sessions, ten times that at 100,000, on every page view. They change only
when a sync writes, so they are cached under a *version* of the endpoint's
sync state (its generation and last sync, ``version``); while a sync runs
(a first index at 100,000 sessions takes a while) the version moves on every
``RUNNING_BUCKET`` seconds, so a page is at most that far behind. ``TTL``
bounds what a change outside a sync (a deletion's erasure) can leave stale.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.core.cache import cache

from hermes_ui.platform.endpoints import Endpoint

RUNNING_BUCKET = 5  # seconds
TTL = 60  # seconds


def version(state) -> str:
    """The sync state's version: a new one whenever a sync may have changed a count."""
    stamp = state.last_sync_at.timestamp() if state.last_sync_at else 0
    parts = [str(state.generation), f"{stamp:.6f}", str(state.sweep)]
    if state.running_since is not None:
        parts.append(f"run{int(time.time() // RUNNING_BUCKET)}")
    return "-".join(parts)


def cached(ep: Endpoint, name: str, at: str | None, compute: Callable[[], int]) -> int:
    """``compute()``, or its value cached for this endpoint at version ``at`` (None: no cache)."""
    if at is None:
        return compute()
    key = f"index-count:{name}:{ep.id}:{ep.fingerprint}:{at}"
    found = cache.get(key)
    if found is None:
        found = compute()
        cache.set(key, found, TTL)
    return found
