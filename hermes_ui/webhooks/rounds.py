"""Deliveries a killed worker left behind go back to the queue (same delivery id)."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from hermes_ui.webhooks.models import Delivery
from hermes_ui.webhooks.sending import lease_seconds


def sweep() -> int:
    """The scheduled round: prune finished deliveries, then ``recover``."""
    from hermes_ui.webhooks import erase

    erase.prune()
    return recover()


def recover(now=None) -> int:
    """Re-enqueue deliveries whose attempt's lease ran out (its worker died) and pending
    ones past due with no task waiting for them. Returns how many."""
    from hermes_ui.webhooks import tasks

    now = now or timezone.now()
    stale = list(
        Delivery.objects.filter(state=Delivery.SENDING, lease_until__lt=now)
        .order_by()
        .values_list("pk", flat=True)
    )
    overdue = now - timedelta(seconds=lease_seconds())
    late = set(
        Delivery.objects.filter(state=Delivery.PENDING, next_attempt_at__lt=overdue)
        .order_by()
        .values_list("pk", flat=True)
    )
    if late:
        queued = DBTaskResult.objects.filter(
            task_path=tasks.deliver.module_path, status=TaskResultStatus.READY
        ).values_list("args_kwargs", flat=True)
        waiting = {str(args["args"][0]) for args in queued if args.get("args")}
        late = {pk for pk in late if str(pk) not in waiting}
    for pk in [*stale, *late]:
        with transaction.atomic():
            tasks.deliver.enqueue(str(pk))
    return len(stale) + len(late)
