"""The progress page of a job waiting in the queue says whether any worker will run it."""

from django.utils import timezone

from hermes_ui.background.jobs.models import Job
from hermes_ui.background.workers.models import WorkerBeat


def test_a_queued_job_says_when_no_task_worker_runs(db, users, login):
    job = Job.objects.create(kind="bulk_close", endpoint="local", user=users["support"], total=2)
    support = login("support")
    page = support.get(f"/jobs/{job.pk}/").content.decode()
    assert "Waiting for a task worker" in page and 'id="job-no-worker"' in page
    WorkerBeat.objects.create(worker="w1", beat_at=timezone.now())
    page = support.get(f"/jobs/{job.pk}/").content.decode()
    assert "Waiting for a task worker" in page and 'id="job-no-worker"' not in page
