"""Issuing, finding and revoking personal API tokens.

A token acts with its user's grants as they are *now*: ``authenticate`` reads
the user (and so their grants) on every request, so a demoted user's tokens
are demoted at once and a deactivated user's tokens stop. A token may be
limited to some endpoints (``ApiToken.endpoints``); tokens of single sign-on
people last at most ``HERMES_UI_TOKEN_MAX_DAYS``, so the identity provider,
not a year-long token, decides when their access ends. A wrong token costs
the same work as a right one: a token of the wrong shape still looks a key
id up, and a key id that is not there is still compared with a digest.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import timedelta

from allauth.socialaccount.models import SocialAccount
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from hermes_ui.access.rules import access_of
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.web.roles import role_of

PREFIX = "hui_"
DEFAULT_DAYS, MAX_DAYS = 90, 365
_SHAPE = re.compile(r"^hui_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
# Compared against when no token has the key id, so a miss does a right one's work.
_NO_DIGEST = hashlib.sha256(b"no such token").hexdigest()
_NO_KEY_ID = "000000000000"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def sso_person(user) -> bool:
    """True for a person who signs in with the identity provider (an allauth account)."""
    return SocialAccount.objects.filter(user=user).exists()


def max_days(user) -> int:
    """The longest token ``user`` may have: ``HERMES_UI_TOKEN_MAX_DAYS`` for SSO people."""
    if sso_person(user):
        return min(MAX_DAYS, settings.HERMES_UI_TOKEN_MAX_DAYS)
    return MAX_DAYS


def too_long(user, days: int) -> str | None:
    """Why ``days`` is refused for ``user``'s token, or None."""
    limit = max_days(user)
    if 1 <= days <= limit:
        return None
    if limit < MAX_DAYS:
        return (
            f"Tokens of single sign-on accounts last at most {limit} days: your identity "
            "provider decides how long your access lasts."
        )
    return f"A token lasts 1 to {limit} days."


def reachable(user) -> list[str]:
    """The endpoints a token of ``user`` may be limited to: those the person may see."""
    return access_of(user).endpoint_ids()


def issue(
    user,
    name: str,
    *,
    days: int = DEFAULT_DAYS,
    write: bool = False,
    endpoints=(),
    by=None,
):
    """A new token for ``user``; returns (token, the plain text shown once).

    ``endpoints``: the endpoint ids it may reach (each one the person may see);
    empty for every endpoint they may see, now and later.
    """
    refusal = too_long(user, days)
    if refusal:
        raise ValueError(refusal)
    name = name.strip()
    if not name:
        raise ValueError("Give the token a name.")
    endpoints = list(dict.fromkeys(str(each) for each in endpoints))
    allowed = reachable(user)
    outside = [each for each in endpoints if each not in allowed]
    if outside:
        raise ValueError(
            f"{user.get_username()!r} may not see the endpoint {outside[0]!r}; "
            f"choose among: {', '.join(allowed) or 'none'}."
        )
    secret = secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        key_id = secrets.token_hex(6)
        token = ApiToken.objects.create(
            user=user,
            name=name[:100],
            key_id=key_id,
            digest=_digest(secret),
            write=write,
            endpoints=endpoints,
            created_at=now,
            expires_at=now + timedelta(days=days),
        )
        record(
            by or user,
            capability="api.token_create",
            endpoint="",
            outcome=Outcome.SUCCESS,
            evidence={
                "id": token.pk,
                "key_id": key_id,
                "user_id": user.pk,
                "write": write,
                "endpoints": endpoints,
            },
        )
    return token, f"{PREFIX}{key_id}_{secret}"


def authenticate(raw: str) -> ApiToken | None:
    """The live token ``raw`` names, with its user loaded fresh, or None."""
    shape = _SHAPE.match(raw or "")
    key_id, secret = shape.groups() if shape else (_NO_KEY_ID, raw or "")
    found = ApiToken.objects.select_related("user").filter(key_id=key_id).first()
    expected = found.digest if found is not None else _NO_DIGEST
    matches = hmac.compare_digest(expected, _digest(secret))
    if not (shape and found is not None and matches):
        return None
    if found.revoked_at is not None or found.expires_at <= timezone.now():
        return None
    if role_of(found.user) is None:  # deactivated, or no role any more
        return None
    return found


def note_use(token: ApiToken, *, write: bool = False) -> None:
    """Keep "last used" and audit the token's first use of each day (UTC)."""
    now = timezone.now()
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if token.last_used_at is not None and token.last_used_at >= day_start:
        if now - token.last_used_at > timedelta(minutes=1):
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return
    first = (
        ApiToken.objects.filter(pk=token.pk)
        .filter(Q(last_used_at__isnull=True) | Q(last_used_at__lt=day_start))
        .update(last_used_at=now)
    )
    token.last_used_at = now
    if first:  # one worker wins the day's first use; it alone records it
        record(
            token.user,
            capability="api.token_use",
            endpoint="",
            outcome=Outcome.SUCCESS,
            evidence={"id": token.pk, "key_id": token.key_id},
        )


def sees_everyones(user) -> bool:
    """Instance admins (admin on ``*``) see and revoke everyone's tokens."""
    return access_of(user).instance_admin


def visible_to(user):
    """The tokens ``user`` may see and revoke: their own, or everyone's for an instance
    admin (an admin of one endpoint is not one of everyone's)."""
    tokens = ApiToken.objects.select_related("user", "revoked_by")
    return tokens if sees_everyones(user) else tokens.filter(user=user)


def revoke(token: ApiToken, by) -> bool:
    """Revoke ``token`` (once); True if this call revoked it."""
    done = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=by
    )
    if done:
        record(
            by,
            capability="api.token_revoke",
            endpoint="",
            outcome=Outcome.SUCCESS,
            evidence={"id": token.pk, "key_id": token.key_id, "user_id": token.user_id},
        )
    return bool(done)


def state(token: ApiToken) -> str:
    if token.revoked_at is not None:
        return "revoked"
    if token.expires_at <= timezone.now():
        return "expired"
    return "active"
