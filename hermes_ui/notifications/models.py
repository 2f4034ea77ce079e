"""Preferences, notices (what to tell whom) and mails (what was sent, or failed).

A notice holds ids and counts; a mail's text is composed from its notices
when it is sent and never stored, so no title is kept here.
"""

from django.conf import settings
from django.db import models

IMMEDIATE, DIGEST, NEVER = "immediate", "digest", "never"
MODES = [(IMMEDIATE, "immediately"), (DIGEST, "in the daily digest"), (NEVER, "never")]


class Preference(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=30)  # hermes_ui.notifications.kinds.KINDS
    mode = models.CharField(max_length=10, choices=MODES)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="notify_preference_once")
        ]

    def __str__(self):
        return f"{self.user_id}:{self.kind}={self.mode}"


class Mail(models.Model):
    PENDING, SENT, FAILED = "pending", "sent", "failed"
    STATES = [(s, s) for s in (PENDING, SENT, FAILED)]

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    digest = models.BooleanField(default=False)
    subject = models.CharField(max_length=200)  # stable, ids only
    created_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=10, choices=STATES, default=PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=60, blank=True)  # an exception class, no text
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["state", "created_at"])]

    def __str__(self):
        return f"mail #{self.pk} to {self.user_id} {self.state}"


class Notice(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=30)
    event = models.CharField(max_length=40)
    mode = models.CharField(max_length=10, choices=MODES)
    endpoint = models.CharField(max_length=40, blank=True)
    endpoint_fp = models.CharField(max_length=16, blank=True)
    session_id = models.CharField(max_length=300, blank=True)
    ids = models.JSONField(default=dict)  # request_id, batch_id, queue_id, note_id, ...
    counts = models.JSONField(default=dict)
    created_at = models.DateTimeField()
    mail = models.ForeignKey(
        Mail, null=True, blank=True, on_delete=models.SET_NULL, related_name="notices"
    )

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["user", "mode", "mail"]),
            models.Index(fields=["endpoint", "endpoint_fp", "session_id"]),
        ]

    def __str__(self):
        return f"notice {self.event} for {self.user_id}"
