"""The deletion workflow's events (``hermes_ui.platform.events``): ids and counts, never reasons.

A single request is announced by itself; a batch once for all its members
(filed, decided, executed), so a 500-session batch is one mail and one
webhook delivery, not 500.
"""

from __future__ import annotations

from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from hermes_ui.platform import events


def _request_ids(request: DeletionRequest) -> dict:
    return {"request_id": request.pk, "session_id": request.session_id}


def requested(request: DeletionRequest) -> None:
    events.emit(
        events.DELETION_REQUESTED,
        endpoint=request.endpoint,
        actor=request.requester_id,
        users=[request.requester_id],
        ids=_request_ids(request),
        counts={"sessions": 1, "cascade": len(request.cascade_ids)},
    )


def batch_requested(batch: DeletionBatch) -> None:
    events.emit(
        events.DELETION_REQUESTED,
        endpoint=batch.endpoint,
        actor=batch.requester_id,
        users=[batch.requester_id],
        ids={"batch_id": batch.pk},
        counts={"sessions": batch.members.count(), "skipped": len(batch.skipped)},
    )


def decided(request: DeletionRequest, user) -> None:
    if request.batch_id is not None:
        return
    approved = request.status == Status.APPROVED
    events.emit(
        events.DELETION_APPROVED if approved else events.DELETION_REJECTED,
        endpoint=request.endpoint,
        actor=user,
        users=[request.requester_id],
        ids=_request_ids(request),
        counts={"sessions": 1},
    )


def batch_decided(batch: DeletionBatch, user, approved: bool, counts: dict) -> None:
    if not counts.get("decided"):
        return
    events.emit(
        events.DELETION_APPROVED if approved else events.DELETION_REJECTED,
        endpoint=batch.endpoint,
        actor=user,
        users=[batch.requester_id],
        ids={"batch_id": batch.pk},
        counts={"sessions": counts["decided"], "void": counts["void"], "failed": counts["failed"]},
    )


def executed(request: DeletionRequest, user) -> None:
    if request.batch_id is not None or request.status != Status.EXECUTED:
        return
    erased = request.result.get("erased") or {}
    events.emit(
        events.DELETION_EXECUTED,
        endpoint=request.endpoint,
        actor=user,
        users=[request.requester_id],
        ids=_request_ids(request),
        counts={
            "sessions": 1 + len(request.cascade_ids),
            "incomplete": 1 if erased.get("incomplete") else 0,
        },
    )


def batch_executed(batch: DeletionBatch, user) -> None:
    members = list(batch.members.all())
    done = [m for m in members if m.status == Status.EXECUTED]
    events.emit(
        events.DELETION_EXECUTED,
        endpoint=batch.endpoint,
        actor=user,
        users=[batch.requester_id],
        ids={"batch_id": batch.pk},
        counts={
            "sessions": len(members),
            "executed": len(done),
            # Members that did not end deleted, or whose local copies were not all erased.
            "incomplete": len(members)
            - len(done)
            + sum(1 for m in done if (m.result.get("erased") or {}).get("incomplete")),
        },
    )
