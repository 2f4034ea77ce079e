"""Tags: a managed list (name and colour) and which sessions carry which tag.

A tag's name is user text: it is shown escaped and never written to the
audit trail or the logs (events keep the tag's id). A session tag names a
session of one endpoint identity (``endpoint``, ``endpoint_fp``), so an
executed deletion finds and erases it (``tags.erase``).
"""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from hermes_ui.search.badges import PALETTE

MAX_NAME = 40
COLOURS = [(colour, colour) for colour in PALETTE]


class Tag(models.Model):
    name = models.CharField(max_length=MAX_NAME)
    colour = models.CharField(max_length=20, choices=COLOURS, default="grey")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = [Lower("name"), "id"]
        constraints = [models.UniqueConstraint(Lower("name"), name="tags_tag_name_ci")]

    def __str__(self):
        return self.name


class SessionTag(models.Model):
    """One tag on one session; adding it twice is one row (idempotent)."""

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    session_id = models.CharField(max_length=300)
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE, related_name="sessions")
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "session_id", "tag"],
                name="tags_once_per_session",
            )
        ]
        # ``tag:x`` reads the sessions of one tag (this index, then the index's
        # own unique key by session id); badges read the tags of a page of ids
        # (the unique constraint's index).
        indexes = [models.Index(fields=["tag", "endpoint", "endpoint_fp", "session_id"])]

    def __str__(self):
        return f"{self.endpoint}:{self.session_id} #{self.tag_id}"
