"""Rounds: a django-tasks task that queues its own next run, then does its work.

Queuing first means a worker killed mid-round still leaves the next run
waiting. At most one run of a task with given arguments waits at a time. Only
the database backend can defer, so only it keeps a round.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

log = logging.getLogger(__name__)


def _deferrable(task) -> bool:
    from django_tasks_db.backend import DatabaseBackend

    backend = task.get_backend()
    return bool(getattr(backend, "supports_defer", False)) and isinstance(backend, DatabaseBackend)


def waiting_args(task) -> list[list]:
    """The arguments of each run of ``task`` that waits in the queue (ready, now or later)."""
    from django_tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    rows = DBTaskResult.objects.filter(task_path=task.module_path, status=TaskResultStatus.READY)
    return [
        list((value or {}).get("args") or [])
        for value in rows.values_list("args_kwargs", flat=True)
    ]


def waiting(task, *args) -> bool:
    """Whether a run of ``task(*args)`` waits in the queue."""
    return list(args) in waiting_args(task)


def schedule(task, seconds: float, *args) -> bool:
    """Queue ``task(*args)`` to run in ``seconds`` unless a run already waits. True if added."""
    if not _deferrable(task) or waiting(task, *args):
        return False
    task.using(run_after=timezone.now() + timedelta(seconds=seconds)).enqueue(*args)
    return True


def ensure(task, *args) -> bool:
    """Start the round now if none waits; True when a run waits now. Never raises."""
    try:
        if not _deferrable(task):
            return False
        if not waiting(task, *args):
            task.enqueue(*args)
        return True
    except Exception as exc:  # e.g. before ``migrate``: the queue table is not there
        log.warning("round %s not scheduled: %s", task.module_path, type(exc).__name__)
        return False
