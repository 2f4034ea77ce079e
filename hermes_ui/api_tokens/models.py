"""A personal API token: a public key id to find it by, and only a hash of its secret.

The token a person copies is ``hui_<key_id>_<secret>``. ``key_id`` is not a
secret (it is shown in the token list); ``digest`` is the SHA-256 of the
secret, which has 256 bits of entropy, so a slow password hash would add
time to every request and nothing to its strength. The plain token exists
only in the answer that issued it.
"""

from django.conf import settings
from django.db import models

READ, WRITE = "read", "write"


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    key_id = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    write = models.BooleanField(default=False)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # When its owner was told it expires within a week (api_tokens/expiry.py).
    expiry_announced_at = models.DateTimeField(null=True, blank=True)
    # The endpoint ids the token may reach; empty: every endpoint its owner may see.
    endpoints = models.JSONField(default=list, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.name} ({self.key_id})"

    @property
    def endpoint_limit(self) -> str:
        return ", ".join(self.endpoints) if self.endpoints else "all yours"

    @property
    def scope(self) -> str:
        return f"{READ}+{WRITE}" if self.write else READ
