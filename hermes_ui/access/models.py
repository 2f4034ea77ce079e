"""Grants: a role for a person or an identity-provider group, on one endpoint or on all.

A person's role on an endpoint is their highest grant there (their own, or
one of a group they belong to); with none, the endpoint does not exist for
them. ``sources`` limits a grant to sessions of those Hermes sources; empty
means every source. The rule that reads these rows is ``access.rules``.
"""

from django.conf import settings
from django.db import models

ALL = "*"
SUPPORT, REVIEWER, ADMIN = "support", "reviewer", "admin"
ROLES = (SUPPORT, REVIEWER, ADMIN)


class Origin(models.TextChoices):
    LOCAL = "local", "local"
    SSO = "sso", "SSO"
    SCIM = "scim", "SCIM"


class IdpGroup(models.Model):
    """A group as the identity provider names it (SSO claim or SCIM group)."""

    name = models.CharField(max_length=200, unique=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="idp_groups"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Membership(models.Model):
    """A person in a group, and who said so: the SSO sign-in's claim or SCIM."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    group = models.ForeignKey(IdpGroup, on_delete=models.CASCADE)
    origin = models.CharField(max_length=8, choices=Origin.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "group", "origin"], name="uniq_membership_origin"
            )
        ]

    def __str__(self):
        return f"{self.user} in {self.group} ({self.origin})"


class Grant(models.Model):
    """A role on one endpoint (or ``*``) for a person or for a group, never both."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="grants",
    )
    group = models.ForeignKey(
        IdpGroup, null=True, blank=True, on_delete=models.CASCADE, related_name="grants"
    )
    endpoint = models.CharField(max_length=40)
    role = models.CharField(max_length=10, choices=[(r, r) for r in ROLES])
    sources = models.JSONField(default=list, blank=True)
    origin = models.CharField(max_length=8, choices=Origin.choices, default=Origin.LOCAL)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["endpoint", "role", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(user__isnull=False, group__isnull=True)
                    | models.Q(user__isnull=True, group__isnull=False)
                ),
                name="grant_user_xor_group",
            )
        ]
        indexes = [models.Index(fields=["user", "endpoint"])]

    def __str__(self):
        who = self.user or self.group
        limit = f" ({', '.join(self.sources)})" if self.sources else ""
        return f"{who}: {self.role} on {self.endpoint}{limit}"


class AccessEnd(models.Model):
    """Sessions of this person that began before ``at`` are over (offboarding, SCIM, IdP logout)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_end"
    )
    at = models.DateTimeField()

    def __str__(self):
        return f"{self.user}: sessions before {self.at:%Y-%m-%d %H:%M} ended"
