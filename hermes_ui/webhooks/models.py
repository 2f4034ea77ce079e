"""Webhooks, their deliveries and each delivery's attempts: ids, codes and times only."""

import uuid

from django.db import models


class Webhook(models.Model):
    url = models.URLField(max_length=500)
    # Signs every body (HMAC-SHA256); shown once when set, never logged or listed.
    secret = models.CharField(max_length=200)
    events = models.JSONField(default=list)  # names from hermes_ui.platform.events.PUBLIC
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by_name = models.CharField(max_length=150, blank=True)
    # Since when every attempt has failed (None: the last one succeeded).
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"webhook #{self.pk}"


class Delivery(models.Model):
    PENDING, SENDING, DELIVERED, FAILED = "pending", "sending", "delivered", "failed"
    STATES = [(s, s) for s in (PENDING, SENDING, DELIVERED, FAILED)]

    # The X-Hermes-UI-Delivery id: the same for every attempt and redelivery.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    # The exact bytes signed and sent: event, ids and counts (no content).
    body = models.TextField()
    created_at = models.DateTimeField()
    state = models.CharField(max_length=10, choices=STATES, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # While "sending": a worker holds it until then; past it, a round hands it to another.
    lease_until = models.DateTimeField(null=True, blank=True)
    last_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=40, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["state", "next_attempt_at"]),
            models.Index(fields=["webhook", "-created_at"]),
        ]

    def __str__(self):
        return f"delivery {self.id} {self.state}"


class Attempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="log")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    milliseconds = models.PositiveIntegerField(default=0)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)  # HTTP status
    # "ok", or why not: "http_500", "timeout", "connect", "redirect", "refused_address", ...
    outcome = models.CharField(max_length=40)

    class Meta:
        ordering = ["delivery", "number"]

    def __str__(self):
        return f"attempt {self.number} of {self.delivery_id}: {self.outcome}"
