"""Putting back in the queue the tasks a dead worker left RUNNING.

django-tasks-db marks a claimed task RUNNING and appends the worker's id to
``worker_ids``; a worker killed mid-task leaves it RUNNING for good. Each
live worker, on every heartbeat, looks for RUNNING tasks whose last worker
has no live heartbeat row and makes them READY again. The update names the
``started_at`` it read, so when two workers recover the same task, or one
claims it meanwhile, only one change lands: a task is never queued twice.
The task itself must be safe to run again (see ``hermes_ui.background.jobs.runner``).
"""

from __future__ import annotations

import logging

from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from hermes_ui.background.workers.liveness import alive_ids

log = logging.getLogger("hermes_ui.background.workers")


def requeue_orphans(own: str = "") -> list[str]:
    """READY again every RUNNING task whose worker is gone; the ids requeued.

    ``own`` is a live worker that runs nothing now: a database outage cut its
    task short, so what it left RUNNING is an orphan too.
    """
    running = list(
        DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).values_list(
            "id", "worker_ids", "started_at"
        )
    )
    if not running:
        return []
    alive = alive_ids()
    requeued = []
    for pk, worker_ids, started_at in running:
        owner = worker_ids[-1] if worker_ids else ""
        if owner in alive and owner != own:
            continue
        changed = DBTaskResult.objects.filter(
            pk=pk, status=TaskResultStatus.RUNNING, started_at=started_at
        ).update(status=TaskResultStatus.READY)
        if changed:
            requeued.append(str(pk))
            if owner == own:
                log.warning("task=%s cut short by a database outage put back in the queue", pk)
            else:
                log.warning("task=%s of dead worker=%s put back in the queue", pk, owner)
    return requeued
