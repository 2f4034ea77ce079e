"""Rounds: a django-tasks task that runs every N seconds, kept going by the task queue.

A round enqueues its own next run *before* doing its work, so a worker killed
in the middle of a round still leaves the next one waiting in the queue. At
most one run waits at a time (a second ``schedule`` sees it and adds none).
The first run is scheduled by ``ensure`` (after ``migrate``, and once per
process when a feature first needs its round). Only a backend that can defer
(the database backend) keeps a round; under the in-process backend of tests
nothing is scheduled and tests call the round's function themselves.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

log = logging.getLogger(__name__)


def _deferrable(task) -> bool:
    return bool(getattr(task.get_backend(), "supports_defer", False)) and _db_backend(task)


def _db_backend(task) -> bool:
    from django_tasks_db.backend import DatabaseBackend

    return isinstance(task.get_backend(), DatabaseBackend)


def waiting(task) -> bool:
    """Whether a run of ``task`` waits in the queue (ready, now or later)."""
    from django_tasks import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    return DBTaskResult.objects.filter(
        task_path=task.module_path, status=TaskResultStatus.READY
    ).exists()


def schedule(task, seconds: float) -> bool:
    """Enqueue ``task`` to run in ``seconds`` unless a run already waits. True if added."""
    if not _deferrable(task) or waiting(task):
        return False
    task.using(run_after=timezone.now() + timedelta(seconds=seconds)).enqueue()
    return True


def ensure(task) -> bool:
    """Start the round now if none waits. True when a run is waiting now; never raises
    (before ``migrate`` the queue table is not there: that is logged)."""
    try:
        if not _deferrable(task):
            return False
        if not waiting(task):
            task.enqueue()
        return True
    except Exception as exc:  # e.g. before ``migrate``: the queue table is not there
        log.warning("round %s not scheduled: %s", task.module_path, type(exc).__name__)
        return False
