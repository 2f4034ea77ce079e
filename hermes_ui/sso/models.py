"""When the identity provider last vouched for each single sign-on person.

The revalidation round (hermes_ui/sso/revalidation.py) reads it to find who is
due, and to fail closed when the provider has not answered for too long.
"""

from django.conf import settings
from django.db import models


class SsoCheck(models.Model):
    """One per SSO person: the last sign-in or successful refresh, and the last try."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sso_check"
    )
    # The last time the provider said yes (a sign-in or a refresh it accepted).
    checked_at = models.DateTimeField()
    # The last attempt, answered or not (unreachable, 5xx, timeout).
    tried_at = models.DateTimeField(null=True, blank=True)
    failures = models.PositiveIntegerField(default=0)
    # The provider's session id (``sid``) of the last sign-in: a back-channel logout
    # that names only ``sid`` finds the person by it.
    sid = models.CharField(max_length=255, blank=True, default="", db_index=True)

    class Meta:
        indexes = [models.Index(fields=["checked_at"])]

    def __str__(self) -> str:
        return f"{self.user} checked {self.checked_at:%Y-%m-%d %H:%M}"
