"""Cached transcripts of a session Hermes deleted, erased (``platform.erasers``).

Registered with ``related=True``: a transcript cached under a neighbour's id
can show a deleted session (a compression root resolves to its tip), so the
entries of those ids go too.
"""

from __future__ import annotations

from django.core.cache import cache

from hermes_ui.platform import erasers
from hermes_ui.sessions.cache import transcript_cache_key, version_key


def erase(scope, ids: list[str]) -> dict[str, int]:
    keys = [transcript_cache_key(scope, sid) for sid in ids]

    def drop() -> dict[str, int]:
        cache.delete_many([version_key(key) for key in keys])
        return {"transcripts": sum(bool(cache.delete(key)) for key in keys)}

    erasers.after_commit(drop)
    return {}
