"""Bulk close as a background job: the confirming POST answers at once.

Each session still goes through ``close.close_each`` (its own derived key,
idempotency record and audit event), so submitting the same form again
after the job ended replays every outcome already recorded and closes only
the rest. A job resumed after its worker died goes on after the sessions it
recorded; the close that was in flight is reconciled by reading Hermes
(``close.reconcile_orphans``), never sent twice.
"""

from __future__ import annotations

from dataclasses import asdict

from django.urls import reverse
from django_tasks import task

from hermes_ui.background.jobs import runner
from hermes_ui.background.jobs.kinds import KINDS
from hermes_ui.background.jobs.models import Job
from hermes_ui.bulk.close import close_each, reconcile_orphans
from hermes_ui.platform.digests import json_digest
from hermes_ui.platform.endpoints import Endpoint

KIND = KINDS["bulk_close"]


def key_for(endpoint: Endpoint, ids: list[str], end_reason: str, form_key: str) -> str:
    """The same form (key, sessions, reason) on the same endpoint is the same job."""
    return json_digest([endpoint.scope(), form_key, ids, end_reason], 40)


@task(takes_context=True)
def close_sessions(context, job_id: int) -> None:
    runner.execute(job_id, _work, runner.worker_of(context))


def _work(job: Job, progress, resumed: bool) -> None:
    endpoint = runner.endpoint_of(job)
    ids, end_reason, form_key = job.params["ids"], job.params["end_reason"], job.params["key"]
    recorded = {row["session_id"] for row in progress.rows}
    rest = [session_id for session_id in ids if session_id not in recorded]
    if resumed:
        reconcile_orphans(endpoint, job.user, rest, end_reason, form_key, len(ids))
    for row in close_each(endpoint, job.user, rest, end_reason, form_key, size=len(ids)):
        progress.step(asdict(row))


def start(endpoint: Endpoint, user, ids: list[str], end_reason: str, form_key: str) -> Job:
    job, _ = runner.submit(
        KIND,
        close_sessions,
        user=user,
        params={"ids": ids, "end_reason": end_reason, "key": form_key},
        scope=endpoint.scope(),
        key=key_for(endpoint, ids, end_reason, form_key),
        total=len(ids),
        result={"back": reverse("session_list", kwargs={"endpoint": endpoint.id})},
    )
    return job
