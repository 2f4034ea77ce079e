"""Jobs on the task queue: a ``Job`` row for the progress page, a task for the work.

``submit`` records the job and enqueues the feature's task with the job's
id, in one transaction (both rows or neither); the POST that started it
answers at once. A task worker (``manage.py task_worker``) runs it through
``execute``: the work reads its inputs from ``Job.params`` (ids only) and
reports through ``Progress``, each write one database step.

A worker that dies mid-job leaves the task RUNNING; the next live worker
puts it back in the queue (``hermes_ui.background.workers.recovery``) and ``execute`` runs
the work again with ``resumed=True`` and the progress recorded so far. Each
kind's work decides what a resumption means: a bulk close skips the sessions
it recorded and reconciles the one in flight, a chat turn whose answer was
being awaited becomes uncertain and is never sent again.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from django.db import IntegrityError, transaction
from django.utils import timezone

from hermes_ui.background.jobs.kinds import Kind
from hermes_ui.background.jobs.models import ACTIVE_STATES, STALE_AFTER, Job, JobState
from hermes_ui.background.jobs.progress import Failed, Progress, Superseded
from hermes_ui.hermes import HermesError
from hermes_ui.hermes import client as hermes_client
from hermes_ui.platform.db_steps import release_connections, released
from hermes_ui.platform.endpoints import Endpoint, configured

log = logging.getLogger("hermes_ui.background.jobs")

DASHBOARD_ERROR = "The dashboard failed while running this job; the results so far are shown."
ENDPOINT_GONE = (
    "The endpoint this job was started on is no longer configured with the same identity, "
    "so nothing more was sent."
)

# A transport a test or a benchmark set for the submitting thread follows the job
# to a worker running in the same process (tests/support/tasks.py), as the chat
# relay keeps the client its request made. A worker process never has one.
# Keyed by (id, created_at): a test database reuses ids after a flush.
_transports: dict[tuple, tuple] = {}

Work = Callable[[Job, Progress, bool], dict | None]


def submit(
    kind: Kind,
    task,
    *,
    user,
    scope: dict,
    params: dict,
    key: str = "",
    total: int = 0,
    result: dict | None = None,
) -> tuple[Job, bool]:
    """Record a job and enqueue ``task(job_id)``; returns (job, created).

    While a job of this kind and ``key`` is queued or running, the same
    submission gets that job back (a double click starts nothing twice).
    ``params`` are the work's inputs, as JSON (ids, reasons: no transcript text).
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
        "params": params,
        **scope,
    }
    transport = hermes_client._overrides()
    job = None
    try:
        with transaction.atomic():
            job = Job.objects.create(**fields)
            if any(transport):  # before the commit: a worker thread may take it at once
                _transports[(job.pk, job.created_at)] = transport
            task.enqueue(job.pk)
    except IntegrityError:
        if job is not None:
            _transports.pop((job.pk, job.created_at), None)
        return _active(kind.name, key) or Job.objects.filter(kind=kind.name, key=key).first(), False  # type: ignore[return-value]
    return job, True


def _active(kind: str, key: str) -> Job | None:
    """The live job with this key; one whose worker died is marked interrupted."""
    job = Job.objects.filter(kind=kind, key=key, state__in=ACTIVE_STATES).first()
    if job is not None and job.stale:
        cutoff = timezone.now() - STALE_AFTER
        Job.objects.filter(pk=job.pk, state=JobState.RUNNING, heartbeat_at__lt=cutoff).update(
            state=JobState.INTERRUPTED, finished_at=timezone.now()
        )
        return None
    return job


def worker_of(context) -> str:
    """The id of the worker running a task (``takes_context=True``)."""
    ids = context.task_result.worker_ids
    return ids[-1] if ids else ""


def endpoint_of(job: Job) -> Endpoint:
    """The endpoint the job was started on, if it still has that identity."""
    endpoint = configured(job.endpoint, job.endpoint_fp)
    if endpoint is None:
        raise Failed("endpoint_changed", ENDPOINT_GONE)
    return endpoint


def execute(job_id: int, work: Work, worker_id: str = "") -> None:
    """Run ``work(job, progress, resumed)`` for a queued (or resumed) job; the task's body."""
    job, resumed = _claim(job_id, worker_id)
    if job is None:
        return  # it ended, or was marked interrupted and submitted again meanwhile
    extra = {k: v for k, v in job.result.items() if k != "rows"}
    progress = Progress(job.pk, extra, job.total, runner=worker_id)
    if resumed:
        progress.rows, progress.done = job.rows, job.done
        log.warning("job=%s resumed after %d of %d", job.pk, job.done, job.total)
    transport = _transports.pop((job.pk, job.created_at), None)
    with hermes_client.use_transport(*transport) if transport else contextlib.nullcontext():
        try:
            extra = work(job, progress, resumed) or {}
        except Superseded:
            # Taken for dead (its heartbeat was late) and resumed elsewhere: that run
            # goes on and ends the job; this one stops here.
            log.warning("job=%s taken over by another worker; worker=%s stops", job.pk, worker_id)
            return
        except Failed as failure:
            _end(job.pk, progress, JobState.FAILED, failure.code, failure.message)
        except HermesError as error:
            _end(job.pk, progress, JobState.FAILED, error.code, f"{error.message} {error.advice}")
        except Exception:
            log.exception("job=%s failed", job.pk)
            _end(job.pk, progress, JobState.FAILED, "dashboard_error", DASHBOARD_ERROR)
        else:
            progress.extra.update(extra)
            _end(job.pk, progress, JobState.DONE)
        finally:
            release_connections()


@released
def _claim(pk: int, worker_id: str) -> tuple[Job | None, bool]:
    job = Job.objects.filter(pk=pk, state__in=ACTIVE_STATES).first()
    if job is None:
        return None, False
    now = timezone.now()
    claimed = Job.objects.filter(pk=pk, state=job.state, runner=job.runner).update(
        state=JobState.RUNNING, started_at=job.started_at or now, heartbeat_at=now, runner=worker_id
    )
    return (job, job.state == JobState.RUNNING) if claimed else (None, False)


@released
def _end(pk: int, progress: Progress, state: str, code: str = "", message: str = "") -> None:
    now = timezone.now()
    Job.objects.filter(pk=pk, runner=progress.runner or "").update(
        state=state,
        done=progress.done,
        total=max(progress.total, progress.done),
        result=progress.result(),
        error_code=code[:60],
        error_message=message.strip(),
        finished_at=now,
        heartbeat_at=now,
    )


def renew(worker_id: str) -> None:
    """The heartbeat of the jobs a worker runs (a hook of its heartbeat)."""
    Job.objects.filter(runner=worker_id, state=JobState.RUNNING).update(heartbeat_at=timezone.now())
