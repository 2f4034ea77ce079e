"""What the dashboard records about every mutation, approval and deletion.

Neither model ever stores message content, system prompts or credentials:
``evidence`` and ``result`` only hold what ``redact.evidence`` lets through.
"""

from django.conf import settings
from django.db import models


class Outcome(models.TextChoices):
    SUCCESS = "success", "succeeded"
    REJECTED = "rejected", "rejected by Hermes"
    UNCERTAIN = "uncertain", "uncertain: reconcile"
    REFUSED = "refused", "refused by the dashboard"
    RUNNING = "running", "in progress"


class AuditEvent(models.Model):
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    username = models.CharField(max_length=150)  # kept if the user is deleted
    capability = models.CharField(max_length=60, db_index=True)
    endpoint = models.CharField(max_length=40, db_index=True)
    # The Hermes the action was made against: its identity
    # (``Endpoint.fingerprint``) and its URL without credentials. An endpoint
    # id moved to another server keeps this history with the URL it had.
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    base_url = models.CharField(max_length=300, blank=True)
    session_id = models.CharField(max_length=300, blank=True, db_index=True)
    idempotency_key = models.CharField(max_length=200, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, db_index=True)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error_code = models.CharField(max_length=60, blank=True)
    evidence = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.username} {self.capability} {self.outcome}"


class IdempotencyRecord(models.Model):
    """key -> outcome per capability and endpoint, kept for 24 hours.

    ``key`` is the effective key: the form's key combined with a digest of
    the form's inputs, so a changed form never replays another intent's
    outcome. The same effective key goes to Hermes as ``Idempotency-Key``.
    """

    capability = models.CharField(max_length=60)
    endpoint = models.CharField(max_length=40)
    key = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    session_id = models.CharField(max_length=300, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default=Outcome.RUNNING)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error_code = models.CharField(max_length=60, blank=True)
    # Shown to the user on a replay. Callers pass wording without transcript
    # text (the provider's messages can quote titles, so they are not stored).
    message = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["capability", "endpoint", "key"], name="uniq_idempotency_key"
            )
        ]

    def __str__(self):
        return f"{self.capability}:{self.key} {self.outcome}"
