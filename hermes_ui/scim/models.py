"""The SCIM identity of a person and of a group, beside Django's user and ``IdpGroup``.

Django's ``auth.User`` stays the user model: a one-to-one row holds what SCIM
needs (the ``id`` we hand out, the client's ``externalId``) so no existing
table changes and a person made by SSO before SCIM keeps their account.
"""

import uuid

from django.conf import settings
from django.db import models

from hermes_ui.access.models import IdpGroup


def new_scim_id() -> str:
    return str(uuid.uuid4())


class ScimUser(models.Model):
    """A person as the identity provider knows them: our SCIM ``id`` and its ``externalId``."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="scim"
    )
    # Text, not a UUID column: an id from a URL is compared, never parsed (no 500).
    scim_id = models.CharField(max_length=64, unique=True, default=new_scim_id)
    external_id = models.CharField(max_length=255, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"SCIM {self.scim_id} for {self.user}"


class ScimGroup(models.Model):
    """A group the identity provider pushed: our SCIM ``id`` for an ``IdpGroup``."""

    group = models.OneToOneField(IdpGroup, on_delete=models.CASCADE, related_name="scim")
    scim_id = models.CharField(max_length=64, unique=True, default=new_scim_id)
    external_id = models.CharField(max_length=255, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"SCIM {self.scim_id} for group {self.group}"
