"""Sessions Hermes archived, inferred: a root that left both lists but still answers GET.

Where Hermes reports ``archived`` itself, that value decides, never the inference.
"""

from __future__ import annotations

from django.db.models import Q

from hermes_ui.index import counts, sync_state
from hermes_ui.index.models import IndexedSession
from hermes_ui.platform.prepared import Prepared

LABEL = "archived on Hermes (inferred: not listed, still readable)"
RESTORE = (
    "Restore is not in the Hermes API: an operator restores an archived session with "
    "Hermes' own tools on its host; the dashboard shows it again once it is listed."
)
REPORTED_LABEL = "archived on Hermes"
HELP = "archived:yes sessions Hermes archived (hidden by default, archived:no)"
# Indexed, not listed, a root: what a read by id confirmed after it left the lists;
# or, on a Hermes that reports it, archived as reported.
INFERRED = Q(archived__isnull=True, listed=False, parent_session_id="", vanished_at__isnull=True)
ARCHIVED = INFERRED | Q(archived=True, vanished_at__isnull=True)


def is_archived(row: dict) -> bool:
    """From an index row (API shape with ``listed``, and ``archived`` where reported)."""
    if isinstance(row.get("archived"), bool):
        return row["archived"]
    return row.get("listed") is False and not row.get("parent_session_id")


def parse(text: str) -> bool:
    value = text.strip().lower()
    if value in ("yes", "true", "1"):
        return True
    if value in ("no", "false", "0"):
        return False
    raise ValueError("archived: takes yes or no")


def sessions(endpoint, wanted: bool, user) -> Q:
    return ARCHIVED if wanted else ~ARCHIVED


def hides_any(endpoint) -> bool:
    """Whether the default (archived:no) hides a row of this endpoint at all.

    Asked on every search page and it walks every root, so it is cached per state
    of the index: a row becomes archived-looking only through a sync.
    """
    state = sync_state.stored(endpoint)
    at = counts.version(state) if state is not None else None
    found = IndexedSession.objects.filter(ARCHIVED, **endpoint.scope())
    return bool(counts.cached(endpoint, "archived-any", at, lambda: int(found.exists())))


# On every session page: compiled once (platform.prepared).
_ARCHIVED_ONE = Prepared.any_row(
    lambda ep, fp, sid: IndexedSession.objects.filter(
        ARCHIVED, endpoint=ep, endpoint_fp=fp, session_id=sid
    )
)


def state(endpoint, session_id: str) -> bool:
    return _ARCHIVED_ONE.found(endpoint.id, endpoint.fingerprint, session_id)
