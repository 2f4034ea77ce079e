"""A job: long work (a bulk close, filing a bulk deletion, a review, a plain chat turn)
that a task worker runs off the page request (``runner``, ``hermes_ui.background.workers``).

The row is the job's whole public state, so any web process serves its
progress page: the counts, the rows of results so far (session ids, verdicts,
codes: never transcript text) and a heartbeat its worker renews. A running
job whose heartbeat stopped belongs to a worker that died: it shows as
*interrupted*, with the results it recorded, until the next worker resumes it.

A deletion does not erase jobs: like the audit trail, a job is an id-only
record of work done (``KEEPS_IDS_ONLY`` in ``tests/deletion/test_erasers.py``).
"""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

# The worker renews the heartbeat of the jobs it runs with its own
# (``hermes_ui.background.workers.worker``); one silent for STALE_AFTER is gone (a busy
# SQLite writer can hold a step up to 20 s).
STALE_AFTER = timedelta(seconds=30)


class JobState(models.TextChoices):
    QUEUED = "queued", "waiting to start"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"
    INTERRUPTED = "interrupted", "interrupted"


ACTIVE_STATES = (JobState.QUEUED, JobState.RUNNING)


class Job(models.Model):
    kind = models.CharField(max_length=40)
    # With ``endpoint``, the identity of the Hermes database (``Endpoint.fingerprint``).
    endpoint = models.CharField(max_length=40, blank=True)
    endpoint_fp = models.CharField(max_length=16, blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    # What makes two submissions the same work (a digest, or a record's id):
    # while one runs, the same submission is shown its progress instead.
    key = models.CharField(max_length=100, blank=True)
    state = models.CharField(max_length=20, choices=JobState.choices, default=JobState.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # {"rows": [...], "next": url, "summary": text, ...}: ids, verdicts, codes, counts.
    result = models.JSONField(default=dict, blank=True)
    error_code = models.CharField(max_length=60, blank=True)
    error_message = models.TextField(blank=True)  # the dashboard's own words only
    runner = models.CharField(max_length=64, blank=True)  # the task worker that runs it
    # The work's inputs (ids, reasons, the form's key): what its task reads.
    params = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "key"],
                condition=Q(state__in=["queued", "running"]) & ~Q(key=""),
                name="jobs_one_active_per_key",
            )
        ]

    def __str__(self):
        return f"job {self.pk} {self.kind} {self.state}"

    @property
    def stale(self) -> bool:
        """Running on a worker that stopped renewing its heartbeat (a queued job waits)."""
        return self.state == JobState.RUNNING and self.heartbeat_at < timezone.now() - STALE_AFTER

    @property
    def shown_state(self) -> str:
        return JobState.INTERRUPTED if self.stale else self.state

    @property
    def active(self) -> bool:
        return self.shown_state in ACTIVE_STATES

    @property
    def rows(self) -> list:
        return list(self.result.get("rows") or [])
