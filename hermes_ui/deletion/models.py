"""Deletion requests, their four-eyes approval and their execution record.

A request is the case file of one intended ``DELETE``: who asked and why,
what the session looked like at that moment (a projection of its row, the
number and a digest of its active messages, never their content) and what
the lineage said would happen (delegates deleted with it, children that
survive as roots). The approval and the execution are recorded on the same
row so the queue and the audit trail can show the whole story.
"""

from django.conf import settings
from django.db import models

from hermes_ui.deletion import erasers


class Status(models.TextChoices):
    PENDING = "pending", "pending approval"
    APPROVED = "approved", "approved"
    REJECTED = "rejected", "rejected"
    EXPIRED = "expired", "approval expired"
    EXECUTED = "executed", "executed"
    UNCERTAIN = "uncertain", "uncertain: check"
    VOID = "void", "void"


OPEN_STATUSES = (Status.PENDING, Status.APPROVED, Status.UNCERTAIN)


class DeletionBatch(models.Model):
    """One request covering many sessions: one reason, one approval, one execution.

    Each session is still its own ``DeletionRequest`` (its own snapshot,
    consequences, key and result) linked here as a member; the batch holds
    what the selection asked for that did not become a member, and when its
    execution ran.
    """

    endpoint = models.CharField(max_length=40, db_index=True)
    endpoint_fp = models.CharField(max_length=16)
    requester = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    requester_name = models.CharField(max_length=150)
    # Who chose which sessions it covers when that was not the requester's choice
    # alone (a retention rule's last editor): like the requester, they may not approve it.
    selected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.TextField()
    created_at = models.DateTimeField()
    # [{"id": ..., "why": "delegate_of" | "open_request" | "gone" | "unreadable", "other": ...}]
    skipped = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    executor_name = models.CharField(max_length=150, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"deletion batch #{self.pk} {self.endpoint}"


class DeletionRequest(models.Model):
    endpoint = models.CharField(max_length=40, db_index=True)
    # With ``endpoint``, the identity of the Hermes database (``Endpoint.fingerprint``):
    # a request is never approved or executed against another server.
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    session_id = models.CharField(max_length=300)
    requester = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    requester_name = models.CharField(max_length=150)
    reason = models.TextField()
    created_at = models.DateTimeField()
    # {"row": {...}, "active_message_count": n, "digest": hex, "resolved_session_id": id}
    snapshot = models.JSONField(default=dict)
    # {"cascade": [{id, parent_id, kind, depth}], "survivors": [...], "listed_rows": n}
    consequences = models.JSONField(default=dict)
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    # Why the request is void, expired or uncertain, in the dashboard's own
    # words (field names and counts, never titles or message text).
    status_note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    # The approval: approve or reject, with the policy rule and a comment.
    approver = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    approver_name = models.CharField(max_length=150, blank=True)
    policy_rule = models.CharField(max_length=40, blank=True)
    decision_comment = models.TextField(blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    approved_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    # The execution: minted at approval, so every repeat of "execute" for this
    # approval maps to one idempotency record and one DELETE.
    idempotency_key = models.CharField(max_length=64, blank=True)
    executor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    executor_name = models.CharField(max_length=150, blank=True)
    executed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # What happened, confirmed by reading Hermes afterwards (ids and states only).
    result = models.JSONField(default=dict, blank=True)
    # Set when this request is one session of a bulk request (approved as a whole).
    batch = models.ForeignKey(
        DeletionBatch, null=True, blank=True, on_delete=models.SET_NULL, related_name="members"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["endpoint", "session_id", "status"])]

    def __str__(self):
        return f"deletion #{self.pk} {self.endpoint}:{self.session_id} {self.status}"

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def cascade_ids(self) -> list[str]:
        return [item["id"] for item in self.consequences.get("cascade", [])]

    @property
    def survivor_ids(self) -> list[str]:
        return [item["id"] for item in self.consequences.get("survivors", [])]

    @property
    def leftover_ids(self) -> list[str]:
        """Sessions this executed deletion should have removed that Hermes still had
        when it was read afterwards (e.g. delegates a release did not cascade to)."""
        return [
            d["id"]
            for d in (self.result or {}).get("deleted", [])
            if d.get("state") == "still_present"
        ]

    @property
    def incomplete(self) -> bool:
        return self.status == Status.EXECUTED and bool(self.leftover_ids)

    @property
    def status_label(self) -> str:
        """The status as pages show it: an executed deletion that left sessions behind
        reads "executed, incomplete"."""
        return "executed, incomplete" if self.incomplete else self.get_status_display()

    @property
    def follow_up_batch_id(self) -> int | None:
        return (self.result or {}).get("follow_up_batch")

    @property
    def erase_only(self) -> bool:
        """Hermes had already lost the session when it was asked for (a deletion made
        elsewhere): this case erases the dashboard's own copies and sends no DELETE."""
        return self.snapshot.get("gone_at_request") is True

    @property
    def erased(self) -> list[tuple[str, int]]:
        """What the dashboard erased, as (label, count), for the result page."""
        counts = self.result.get("erased") or {}
        return [(label, counts.get(kind, 0)) for kind, label in erasers.kinds().items()]
