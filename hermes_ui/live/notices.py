"""Dashboard events an open page follows: written from ``platform.events``, read by streams."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max, Min, Q
from django.utils import timezone

from hermes_ui.live.models import LiveNotice
from hermes_ui.platform import events

DELETIONS, REVIEW = "deletions", "review"
# Event -> (topic, kind): what the deletion queue and a review queue's page follow.
FOLLOWED = {
    events.DELETION_REQUESTED: (DELETIONS, "requested"),
    events.DELETION_APPROVED: (DELETIONS, "approved"),
    events.DELETION_REJECTED: (DELETIONS, "rejected"),
    events.DELETION_EXECUTED: (DELETIONS, "executed"),
    events.REVIEW_ITEM_COMPLETED: (REVIEW, "item_completed"),
    events.REVIEW_QUEUE_COMPLETED: (REVIEW, "queue_completed"),
    events.REVIEW_QUEUE_CHANGED: (REVIEW, "changed"),
}
INT_IDS = {DELETIONS: ("request_id", "batch_id"), REVIEW: ("queue_id", "item_id")}
MAX_SESSION_ID = 300


def _ids(topic: str, given: dict) -> dict:
    kept = {
        key: given[key]
        for key in INT_IDS[topic]
        if isinstance(given.get(key), int) and not isinstance(given.get(key), bool)
    }
    session_id = given.get("session_id")
    if topic == REVIEW and isinstance(session_id, str) and 0 < len(session_id) <= MAX_SESSION_ID:
        kept["session_id"] = session_id
    return kept


def record(event: events.Event) -> None:
    """The ``platform.events`` receiver: a notice row after the change commits."""
    followed = FOLLOWED.get(event.name)
    if followed is None:
        return
    topic, kind = followed
    row = LiveNotice(
        topic=topic,
        kind=kind,
        endpoint=event.endpoint,
        ids=_ids(topic, event.ids),
        users=list(event.users) if topic == DELETIONS else [],
    )

    def write():
        row.created_at = timezone.now()
        row.save()

    transaction.on_commit(write)


def last_id() -> int:
    return LiveNotice.objects.aggregate(top=Max("id"))["top"] or 0


def after(topic: str, notice_id: int, limit: int = 500, also=()) -> list[LiveNotice]:
    """The topic's notices after ``notice_id``, and those of the ids ``also`` (the
    feed's gaps: ids below it that may still commit), oldest first."""
    wanted = Q(id__gt=notice_id)
    if also:
        wanted |= Q(id__in=list(also))
    rows = LiveNotice.objects.filter(wanted, topic=topic).order_by("id")
    return list(rows[:limit])


def reset(notice_id: int) -> bool:
    """True when ``notice_id`` is older than the oldest kept (pruned) or not this database's."""
    if notice_id <= 0:
        return False
    span = LiveNotice.objects.aggregate(low=Min("id"), top=Max("id"))
    low, top = span["low"], span["top"] or 0
    return (low is not None and notice_id < low - 1) or notice_id > top


def frame_data(row: LiveNotice) -> dict:
    """What a browser receives: the notice's id, kind and ids, nothing else."""
    return {"id": row.id, "kind": row.kind, **row.ids}


def prune(before) -> int:
    return LiveNotice.objects.filter(created_at__lt=before).delete()[0]
