"""The approval of a bulk deletion as a background job: approving re-reads every member.

The POST checks who may decide (no Hermes call) and answers at once; one
decision of a batch runs at a time, and a second one shows the running one.
"""

from __future__ import annotations

from django.urls import reverse
from django_tasks import task

from hermes_ui.background.jobs import runner
from hermes_ui.background.jobs.kinds import KINDS
from hermes_ui.background.jobs.models import ACTIVE_STATES, Job
from hermes_ui.background.jobs.progress import Failed
from hermes_ui.deletion import batch as batches
from hermes_ui.deletion import policy
from hermes_ui.deletion.models import DeletionBatch

KIND = KINDS["deletion_batch_approval"]


def _key(batch: DeletionBatch) -> str:
    return f"batch-{batch.pk}"


@task(takes_context=True)
def decide_batch(context, job_id: int) -> None:
    runner.execute(job_id, _work, runner.worker_of(context))


def _work(job: Job, progress, resumed: bool) -> dict:
    # Members decided before an interruption keep their decision; the rest are decided now.
    current = DeletionBatch.objects.get(pk=job.params["batch"])
    p = job.params
    try:
        counts = batches.decide(
            current,
            job.user,
            p["decision"],
            p["rule"],
            p["comment"],
            on_member=lambda _: progress.step(),
        )
    except policy.Refusal as refusal:
        raise Failed(refusal.code, refusal.message) from None
    summary = (
        f"Decided {counts['decided']}; void because changed {counts['void']}; "
        f"not decided {counts['failed']}."
    )
    return {"summary": summary}


def start(batch: DeletionBatch, user, decision: str, rule: str, comment: str) -> Job:
    """Raises ``policy.Refusal`` (before anything is queued) when the admin may not decide."""
    pending = batches.reviewable(batch, user)
    url = reverse("deletion_batch", kwargs={"pk": batch.pk})
    scope = {"endpoint": batch.endpoint, "endpoint_fp": batch.endpoint_fp}
    params = {"batch": batch.pk, "decision": decision, "rule": rule, "comment": comment}
    job, _ = runner.submit(
        KIND,
        decide_batch,
        user=user,
        params=params,
        scope=scope,
        key=_key(batch),
        total=len(pending),
        result={"next": url},
    )
    return job


def running(batch: DeletionBatch) -> Job | None:
    """The decision of this batch still queued or running, if any."""
    job = Job.objects.filter(kind=KIND.name, key=_key(batch), state__in=ACTIVE_STATES).first()
    return job if job is not None and job.active else None
