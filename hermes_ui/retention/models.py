"""Retention rules, the tags that protect a session from them, and their runs.

A rule says which indexed sessions of one endpoint are due for deletion: an
index search in the search box's syntax plus an age (last activity older than
``age_days``). It never deletes: a run files one deletion batch through the
four-eyes path, and a second admin approves it or not. Every change of a rule
makes a new version (kept in ``RuleVersion``), so a run names exactly the
rule it applied.
"""

from django.conf import settings
from django.db import models

from hermes_ui.tags.models import Tag


class RetentionRule(models.Model):
    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    name = models.CharField(max_length=100)
    query = models.CharField(max_length=200)  # the index search syntax
    age_days = models.PositiveIntegerField()
    active = models.BooleanField(default=True)
    version = models.PositiveIntegerField(default=1)
    # The admin who last changed the rule files its daily batches; they never approve
    # a batch of the rule, whoever filed it (``DeletionBatch.selected_by``).
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_run_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["endpoint", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "name"], name="retention_rule_name_once")
        ]

    def __str__(self):
        return f"retention rule {self.endpoint}:{self.name} v{self.version}"


class RuleVersion(models.Model):
    """What a rule said from one change to the next (who changed it, and when)."""

    rule = models.ForeignKey(RetentionRule, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    query = models.CharField(max_length=200)
    age_days = models.PositiveIntegerField()
    active = models.BooleanField(default=True)
    changed_by_name = models.CharField(max_length=150)
    changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rule", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["rule", "number"], name="retention_version_once")
        ]

    def __str__(self):
        return f"retention rule #{self.rule_id} v{self.number}"


class KeepTag(models.Model):
    """A tag whose sessions no retention rule proposes (admins choose them).

    Held by the tag's id, so renaming the tag on ``/tags/`` keeps the protection."""

    tag = models.OneToOneField(Tag, on_delete=models.CASCADE, related_name="keep")
    added_by_name = models.CharField(max_length=150)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tag__name"]

    def __str__(self):
        return f"keep tag #{self.tag_id}"


class RetentionRun(models.Model):
    """One evaluation of a rule that filed a deletion batch (previews file nothing)."""

    rule = models.ForeignKey(RetentionRule, on_delete=models.CASCADE, related_name="runs")
    rule_version = models.PositiveIntegerField()
    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    # The batch it filed (a DeletionBatch of the deletion feature), by id: the
    # deletion feature owns it, and erasing it must not erase this record.
    batch_id = models.PositiveIntegerField(null=True, blank=True)
    proposed = models.PositiveIntegerField(default=0)
    matched = models.PositiveIntegerField(default=0)
    # [{"id": session id, "why": reason code}]: the sessions the rule spared.
    protected = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    superseded_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["batch_id"])]

    def __str__(self):
        return f"retention run #{self.pk} of rule #{self.rule_id}"
