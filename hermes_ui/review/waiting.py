"""Queues whose items have waited longer than a day: announced to their owners.

``announce`` is called by a round (the notifications' hourly one); each
queue's owner hears of it at most once a day (the receiver keeps track).
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count
from django.utils import timezone

from hermes_ui.platform import events
from hermes_ui.review.items import OPEN
from hermes_ui.review.models import Item

WAITED = timedelta(days=1)


def overdue(now=None) -> list[dict]:
    """Per queue with an owner: how many open items were added more than a day ago."""
    now = now or timezone.now()
    rows = (
        Item.objects.filter(
            state__in=OPEN,
            created_at__lt=now - WAITED,
            queue__archived=False,
            queue__owner__isnull=False,
        )
        .values("queue_id", "queue__owner_id", "queue__endpoint")
        .annotate(n=Count("id"))
        .order_by("queue_id")
    )
    return list(rows)  # type: ignore[arg-type]


def announce(now=None) -> int:
    found = overdue(now)
    for row in found:
        events.emit(
            events.REVIEW_ITEMS_WAITING,
            endpoint=row["queue__endpoint"],
            users=[row["queue__owner_id"]],
            ids={"queue_id": row["queue_id"]},
            counts={"waiting": row["n"]},
        )
    return len(found)
