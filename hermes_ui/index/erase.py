"""What the index keeps about a session, erased when Hermes deleted it (``platform.erasers``).

Its row (title, preview), the searchable transcript text of the content
index and the fork records naming it. The cached lineage drawings that show
it are the lineage page's (``hermes_ui.lineage.erase``).
"""

from __future__ import annotations

from django.db.models import Q

from hermes_ui.index import content_store
from hermes_ui.index.models import ContentMessage, IndexedSession, KnownFork
from hermes_ui.platform import erasers


def _rows(scope, ids: list[str]):
    return IndexedSession.objects.filter(erasers.mine(scope), session_id__in=ids)


def _forks(scope, ids: list[str]):
    return KnownFork.objects.filter(
        erasers.mine(scope) & (Q(parent_id__in=ids) | Q(child_id__in=ids))
    )


def held_rows(scope, ids: list[str]) -> dict[str, int]:
    return {"index_rows": _rows(scope, ids).count()}


def erase_rows(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _rows(scope, ids).delete()
    return {"index_rows": deleted}


def held_content(scope, ids: list[str]) -> dict[str, int]:
    mine = ContentMessage.objects.filter(erasers.mine(scope), session_id__in=ids)
    return {"content_messages": mine.count()}


def erase_content(scope, ids: list[str]) -> dict[str, int]:
    """What was read for these ids or stored under them."""
    _, dropped = content_store.erase(erasers.mine(scope), ids)
    if dropped:
        erasers.after_commit(content_store.compact)  # no deleted terms left in the FTS index
    return {"content_messages": dropped}


def held_forks(scope, ids: list[str]) -> dict[str, int]:
    return {"forks": _forks(scope, ids).count()}


def erase_forks(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _forks(scope, ids).delete()
    return {"forks": deleted}
