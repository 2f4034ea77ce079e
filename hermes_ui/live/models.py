"""What every process shares about live updates, in the database."""

from __future__ import annotations

from django.db import models


class LiveWatch(models.Model):
    endpoint = models.CharField(max_length=64)
    worker = models.CharField(max_length=128)
    sessions = models.JSONField(default=list)  # session ids whose pages are open
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "worker"], name="live_watch_one_per_worker")
        ]

    def __str__(self):
        return f"{self.endpoint} watched from {self.worker}"


class LiveEvent(models.Model):
    id = models.BigAutoField(primary_key=True)
    endpoint = models.CharField(max_length=64)
    created_at = models.DateTimeField(db_index=True)
    # [[session id, [kind, ...]], ...]: kinds are ``changes.KINDS``.
    changes = models.JSONField(default=list)
    more = models.IntegerField(default=0)  # changed sessions left out of ``changes``

    class Meta:
        indexes = [models.Index(fields=["endpoint", "id"])]

    def __str__(self):
        return f"{self.endpoint} event {self.id}"


class LiveStatus(models.Model):
    endpoint = models.CharField(max_length=64, unique=True)
    polled_at = models.DateTimeField()
    error_code = models.CharField(max_length=64, blank=True, default="")

    def __str__(self):
        return f"{self.endpoint} polled {self.polled_at:%H:%M:%S} {self.error_code}".rstrip()


class LiveNotice(models.Model):
    """One thing people did on the dashboard that an open page follows (``notices``).

    Written after the feature's change commits, from its ``platform.events``
    event: ids only (``ids``: request, batch, queue, item, session ids), never
    a title, reason, note or label. ``topic`` is the page that follows it
    (``deletions``: the deletion queue, ``review``: a review queue's page);
    ``users`` the requester a non-admin's deletion queue may be told about.
    """

    id = models.BigAutoField(primary_key=True)
    topic = models.CharField(max_length=16)
    kind = models.CharField(max_length=32)
    endpoint = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(db_index=True)
    ids = models.JSONField(default=dict)
    users = models.JSONField(default=list)

    class Meta:
        indexes = [models.Index(fields=["topic", "id"])]

    def __str__(self):
        return f"{self.topic} notice {self.id}: {self.kind}"
