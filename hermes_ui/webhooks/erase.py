"""Deliveries whose body names a session Hermes deleted (``platform.erasers``).

A delivery keeps the exact bytes it signed, and an event's ids name sessions.
The erasure removes the finished deliveries (delivered or failed) of the
session's endpoint that name it; one still waiting or being retried is sent
first. What remains (those, and the deletion's own announcement, which must
name the session) goes with the pruning of finished deliveries
(``prune``, by the sweep round).
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone

from hermes_ui.platform import erasers
from hermes_ui.webhooks.models import Delivery

KEEP = timedelta(days=30)  # finished deliveries older than this are pruned
FINISHED = (Delivery.DELIVERED, Delivery.FAILED)


def names(body: str, endpoint_id: str, ids: set[str]) -> bool:
    """Whether a delivery's body is about ``endpoint_id`` and names one of ``ids``."""
    try:
        event = json.loads(body)
    except ValueError:
        return False
    if event.get("endpoint") != endpoint_id:
        return False
    return bool(ids & set(erasers.strings(event.get("ids"))))


def _naming(scope, ids: list[str]) -> list:
    wanted = set(ids)
    rows = Delivery.objects.filter(state__in=FINISHED).values_list("pk", "body")
    # Bodies are compact JSON: a quoted id narrows the read, the parse decides.
    rows = rows.filter(erasers.text_names("body", ids))
    return [pk for pk, body in rows.iterator() if names(body, scope.id, wanted)]


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"webhook_deliveries": len(_naming(scope, ids))}


def erase(scope, ids: list[str]) -> dict[str, int]:
    found = _naming(scope, ids)
    deleted = Delivery.objects.filter(pk__in=found).delete()[1].get("webhooks.Delivery", 0)
    return {"webhook_deliveries": deleted}


def prune(now=None) -> int:
    """Delete finished deliveries older than ``KEEP`` (their attempts go with them)."""
    before = (now or timezone.now()) - KEEP
    done = Delivery.objects.filter(state__in=FINISHED, finished_at__lt=before).delete()
    return done[1].get("webhooks.Delivery", 0)
