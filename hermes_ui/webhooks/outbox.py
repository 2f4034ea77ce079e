"""Deliveries made from events: one per subscribed active webhook, queued at once.

The delivery row and its task are written in one transaction (inside the
feature's own, when it has one), so an event whose change is rolled back is
never delivered and a recorded delivery always has its task.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from hermes_ui.webhooks import signing
from hermes_ui.webhooks.models import Delivery, Webhook


def make(
    hook: Webhook, event: str, endpoint: str, ids: dict, counts: dict, at: str | None = None
) -> Delivery:
    from hermes_ui.webhooks import tasks

    now = timezone.now()
    delivery = Delivery(webhook=hook, event=event, created_at=now, next_attempt_at=now)
    delivery.body = signing.body(
        event, str(delivery.pk), at or now.isoformat(), endpoint, ids, counts
    )
    with transaction.atomic():
        delivery.save(force_insert=True)
        tasks.deliver.enqueue(str(delivery.pk))
    return delivery


def fan_out(event: str, endpoint: str, ids: dict, counts: dict, at: str) -> list[Delivery]:
    hooks = [h for h in Webhook.objects.filter(active=True) if event in h.events]
    return [make(h, event, endpoint, ids, counts, at) for h in hooks]


def ping(hook: Webhook) -> Delivery:
    """ "Send a test event": delivered even to a webhook not subscribed to anything."""
    return make(hook, signing.PING, "", {"webhook_id": hook.pk}, {})


def redeliver(delivery: Delivery) -> None:
    """Send the same body again, under the same delivery id, with a fresh day of retries."""
    from hermes_ui.webhooks import tasks

    now = timezone.now()
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).exclude(state=Delivery.SENDING).update(
            state=Delivery.PENDING, next_attempt_at=now, created_at=now, finished_at=None
        )
        tasks.deliver.enqueue(str(delivery.pk))
