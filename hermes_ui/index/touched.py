"""Targeted refreshes: sessions the dashboard itself acted on, and single rows.

Renames, closes and forks do not move a row in the provider's activity
order (a fork copies the parent's message times), so paging from the top
would not find them. The dashboard knows what it did, though: every action
is in the audit trail and every fork in ``KnownFork``. Re-reading those ids
with ``session_get`` keeps the index exact for changes
made here, at the cost of one GET per touched session.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.audit.models import AuditEvent
from hermes_ui.hermes import errors as e
from hermes_ui.index import store
from hermes_ui.index.models import IndexedSession, KnownFork
from hermes_ui.platform.endpoints import Endpoint

BATCH = 200  # dashboard actions folded in per sync; the rest wait for the next one
MAX_CASCADE = 500  # descendants re-read after a deletion
_ID_KEYS = (
    "session_id",
    "id",
    "child_id",
    "generated_id",
    "requested_id",
    "effective_session_id",
    "resolved_session_id",
)


@dataclass
class Pending:
    session_ids: list[str]
    audit_mark: int
    fork_mark: int


def pending(ep: Endpoint, audit_mark: int, fork_mark: int) -> Pending:
    """Ids the dashboard acted on after the given watermarks, oldest first."""
    found: dict[str, None] = {}
    events = list(
        AuditEvent.objects.filter(**ep.scope(), pk__gt=audit_mark)
        .order_by("pk")
        .values_list("pk", "session_id", "evidence")[:BATCH]
    )
    for _, session_id, evidence in events:
        for value in [session_id, *_evidence_ids(evidence)]:
            if isinstance(value, str) and value:
                found[value] = None
    forks = list(
        KnownFork.objects.filter(**ep.scope(), pk__gt=fork_mark)
        .order_by("pk")
        .values_list("pk", "parent_id", "child_id")[:BATCH]
    )
    for _, parent_id, child_id in forks:
        found[parent_id] = None
        found[child_id] = None
    return Pending(
        list(found),
        events[-1][0] if events else audit_mark,
        forks[-1][0] if forks else fork_mark,
    )


def _evidence_ids(evidence) -> list:
    if not isinstance(evidence, dict):
        return []
    return [evidence.get(key) for key in _ID_KEYS]


# Reads between two lease renewals of a sync (each read may take up to the JSON timeout).
BEAT_EVERY = 10


def refresh(client, ep: Endpoint, session_ids: list[str], gen: int, *, listed=None, beat=None):
    """Re-read ``session_ids``; a 404 vanishes the row and re-reads its descendants.

    Returns ``(counts, ids re-read)``. Read failures other than "not found" propagate:
    a sync stops rather than record a guess. ``beat`` is called every few reads,
    so a sync holding a lease renews it through hundreds of GETs.
    """
    counts = store.Counts()
    queue, seen = list(dict.fromkeys(session_ids)), set()  # type: ignore[var-annotated]
    while queue and len(seen) < len(session_ids) + MAX_CASCADE:
        batch = [sid for sid in queue if sid not in seen]
        queue = []
        found, gone = [], []
        for session_id in batch:
            seen.add(session_id)
            if beat is not None and len(seen) % BEAT_EVERY == 0:
                beat()
            try:
                found.append(client.get_session(session_id).as_row())
            except e.NotFound:
                gone.append(session_id)
            except e.InvalidInput:
                continue  # an id the dashboard can never address; nothing to refresh
        counts.add(store.upsert(ep, found, gen, listed=listed, touch=False))
        if gone:
            counts.vanished += store.vanish(ep, gone, gen)
            # The provider deletes a session's delegates with it and clears the
            # parent of the rest: re-read every child the index knew.
            queue = list(
                IndexedSession.objects.filter(**ep.scope(), parent_session_id__in=gone).values_list(
                    "session_id", flat=True
                )
            )
    return counts, seen
