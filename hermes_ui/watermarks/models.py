"""Per-user read watermarks: how many messages a session had when that user last looked."""

from django.conf import settings
from django.db import models


class Watermark(models.Model):
    """``message_count`` is Hermes' own count for the session row (what the index row
    holds too) when ``user`` last opened its page, at ``seen_at``."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    session_id = models.CharField(max_length=300)
    message_count = models.IntegerField(default=0)
    seen_at = models.DateTimeField()

    class Meta:
        # The key of the upsert, and the index ``new:`` and the badges read by:
        # one user's watermarks on one endpoint identity, by session id.
        constraints = [
            models.UniqueConstraint(
                fields=["user", "endpoint", "endpoint_fp", "session_id"], name="watermark_once"
            )
        ]
        indexes = [
            # Erasure finds a session's watermarks of every user.
            models.Index(fields=["endpoint", "endpoint_fp", "session_id"]),
            # ``new:`` walks one user's watermarks with their counts: this index
            # covers that walk (no table row read per watermark).
            models.Index(
                fields=["user", "endpoint", "endpoint_fp", "session_id", "message_count"],
                name="watermark_user_counts",
            ),
        ]

    def __str__(self):
        return f"{self.user_id}@{self.endpoint}:{self.session_id}={self.message_count}"
