"""Bulk archive as a background job, as bulk close runs: the confirming POST answers at once.

A job resumed after its worker died settles the archive that was in flight
by reading Hermes (``archive.reconcile_orphans``), never sending it twice.
"""

from __future__ import annotations

from dataclasses import asdict

from django.urls import reverse
from django_tasks import task

from hermes_ui.background.jobs import runner
from hermes_ui.background.jobs.kinds import KINDS
from hermes_ui.background.jobs.models import Job
from hermes_ui.bulk.archive import archive_each, reconcile_orphans
from hermes_ui.platform.digests import json_digest
from hermes_ui.platform.endpoints import Endpoint

KIND = KINDS["bulk_archive"]


@task(takes_context=True)
def archive_sessions(context, job_id: int) -> None:
    runner.execute(job_id, _work, runner.worker_of(context))


def _work(job: Job, progress, resumed: bool) -> None:
    endpoint = runner.endpoint_of(job)
    ids, form_key = job.params["ids"], job.params["key"]
    recorded = {row["session_id"] for row in progress.rows}
    rest = [session_id for session_id in ids if session_id not in recorded]
    if resumed:
        reconcile_orphans(endpoint, job.user, rest, form_key, len(ids))
    for row in archive_each(endpoint, job.user, rest, form_key, size=len(ids)):
        progress.step(asdict(row))


def start(endpoint: Endpoint, user, ids: list[str], form_key: str) -> Job:
    job, _ = runner.submit(
        KIND,
        archive_sessions,
        user=user,
        params={"ids": ids, "key": form_key},
        scope=endpoint.scope(),
        key=json_digest([endpoint.scope(), form_key, ids, "archive"], 40),
        total=len(ids),
        result={"back": reverse("session_list", kwargs={"endpoint": endpoint.id})},
    )
    return job
