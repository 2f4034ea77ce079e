"""A share link: a masked snapshot of one session's transcript, and who may open it.

The link's token exists only in the answer that made it; ``digest`` is its
SHA-256 (256 random bits, as API tokens: a slow hash would add nothing). The
snapshot is taken once, masked by the export redactor, and never refreshed
from Hermes. A share names its session by endpoint identity (``endpoint``,
``endpoint_fp``), so the session's deletion erases it (``shares.erase``).
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

INSIDE, OUTSIDE = "inside", "outside"
KINDS = [
    (INSIDE, "Inside: signed-in people who may see this session"),
    (OUTSIDE, "Outside: anyone with the link, once a second admin approves"),
]


class Share(models.Model):
    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    session_id = models.CharField(max_length=300)
    source = models.CharField(max_length=100, blank=True, default="")
    kind = models.CharField(max_length=10, choices=KINDS, default=INSIDE)
    digest = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by_name = models.CharField(max_length=150)  # shown on the link; kept if deleted
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    max_views = models.PositiveIntegerField(null=True, blank=True)
    views = models.PositiveIntegerField(default=0)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    # The snapshot, masked: the title and {"messages": [{"role", "text", "at"}], ...}.
    title = models.TextField(blank=True, default="")
    snapshot = models.JSONField(default=dict)
    masked = models.PositiveIntegerField(default=0)  # how many values the redactor masked

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["endpoint", "session_id"], name="shares_session")]

    def __str__(self):
        return f"share #{self.pk} ({self.kind})"

    @property
    def pending(self) -> bool:
        return self.kind == OUTSIDE and self.approved_at is None

    def state(self, now=None) -> str:
        """ "revoked", "expired", "used up", "awaiting approval" or "live"."""
        now = now or timezone.now()
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= now:
            return "expired"
        if self.max_views is not None and self.views >= self.max_views:
            return "used up"
        return "awaiting approval" if self.pending else "live"


def live_q(now=None) -> Q:
    """Shares not revoked, not expired and not over their view limit (pending ones too)."""
    now = now or timezone.now()
    return Q(revoked_at__isnull=True, expires_at__gt=now) & (
        Q(max_views__isnull=True) | Q(views__lt=F("max_views"))
    )
