"""Tokens that expire within a week: their owners are told once (``token.expiring``).

``announce`` is called by the notifications' hourly round. Each live token is
announced at most once (``expiry_announced_at``); a token revoked, already
expired, or of a deactivated user is not.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.platform import events

AHEAD = timedelta(days=7)


def due(now=None):
    now = now or timezone.now()
    return ApiToken.objects.filter(
        revoked_at__isnull=True,
        expiry_announced_at__isnull=True,
        expires_at__gt=now,
        expires_at__lte=now + AHEAD,
        user__is_active=True,
    )


def announce(now=None) -> int:
    now = now or timezone.now()
    found = list(due(now).values("pk", "user_id"))
    for token in found:
        # Marked first: a round killed after this loses one warning, never sends two.
        if ApiToken.objects.filter(pk=token["pk"], expiry_announced_at__isnull=True).update(
            expiry_announced_at=now
        ):
            events.emit(
                events.TOKEN_EXPIRING,
                endpoint="",
                users=[token["user_id"]],
                ids={"token_id": token["pk"]},
            )
    return len(found)
