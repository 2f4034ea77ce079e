"""Running jobs on a small pool of threads of the process that accepted them.

``submit`` records the job and queues its work; the POST that started it
answers at once. Work runs on one of ``HERMES_UI_JOB_THREADS`` daemon
threads, reports through ``Progress`` (each write one database step that
gives the connection back, so a job never pins a pooled connection), and a
heartbeat thread renews ``heartbeat_at`` of every job this process holds.
Nothing hands a job to another process: if this one dies, its jobs stop
renewing and show as interrupted, with the results they recorded.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from hermes_ui.db_steps import release_connections, released
from hermes_ui.hermes import HermesError
from hermes_ui.hermes import client as hermes_client
from hermes_ui.jobs.kinds import Kind
from hermes_ui.jobs.models import ACTIVE_STATES, HEARTBEAT, STALE_AFTER, Job, JobState
from hermes_ui.jobs.progress import Failed, Progress

log = logging.getLogger("hermes_ui.jobs")

BOOT_ID = uuid.uuid4().hex  # this process: the runner of the jobs it accepted
DASHBOARD_ERROR = "The dashboard failed while running this job; the results so far are shown."

_lock = threading.Condition()
_work: queue.SimpleQueue = queue.SimpleQueue()
_workers: list[threading.Thread] = []
_heart: list[threading.Thread] = []
_held: set[int] = set()  # queued or running here
_beating = threading.Lock()  # held while a heartbeat writes


def submit(
    kind: Kind,
    *,
    user,
    work: Callable[[Progress], dict | None],
    scope: dict,
    key: str = "",
    total: int = 0,
    result: dict | None = None,
) -> tuple[Job, bool]:
    """Record a job and queue ``work(progress)``; returns (job, created).

    While a job of this kind and ``key`` is queued or running, the same
    submission gets that job back (a double click starts nothing twice). The
    dict ``work`` returns is merged into the job's result when it is done.
    """
    if key:
        existing = _active(kind.name, key)
        if existing is not None:
            return existing, False
    fields = {
        "kind": kind.name,
        "key": key,
        "user": user,
        "total": total,
        "result": result or {},
        "runner": BOOT_ID,
        **scope,
    }
    try:
        with transaction.atomic():
            job = Job.objects.create(**fields)
    except IntegrityError:
        return _active(kind.name, key) or Job.objects.filter(kind=kind.name, key=key).first(), False
    _queue(job.pk, work, Progress(job.pk, dict(result or {}), total))
    return job, True


def _active(kind: str, key: str) -> Job | None:
    """The live job with this key; one a dead process left behind is marked interrupted."""
    job = Job.objects.filter(kind=kind, key=key, state__in=ACTIVE_STATES).first()
    if job is not None and job.stale:
        cutoff = timezone.now() - STALE_AFTER
        Job.objects.filter(pk=job.pk, state__in=ACTIVE_STATES, heartbeat_at__lt=cutoff).update(
            state=JobState.INTERRUPTED, finished_at=timezone.now()
        )
        return None
    return job


def _queue(pk: int, work, progress: Progress) -> None:
    # A transport a test or a benchmark set for the submitting thread follows the
    # job onto its thread, as the chat relay keeps the client its request made.
    transport = hermes_client._overrides()
    with _lock:
        _held.add(pk)
        _work.put((pk, work, progress, transport))
        # Threads start as jobs come, up to the bound, and then serve for good.
        if len(_workers) < settings.HERMES_UI_JOB_THREADS:
            _start(_workers, _serve, f"job-runner-{len(_workers) + 1}")
        if not _heart:
            _start(_heart, _heartbeat, "job-heartbeat")


def _start(threads: list, target, name: str) -> None:
    thread = threading.Thread(target=target, name=name, daemon=True)
    threads.append(thread)
    thread.start()


def _serve() -> None:
    while True:
        pk, work, progress, transport = _work.get()
        try:
            _run(pk, work, progress, transport)
        except Exception:  # the database failed around the work: the job shows as interrupted
            log.exception("job=%s could not be run", pk)
        finally:
            with _lock:
                _held.discard(pk)
                _lock.notify_all()


def _run(pk: int, work, progress: Progress, transport) -> None:
    overridden = any(transport)
    with hermes_client.use_transport(*transport) if overridden else contextlib.nullcontext():
        if not _claim(pk):
            return
        try:
            extra = work(progress) or {}
        except Failed as failure:
            _end(pk, progress, JobState.FAILED, failure.code, failure.message)
        except HermesError as error:
            _end(pk, progress, JobState.FAILED, error.code, f"{error.message} {error.advice}")
        except Exception:
            log.exception("job=%s failed", pk)
            _end(pk, progress, JobState.FAILED, "dashboard_error", DASHBOARD_ERROR)
        else:
            progress.extra.update(extra)
            _end(pk, progress, JobState.DONE)
        finally:
            release_connections()


@released
def _claim(pk: int) -> bool:
    now = timezone.now()
    claimed = Job.objects.filter(pk=pk, state=JobState.QUEUED).update(
        state=JobState.RUNNING, started_at=now, heartbeat_at=now
    )
    return bool(claimed)


@released
def _end(pk: int, progress: Progress, state: str, code: str = "", message: str = "") -> None:
    now = timezone.now()
    Job.objects.filter(pk=pk).update(
        state=state,
        done=progress.done,
        total=max(progress.total, progress.done),
        result=progress.result(),
        error_code=code[:60],
        error_message=message.strip(),
        finished_at=now,
        heartbeat_at=now,
    )


def _heartbeat() -> None:
    while True:
        time.sleep(HEARTBEAT.total_seconds())
        with _beating:
            with _lock:
                held = list(_held)
            if not held:
                continue
            try:
                _beat(held)
            except Exception:  # the next beat tries again; 15 missed ones mark them stale
                log.exception("job heartbeat failed")


@released
def _beat(held: list[int]) -> None:
    Job.objects.filter(pk__in=held, state__in=ACTIVE_STATES).update(heartbeat_at=timezone.now())


def wait_idle(timeout: float) -> bool:
    """Wait until this process holds no job and no heartbeat is writing (tests)."""
    with _lock:
        idle = _lock.wait_for(lambda: not _held, timeout)
    with _beating:
        return idle
