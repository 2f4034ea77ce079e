"""Giving and taking roles: every change is one audited call here.

``set_role`` keeps the old meaning of a global role (one grant on ``*``);
``sync_origin`` replaces what the identity provider gave (SSO or SCIM) in one
step, so a sign-in or a revalidation never leaves a half-old set.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from hermes_ui.access.models import ALL, ROLES, Grant, IdpGroup, Origin
from hermes_ui.access.rules import forget
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record


def clean(endpoint: str, role: str, sources: Iterable[str] = ()) -> tuple[str, str, list[str]]:
    """The grant's fields, checked: a configured endpoint or ``*``, a known role, plain sources."""
    endpoint = (endpoint or "").strip()
    if endpoint != ALL and endpoint not in settings.HERMES_ENDPOINTS:
        known = ", ".join(["*", *settings.HERMES_ENDPOINTS]) or "*"
        raise ValidationError(f"No endpoint {endpoint!r} is configured (known: {known}).")
    if role not in ROLES:
        raise ValidationError(f"{role!r} is not a role; use one of {', '.join(ROLES)}.")
    cleaned = sorted({s.strip() for s in sources if s and s.strip()})
    for source in cleaned:
        if len(source) > 200 or not source.isprintable():
            raise ValidationError(f"{source[:40]!r} is not a source name.")
    return endpoint, role, cleaned


def _audit(by, action: str, grant: Grant | None, **evidence) -> None:
    record(
        by,
        capability=f"access.{action}",
        endpoint="" if grant is None or grant.endpoint == ALL else grant.endpoint,
        outcome=Outcome.SUCCESS,
        evidence=evidence,
    )


def _who(user=None, group: IdpGroup | None = None) -> dict:
    if user is not None:
        return {"person": user.get_username()}
    return {"group": group.name if group else ""}


@transaction.atomic
def grant(
    endpoint: str,
    role: str,
    sources: Iterable[str] = (),
    *,
    user=None,
    group: IdpGroup | None = None,
    by=None,
    origin: str = Origin.LOCAL,
) -> Grant:
    """Give ``role`` on ``endpoint`` to a person or a group; replaces their grant there."""
    endpoint, role, cleaned = clean(endpoint, role, sources)
    if (user is None) == (group is None):
        raise ValidationError("A grant is for a person or for a group.")
    Grant.objects.filter(user=user, group=group, endpoint=endpoint, origin=origin).delete()
    made = Grant.objects.create(
        user=user,
        group=group,
        endpoint=endpoint,
        role=role,
        sources=cleaned,
        origin=origin,
        created_by=by,
    )
    _audit(by, "grant", made, role=role, sources=cleaned, origin=origin, **_who(user, group))
    forget(user)
    return made


@transaction.atomic
def revoke(endpoint: str, *, user=None, group: IdpGroup | None = None, by=None) -> int:
    """Take every grant on ``endpoint`` from a person or group; the number taken."""
    rows = Grant.objects.filter(user=user, group=group, endpoint=endpoint)
    taken = [(g.role, g.origin) for g in rows]
    rows.delete()
    if taken:
        probe = Grant(endpoint=endpoint)
        _audit(by, "revoke", probe, taken=[f"{r} ({o})" for r, o in taken], **_who(user, group))
    forget(user)
    return len(taken)


def set_role(user, role: str, *, by=None) -> None:
    """The person's local role on every endpoint, as the old global role was."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    grant(ALL, role, user=user, by=by)


@transaction.atomic
def sync_origin(
    user, origin: str, wanted: Iterable[tuple[str, str, Iterable[str]]], *, by=None
) -> bool:
    """Make the person's grants of ``origin`` exactly ``wanted``; True when something changed."""
    target = set()
    for item in wanted:
        ep, role, srcs = clean_known(*item)
        if ep is not None:
            target.add((ep, role, tuple(srcs)))
    current = {
        (g.endpoint, g.role, tuple(g.sources)): g.pk
        for g in Grant.objects.filter(user=user, origin=origin)
    }
    if set(current) == target:
        return False
    Grant.objects.filter(pk__in=[pk for key, pk in current.items() if key not in target]).delete()
    for ep, role, srcs in target - set(current):
        Grant.objects.create(user=user, endpoint=ep, role=role, sources=list(srcs), origin=origin)
    record(
        by,
        capability="access.sync",
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={
            "person": user.get_username(),
            "origin": origin,
            "grants": sorted(
                f"{role}@{ep}" + (f"[{','.join(s)}]" if s else "") for ep, role, s in target
            ),
        },
    )
    forget(user)
    return True


def clean_known(endpoint: str, role: str, sources: Iterable[str] = ()):
    """``clean``, but an endpoint no longer configured is skipped (None), not an error."""
    try:
        return clean(endpoint, role, sources)
    except ValidationError:
        return None, None, None


def _label(endpoint: str, role: str, sources) -> str:
    return f"{role}@{endpoint}" + (f"[{','.join(sources)}]" if sources else "")
