"""An endpoint's sync state row: one per endpoint identity (id and base URL)."""

from __future__ import annotations

import logging

from django.utils import timezone

from hermes_ui.index import sweeps
from hermes_ui.index.models import IndexedSession, IndexSyncState
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.prepared import Prepared

log = logging.getLogger("hermes_ui.index")


# Read by every Sessions page, twice (its freshness line and the archived filter):
# compiled once (platform.prepared).
_STORED = Prepared(
    lambda endpoint, fingerprint: IndexSyncState.objects.filter(
        endpoint=endpoint, endpoint_fp=fingerprint
    ).order_by("pk")[:1]
)


def stored(endpoint: Endpoint) -> IndexSyncState | None:
    """The state row as stored, or None."""
    found = _STORED.instances(endpoint.id, endpoint.fingerprint)
    return found[0] if found else None


def state_for(endpoint: Endpoint) -> IndexSyncState:
    """The index state of this endpoint identity; the first use of a new one replaces the old."""
    state, created = IndexSyncState.objects.get_or_create(
        **endpoint.scope(), defaults={"base_url": endpoint.public_url}
    )
    if created:
        _replace_older(endpoint, state)
    return state


def _replace_older(endpoint: Endpoint, state: IndexSyncState) -> None:
    """The URL behind ``endpoint.id`` changed: drop the old server's index, say so."""
    older = list(
        IndexSyncState.objects.filter(endpoint=endpoint.id).exclude(pk=state.pk).order_by("pk")
    )
    if not older:
        return
    previous = older[-1].base_url or "(not recorded)"
    # URLs without credentials (``public_url``), never the key.
    log.warning(
        "index endpoint=%s now points at %s instead of %s: another Hermes database; "
        "its index is dropped and a fresh one starts",
        endpoint.id,
        endpoint.public_url,
        previous,
    )
    IndexedSession.objects.filter(endpoint=endpoint.id).exclude(
        endpoint_fp=endpoint.fingerprint
    ).delete()
    IndexSyncState.objects.filter(pk__in=[o.pk for o in older]).delete()
    state.replaced_url, state.replaced_at = previous, timezone.now()
    state.save(update_fields=["replaced_url", "replaced_at"])


def due_full(state: IndexSyncState) -> bool:
    """Is a full sweep due? (``sweeps``: the interval adapts to the last sweep's length.)"""
    return sweeps.due_full(state)
