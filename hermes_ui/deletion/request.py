"""Asking for a deletion: capture the snapshot and the consequences at that moment."""

from __future__ import annotations

from django.db import transaction

from hermes_ui.deletion import clock, events, inventory, snapshot
from hermes_ui.deletion.models import OPEN_STATUSES, DeletionRequest
from hermes_ui.endpoints import Endpoint
from hermes_ui.hermes import client_for
from hermes_ui.index.forks import forked_child_ids
from hermes_ui.lineage.consequences import compute


def open_request(endpoint_id: str, session_id: str) -> DeletionRequest | None:
    """The request still in progress for this session, if any (one at a time)."""
    return (
        DeletionRequest.objects.filter(
            endpoint=endpoint_id, session_id=session_id, status__in=OPEN_STATUSES
        )
        .order_by("-created_at")
        .first()
    )


def current_consequences(endpoint: Endpoint, session_id: str, target_row: dict) -> dict:
    """What deleting the session would do now, from both lists paged to the end."""
    client = client_for(endpoint)
    found = compute(
        inventory.all_rows(client),
        session_id,
        target_row=target_row,
        forked_ids=forked_child_ids(endpoint.id),
        visible_ids=inventory.visible_ids(client),
    )
    return found.as_dict()


def create(endpoint: Endpoint, session_id: str, user, reason: str) -> tuple[DeletionRequest, bool]:
    """A new pending request, or the open one for this session (``created`` False).

    Raises ``HermesError`` when Hermes cannot be read; nothing is recorded then.
    """
    existing = open_request(endpoint.id, session_id)
    if existing is not None:
        return existing, False
    snap = snapshot.take(client_for(endpoint), session_id)
    consequences = current_consequences(endpoint, session_id, snap["row"])
    with transaction.atomic():
        existing = open_request(endpoint.id, session_id)
        if existing is not None:
            return existing, False
        request = DeletionRequest.objects.create(
            endpoint=endpoint.id,
            session_id=session_id,
            requester=user,
            requester_name=user.get_username(),
            reason=reason,
            created_at=clock.now(),
            snapshot=snap,
            consequences=consequences,
        )
    events.record(
        user, request, "deletion_request",
        reason=reason, digest=snap["digest"],
        active_message_count=snap["active_message_count"],
        cascade=request.cascade_ids, survivors=request.survivor_ids,
    )  # fmt: skip
    return request, True
