"""What every process shares about live updates, in the database.

The periodic worker and each uvicorn worker meet here, so the
same tables work on SQLite and PostgreSQL, with or without Redis:

- ``LiveWatch``: one row per worker and endpoint while a browser on that
  worker watches the endpoint (a heartbeat; the live round polls only
  endpoints with a fresh one). ``sessions`` are the session pages watched.
- ``LiveEvent``: one coalesced change per endpoint per poll, ids and change
  kinds only (never a title or text), with an increasing id the browsers
  resume from; pruned after an hour.
- ``LiveStatus``: the last poll of each endpoint, and its error code (a
  breaker open, Hermes unreachable): the pages say "live updates paused".
"""

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
