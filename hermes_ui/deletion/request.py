"""Asking for a deletion: capture the snapshot and the consequences at that moment."""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, transaction

from hermes_ui.deletion import announce, clock, erasure, events, inventory, snapshot
from hermes_ui.deletion.models import OPEN_STATUSES, DeletionRequest
from hermes_ui.hermes import client_for
from hermes_ui.hermes import errors as e
from hermes_ui.index.forks import forked_child_ids
from hermes_ui.index.models import IndexedSession
from hermes_ui.lineage.classify import DELEGATE
from hermes_ui.lineage.consequences import compute
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.prepared import Prepared


def open_request(endpoint: Endpoint, session_id: str) -> DeletionRequest | None:
    """The request still in progress for this session, if any (one at a time)."""
    return (
        DeletionRequest.objects.filter(
            **endpoint.scope(), session_id=session_id, status__in=OPEN_STATUSES
        )
        .order_by("-created_at")
        .first()
    )


# The session page's action shows the open request's number and status, on every view:
# those two fields only (not the snapshot and consequences), compiled once.
_OPEN_CASE = Prepared(
    lambda ep, fp, sid: (
        DeletionRequest.objects.filter(
            endpoint=ep, endpoint_fp=fp, session_id=sid, status__in=OPEN_STATUSES
        )
        .order_by("-created_at")
        .values_list("id", "status")[:1]
    )
)


def open_case(endpoint: Endpoint, session_id: str) -> DeletionRequest | None:
    """``open_request`` with its id and status read (the rest deferred)."""
    found = _OPEN_CASE.first(endpoint.id, endpoint.fingerprint, session_id)
    return DeletionRequest.from_db(DEFAULT_DB_ALIAS, ["id", "status"], found) if found else None


def lists_now(endpoint: Endpoint) -> tuple[list[dict], set[str]]:
    """Both lists paged to the end: the administrative rows and the default list's ids."""
    client = client_for(endpoint)
    return inventory.all_rows(client), inventory.visible_ids(client)


def current_consequences(
    endpoint: Endpoint, session_id: str, target_row: dict, lists: tuple | None = None
) -> dict:
    """What deleting the session would do now, from both lists paged to the end
    (``lists``: already read by ``lists_now``, when many sessions are asked at once)."""
    rows, visible = lists or lists_now(endpoint)
    found = compute(
        rows,
        session_id,
        target_row=target_row,
        forked_ids=forked_child_ids(endpoint),
        visible_ids=visible,
    )
    return found.as_dict()


def lost_case(endpoint: Endpoint, session_id: str) -> tuple[dict, dict] | None:
    """The snapshot and consequences of a session Hermes already lost (404).

    Its delegates went with it, so the delegates the index knew are erased
    too, once a read confirms each is gone. None when the dashboard keeps
    nothing about any of them: there is nothing to erase.
    """
    cascade = indexed_delegates(endpoint, session_id)
    held = erasure.local_copies(endpoint, [session_id, *(item["id"] for item in cascade)])
    if not any(held.values()):
        return None
    snap = {
        "gone_at_request": True,
        "row": {"id": session_id},
        "active_message_count": 0,
        "digest": "",
        "resolved_session_id": session_id,
        "local_copies": held,
    }
    return snap, {"cascade": cascade, "survivors": [], "listed_rows": 0}


def indexed_delegates(endpoint: Endpoint, session_id: str, max_depth: int = 50) -> list[dict]:
    """The delegate descendants the index recorded for a session, depth first."""
    found, seen = [], {session_id}

    def walk(parent_id: str, depth: int) -> None:
        children = IndexedSession.objects.filter(
            **endpoint.scope(), parent_session_id=parent_id, kind=DELEGATE
        ).order_by("session_id")
        for child_id in children.values_list("session_id", flat=True):
            if child_id in seen or depth > max_depth:
                continue
            seen.add(child_id)
            found.append({"id": child_id, "parent_id": parent_id, "kind": DELEGATE, "depth": depth})
            walk(child_id, depth + 1)

    walk(session_id, 1)
    return found


def create(
    endpoint: Endpoint, session_id: str, user, reason: str, *, lists=None, batch=None
) -> tuple[DeletionRequest, bool]:
    """A new pending request, or the open one for this session (``created`` False).

    A session Hermes no longer has becomes an "erase local copies" case when
    the dashboard still keeps something about it (see ``lost_case``).
    Raises ``HermesError`` when Hermes cannot be read; nothing is recorded then.
    """
    existing = open_request(endpoint, session_id)
    if existing is not None:
        return existing, False
    try:
        snap = snapshot.take(client_for(endpoint), session_id)
    except e.NotFound:
        lost = lost_case(endpoint, session_id)
        if lost is None:
            raise  # nothing of it here either: there is nothing to ask for
        snap, consequences = lost
    else:
        consequences = current_consequences(endpoint, session_id, snap["row"], lists)
    with transaction.atomic():
        existing = open_request(endpoint, session_id)
        if existing is not None:
            return existing, False
        request = DeletionRequest.objects.create(
            **endpoint.scope(),
            session_id=session_id,
            requester=user,
            requester_name=user.get_username(),
            reason=reason,
            created_at=clock.now(),
            snapshot=snap,
            consequences=consequences,
            batch=batch,
        )
    events.record(
        user,
        request,
        "deletion_request",
        reason=reason,
        digest=snap["digest"],
        active_message_count=snap["active_message_count"],
        cascade=request.cascade_ids,
        survivors=request.survivor_ids,
    )
    if batch is None:  # a batch's members are announced once, by the batch
        announce.requested(request)
    return request, True
