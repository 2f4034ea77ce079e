"""Rows the dashboard keeps about Hermes sessions (it owns these, not the data)."""

from django.conf import settings
from django.db import models


class KnownFork(models.Model):
    """Every fork this dashboard performed.

    An API fork of a parent that was already closed for another reason is
    hidden from the default list and looks like any other child in the
    administrative one, so only this record says "this child is a branch".
    """

    endpoint = models.CharField(max_length=40)
    parent_id = models.CharField(max_length=300)
    child_id = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "child_id"], name="uniq_known_fork")
        ]
        indexes = [models.Index(fields=["endpoint", "parent_id"])]

    def __str__(self):
        return f"{self.endpoint}:{self.parent_id}->{self.child_id}"
