"""A task worker: django-tasks-db's own ``Worker`` loop, plus this worker's heartbeat row.

The heartbeat runs on a thread of its own, since a task may run for minutes.
Each beat renews the row, calls the worker's hooks and requeues the tasks of
dead workers (``recovery``). Stopping removes the row, so a worker stopped on
purpose is not taken for a crashed one.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable

from django.db import DatabaseError
from django.dispatch import receiver
from django.utils import timezone
from django_tasks.signals import task_finished
from django_tasks_db.management.commands.db_worker import Worker

from hermes_ui.background.workers import recovery
from hermes_ui.background.workers.liveness import BEAT_SECONDS
from hermes_ui.background.workers.models import WorkerBeat
from hermes_ui.platform import metrics
from hermes_ui.platform.db_steps import release_connections
from hermes_ui.platform.outages import DATABASE, database_ready, database_unreachable, log_failure

log = logging.getLogger("hermes_ui.background.workers")

# The longest wait between two looks at a database that went away (seconds).
MAX_PAUSE = 5.0

Hook = Callable[[str], object]  # ``hook(worker_id)`` on every beat


@receiver(task_finished)
def count_outcome(sender, task_result, **kwargs) -> None:
    """Each finished task in ``hermes_ui_tasks_finished_total`` (queue, task, outcome)."""
    task = task_result.task
    metrics.TASKS_FINISHED.labels(
        task.queue_name, task.module_path, str(task_result.status).lower()
    ).inc()


def beat(worker_id: str, hooks: tuple[Hook, ...] = ()) -> None:
    """One heartbeat: the row, the hooks, the recovery of dead workers' tasks."""
    try:
        now = timezone.now()
        updated = WorkerBeat.objects.filter(worker=worker_id).update(beat_at=now)
        if not updated:
            WorkerBeat.objects.create(
                worker=worker_id, host=socket.gethostname()[:255], pid=os.getpid(), beat_at=now
            )
        for hook in hooks:
            hook(worker_id)
        recovery.requeue_orphans()
    finally:
        release_connections()


class Heart:
    """The heartbeat thread of one worker (``with Heart(worker_id): ...``)."""

    def __init__(self, worker_id: str, every: float = BEAT_SECONDS, hooks: tuple[Hook, ...] = ()):
        self.worker_id = worker_id
        self.every = every
        self.hooks = hooks
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="task-heartbeat", daemon=True)

    def __enter__(self) -> Heart:
        beat(self.worker_id, self.hooks)  # alive, orphans recovered, before the first task
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(10)
        forget(self.worker_id)

    def _run(self) -> None:
        while not self.stop.wait(self.every):
            try:
                beat(self.worker_id, self.hooks)
            except Exception:  # the next beat tries again; only a stale row means dead
                log_failure(log, "task worker=%s heartbeat failed", self.worker_id)


class TaskWorker(Worker):
    """django-tasks-db's worker; a second stop signal leaves the task as a crash would.

    The framework's own second-signal exit records the task as FAILED: the
    work would be lost. Here the process ends at once; the task stays RUNNING
    and the next worker puts it back in the queue.
    """

    on_stop: Callable[[], object] | None = None  # called on the first stop signal

    def shutdown(self, signum, frame) -> None:
        if self.running and self.on_stop is not None:
            self.on_stop()
        if self.running or not self.running_task:
            super().shutdown(signum, frame)
            return
        forget(self.worker_id)
        os._exit(1)


def run_through_outages(worker: TaskWorker, pause: Callable[[float], None] = time.sleep) -> None:
    """``worker.run()``, waiting out database outages instead of ending with them.

    An outage is logged once; the worker looks again with a growing pause
    (at most ``MAX_PAUSE``), then puts back in the queue the task the outage
    cut short and runs on. A stop signal during the pause ends it as usual.
    """
    while True:
        try:
            worker.run()
            return
        except Exception as exc:
            if not database_unreachable(exc) or not worker.running:
                raise
            DATABASE.failed(exc, f"task worker={worker.worker_id}")
        release_connections()
        wait = 0.25
        while not database_ready(f"task worker={worker.worker_id}"):
            pause(wait)
            wait = min(wait * 2, MAX_PAUSE)
        try:
            recovery.requeue_orphans(own=worker.worker_id)
        except DatabaseError:
            continue  # gone again: the next run() finds out and waits once more
        finally:
            release_connections()


def forget(worker_id: str) -> None:
    try:
        WorkerBeat.objects.filter(worker=worker_id).delete()
    except DatabaseError:  # the row then goes stale, as a crashed worker's does
        log_failure(log, "task worker=%s could not remove its heartbeat row", worker_id)
    finally:
        release_connections()


def make_worker(
    worker_id: str, *, interval: float = 1.0, batch: bool = False, queues: tuple[str, ...] = ("*",)
) -> TaskWorker:
    """django-tasks-db's worker on ``queues`` (every queue by default) of the default backend."""
    return TaskWorker(
        queue_names=list(queues),
        interval=interval,
        batch=batch,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=worker_id,
        excluded_queue_names=[],
    )
