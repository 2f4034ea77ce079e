"""Filing a bulk deletion request as a background job.

Reading both lists to the end and snapshotting every selected session takes
a call or two per session, so the POST answers at once and the job files
the request (``deletion.batch.create``); its progress page then goes to the
request's page. The request is linked as soon as it exists, so a job that
was interrupted still shows what it filed.
"""

from __future__ import annotations

from django.urls import reverse
from django_tasks import task

from hermes_ui.background.jobs import runner
from hermes_ui.background.jobs.kinds import KINDS
from hermes_ui.background.jobs.models import Job
from hermes_ui.background.jobs.progress import Failed
from hermes_ui.deletion import batch as batches
from hermes_ui.hermes import HermesError
from hermes_ui.platform.digests import json_digest
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import visibility

KIND = KINDS["bulk_delete"]


@task(takes_context=True)
def file_deletion(context, job_id: int) -> None:
    runner.execute(job_id, _work, runner.worker_of(context))


def _work(job: Job, progress, resumed: bool) -> None:
    if resumed and job.result.get("filed"):
        # The request exists: filing the selection again would list its members as taken.
        raise Failed("interrupted", KIND.interrupted)
    endpoint = runner.endpoint_of(job)

    def filed(batch):
        progress.note(next=reverse("deletion_batch", kwargs={"pk": batch.pk}), filed=batch.pk)

    if resumed:
        progress.rows, progress.done = [], 0  # a fresh start: nothing was filed
    # Access is read again: a session the person may no longer act on is not filed.
    ids = [sid for sid in job.params["ids"] if visibility.still_may_act(job.user, endpoint.id, sid)]
    if not ids:
        raise Failed("not_found", "None of these sessions is yours to act on now: nothing filed.")
    try:
        batches.create(
            endpoint,
            ids,
            job.user,
            job.params["reason"],
            on_filed=filed,
            on_session=progress.step,
        )
    except HermesError as error:
        raise Failed(
            error.code,
            f"{error.message} Hermes' session lists could not be read, so nothing was "
            f"filed. {error.advice}",
        ) from None


def start(endpoint: Endpoint, user, ids: list[str], reason: str) -> Job:
    # The same selection and reason from the same person is one request while it is filed.
    key = json_digest([endpoint.scope(), user.pk, ids, reason], 40)
    index = reverse("session_list", kwargs={"endpoint": endpoint.id})
    job, _ = runner.submit(
        KIND,
        file_deletion,
        user=user,
        params={"ids": ids, "reason": reason},
        scope=endpoint.scope(),
        key=key,
        total=len(ids),
        result={"back": index},
    )
    return job
