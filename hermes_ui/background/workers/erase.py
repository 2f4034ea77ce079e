"""Finished task records whose stored arguments name a session Hermes deleted.

django-tasks' database backend keeps every task's arguments and return value
after it ran, and an event's ids (mail, webhooks) name sessions. The erasure
removes the finished records that name an erased id (``platform.erasers``); a
task still waiting or running needs its arguments and is left to run. Every
finished record is pruned ``KEEP`` after it finished (``prune``, a periodic
round), so what an erasure could not remove goes then.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Q
from django.utils import timezone
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from hermes_ui.platform import erasers

KEEP = timedelta(days=1)
KEEP_ROUNDS = timedelta(hours=1)
ROUNDS_QUEUE = "periodic"  # background.schedule.QUEUE
FINISHED = (TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED)
PRUNE_EVERY = 600.0  # seconds between two prunings (a round of background/schedule.py)


def _naming(ids: list[str]) -> list:
    wanted = set(ids)
    rows = DBTaskResult.objects.filter(status__in=FINISHED).filter(
        erasers.text_names("args_kwargs", ids) | erasers.text_names("return_value", ids)
    )
    return [
        pk
        for pk, args, value in rows.values_list("pk", "args_kwargs", "return_value").iterator()
        if wanted & (set(erasers.strings(args)) | set(erasers.strings(value)))
    ]


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"task_records": len(_naming(ids))}


def erase(scope, ids: list[str]) -> dict[str, int]:
    """Task arguments carry no endpoint: a record naming the id on any endpoint goes."""
    deleted, _ = DBTaskResult.objects.filter(pk__in=_naming(ids)).delete()
    return {"task_records": deleted}


def prune(now=None) -> int:
    """Delete the records of tasks that finished more than ``KEEP`` ago.

    The periodic rounds' own records go after ``KEEP_ROUNDS``: the live round
    alone leaves one every few seconds, and they name no session.
    """
    now = now or timezone.now()
    finished = DBTaskResult.objects.filter(status__in=FINISHED)
    old = Q(finished_at__lt=now - KEEP) | Q(
        queue_name=ROUNDS_QUEUE, finished_at__lt=now - KEEP_ROUNDS
    )
    deleted, _ = finished.filter(old).delete()
    return deleted
