"""The report of one run of the contract's integration check against one endpoint.

It records ids, idempotency keys, statuses and codes, counts and digests;
never a title, a message or a key's secret.
"""

from django.db import models

from hermes_ui.platform.endpoints import Endpoint


class Verdict(models.TextChoices):
    RUNNING = "running", "running"
    AWAITING = "awaiting_approval", "waiting for the deletion's approval"
    PASSED = "passed", "passed"
    FAILED = "failed", "failed"


class Cleanup(models.TextChoices):
    """Whether the sessions the check created are deleted yet (through the four-eyes path)."""

    NONE = "", "nothing to delete"
    PENDING = "pending", "deletion of the check's sessions in progress"
    DONE = "done", "the check's sessions are deleted"
    KEPT = "kept", "an admin rejected the deletion: the check's sessions are kept"


class VerificationReport(models.Model):
    endpoint = models.CharField(max_length=40, db_index=True)
    endpoint_fp = models.CharField(max_length=16)
    base_url = models.CharField(max_length=300)  # ``Endpoint.public_url``
    username = models.CharField(max_length=150)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    verdict = models.CharField(max_length=20, choices=Verdict.choices, default=Verdict.RUNNING)
    hermes_version = models.CharField(max_length=60, blank=True)
    session_id = models.CharField(max_length=300, blank=True)
    child_id = models.CharField(max_length=300, blank=True)
    # [{"n": 1, "name": "...", "ok": true|false|null, "detail": "...", "evidence": {...}}]
    steps = models.JSONField(default=list)
    deletion = models.ForeignKey(
        "deletion.DeletionRequest",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # The branch (``child_id``) can only be asked for once the session above is
    # deleted: deleting the parent clears the branch's parent, which would void an
    # approval given before.
    branch_deletion = models.ForeignKey(
        "deletion.DeletionRequest",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    cleanup = models.CharField(
        max_length=10, choices=Cleanup.choices, default=Cleanup.NONE, blank=True
    )

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self):
        return f"verification #{self.pk} {self.endpoint} {self.verdict}"

    @property
    def passed_steps(self) -> int:
        return sum(1 for step in self.steps if step.get("ok") is True)


def latest_report(endpoint: Endpoint) -> VerificationReport | None:
    return VerificationReport.objects.filter(
        endpoint=endpoint.id, endpoint_fp=endpoint.fingerprint
    ).first()
