"""A reviewer's verdict on two branches: the dashboard owns these rows."""

from django.conf import settings
from django.db import models


class Verdict(models.Model):
    """Which of two sessions a reviewer preferred, or neither, and why.

    The pair is stored in a fixed order (``first_id`` < ``second_id``) so that
    comparing A with B and B with A find the same verdicts. The newest verdict
    on a pair is the one that counts; older ones stay as history. The reason
    is the reviewer's own text and stays here; the audit trail only keeps its
    fingerprint.
    """

    NEITHER = ""

    endpoint = models.CharField(max_length=40)
    # With ``endpoint``, which Hermes database the ids belong to (``Endpoint.fingerprint``).
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    first_id = models.CharField(max_length=300)
    second_id = models.CharField(max_length=300)
    preferred_id = models.CharField(max_length=300, blank=True)  # "" means neither
    reason = models.TextField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    username = models.CharField(max_length=150)  # kept if the user is deleted
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["endpoint", "endpoint_fp", "first_id"]),
            models.Index(fields=["endpoint", "endpoint_fp", "second_id"]),
        ]

    def __str__(self):
        return f"{self.endpoint}:{self.first_id}|{self.second_id} -> {self.preferred_id or '-'}"

    @property
    def neither(self) -> bool:
        return not self.preferred_id

    def other(self, session_id: str) -> str:
        return self.second_id if session_id == self.first_id else self.first_id
