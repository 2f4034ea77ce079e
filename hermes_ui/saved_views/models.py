"""Saved index queries and each user's default view.

A view keeps what the index page's form sends: the search box (``q``, its
whole syntax) and the source, kind and state selects. The index has one
order, last activity first, so there is no sort to keep. Views are not tied
to an endpoint: the same query applies to whichever endpoint's index is
open. They name no session, so no eraser covers them.
"""

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

MAX_NAME = 60


class SavedView(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_views"
    )
    name = models.CharField(max_length=MAX_NAME)
    shared = models.BooleanField(default=False)  # seen (not changed) by every user
    q = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=20, blank=True)
    state = models.CharField(max_length=10, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = [Lower("name"), "id"]
        constraints = [
            models.UniqueConstraint("owner", Lower("name"), name="saved_view_name_per_owner")
        ]
        indexes = [models.Index(fields=["shared"])]

    def __str__(self):
        return self.name


class DefaultView(models.Model):
    """The view a user's index opens with: ``view:<pk>``, ``builtin:<key>`` or ``all``."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    key = models.CharField(max_length=40)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.user_id}: {self.key}"
