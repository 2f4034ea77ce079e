"""Erasure reaches webhook delivery bodies and the task queue's stored arguments.

An event about a session (tagged, deletion requested) leaves its ids in the
signed body of each delivery and in the arguments of the tasks that carried
it; the session's erasure removes the finished ones, and pruning removes what
an erasure had to leave (a delivery or task still waiting, the deletion's own
announcement).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from hermes_ui.background.workers import erase as task_erase
from hermes_ui.deletion import erasure
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.webhooks import erase as hook_erase
from hermes_ui.webhooks import outbox
from hermes_ui.webhooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db
EP = Endpoint("local", "http://hermes.test", "key")


def finish(rows, **more) -> None:
    rows.update(finished_at=timezone.now(), **more)


def test_finished_deliveries_and_task_records_naming_a_session_are_erased(settings):
    settings.HERMES_ENDPOINTS = {"local": EP}
    Webhook.objects.create(
        url="https://hooks.example.org/x",
        secret="s" * 20,
        events=[events.SESSION_TAGGED, events.DELETION_REQUESTED],
    )
    # The receiver enqueues the fan-out task with the event's ids as its arguments.
    events.emit(
        events.SESSION_TAGGED, endpoint="local", ids={"tag_id": 1, "sessions": ["gone", "b"]}
    )
    fan_out = DBTaskResult.objects.get(task_path__endswith="fan_out")
    assert "gone" in str(fan_out.args_kwargs)
    kept = outbox.fan_out(events.DELETION_REQUESTED, "local", {"session_id": "stays"}, {}, "t")
    sent = outbox.fan_out(events.SESSION_TAGGED, "local", {"sessions": ["gone", "b"]}, {}, "t")
    waiting = outbox.fan_out(events.DELETION_REQUESTED, "local", {"session_id": "gone"}, {}, "t")
    other = outbox.fan_out(events.DELETION_REQUESTED, "elsewhere", {"session_id": "gone"}, {}, "t")
    done = [kept[0].pk, sent[0].pk, other[0].pk]
    finish(Delivery.objects.filter(pk__in=done), state=Delivery.DELIVERED)
    finish(DBTaskResult.objects.all(), status=TaskResultStatus.SUCCESSFUL)
    ready = DBTaskResult.objects.filter(args_kwargs__args=[str(waiting[0].pk)])
    ready.update(status=TaskResultStatus.READY, finished_at=None)

    assert erasure.local_copies(EP, ["gone"])["webhook_deliveries"] == 1
    counts = erasure.erase(EP, ["gone"])
    assert counts["webhook_deliveries"] == 1 and counts["task_records"] == 1
    assert not Delivery.objects.filter(pk=sent[0].pk).exists()
    # Another session's, another endpoint's, and one still to be sent stay.
    assert set(Delivery.objects.values_list("pk", flat=True)) == {
        kept[0].pk,
        waiting[0].pk,
        other[0].pk,
    }
    assert not DBTaskResult.objects.filter(pk=fan_out.pk).exists()
    assert not any("gone" in str(r.args_kwargs) for r in DBTaskResult.objects.all())
    assert ready.exists()  # its delivery is still to be made: it runs, then is pruned


def test_pruning_removes_finished_deliveries_and_task_records_past_their_keep():
    hook = Webhook.objects.create(url="https://hooks.example.org/x", secret="s" * 20, events=[])
    DBTaskResult.objects.all().delete()  # the rounds' own runs
    old = outbox.ping(hook)
    new = outbox.ping(hook)
    long_ago = timezone.now() - hook_erase.KEEP - timedelta(minutes=1)
    Delivery.objects.filter(pk=old.pk).update(state=Delivery.DELIVERED, finished_at=long_ago)
    Delivery.objects.filter(pk=new.pk).update(state=Delivery.DELIVERED, finished_at=timezone.now())
    assert hook_erase.prune() == 1
    assert list(Delivery.objects.values_list("pk", flat=True)) == [new.pk]

    tasks = list(DBTaskResult.objects.order_by("enqueued_at"))
    assert len(tasks) == 2  # one "deliver" per ping
    stale = timezone.now() - task_erase.KEEP - timedelta(minutes=1)
    DBTaskResult.objects.filter(pk=tasks[0].pk).update(
        status=TaskResultStatus.SUCCESSFUL, finished_at=stale
    )
    DBTaskResult.objects.filter(pk=tasks[1].pk).update(run_after=stale)  # waiting: never pruned
    assert task_erase.prune() == 1
    assert list(DBTaskResult.objects.values_list("pk", flat=True)) == [tasks[1].pk]
