"""Issuing, finding and revoking personal API tokens.

A token acts with its user's role as it is *now*: ``authenticate`` reads the
user (and so the role) on every request, so a demoted user's tokens are
demoted at once and a deactivated user's tokens stop. A wrong token costs
the same work as a right one: a token of the wrong shape still looks a key
id up, and a key id that is not there is still compared with a digest.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.web.roles import ADMIN, has_role, role_of

PREFIX = "hui_"
DEFAULT_DAYS, MAX_DAYS = 90, 365
_SHAPE = re.compile(r"^hui_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$")
# Compared against when no token has the key id, so a miss does a right one's work.
_NO_DIGEST = hashlib.sha256(b"no such token").hexdigest()
_NO_KEY_ID = "000000000000"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def issue(user, name: str, *, days: int = DEFAULT_DAYS, write: bool = False, by=None):
    """A new token for ``user``; returns (token, the plain text shown once)."""
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"A token lasts 1 to {MAX_DAYS} days.")
    name = name.strip()
    if not name:
        raise ValueError("Give the token a name.")
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
            created_at=now,
            expires_at=now + timedelta(days=days),
        )
        record(
            by or user,
            capability="api.token_create",
            endpoint="",
            outcome=Outcome.SUCCESS,
            evidence={"id": token.pk, "key_id": key_id, "user_id": user.pk, "write": write},
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


def visible_to(user):
    """The tokens ``user`` may see and revoke: their own, or everyone's for an admin."""
    tokens = ApiToken.objects.select_related("user", "revoked_by")
    return tokens if has_role(user, ADMIN) else tokens.filter(user=user)


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
