"""Making, opening, approving and revoking share links: the rules in one place.

Every view and API route calls these; each answers from the database and the
one access rule (``access.rules.access_of``), never from Hermes, except
``create``, which takes the snapshot. The instance switch ``HERMES_UI_SHARING``
is asked at every step, so turning it down stops existing links at once.
"""

from __future__ import annotations

import hashlib
import ipaddress
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from hermes_ui.access.rules import access_of
from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.shares.models import INSIDE, OUTSIDE, Share, live_q
from hermes_ui.shares.snapshot import Snapshot
from hermes_ui.web.roles import ADMIN

DEFAULT_DAYS = 7
MAX_VIEWS = 10_000


class Refused(Exception):
    """Why an action on a share is not done; ``str()`` is the sentence to show."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def allowed_kinds() -> tuple[str, ...]:
    """The kinds the instance switch lets work now."""
    return {"off": (), "inside": (INSIDE,), "outside": (INSIDE, OUTSIDE)}[
        settings.HERMES_UI_SHARING
    ]


def max_days() -> int:
    return settings.HERMES_UI_SHARE_MAX_DAYS


def default_days() -> int:
    return min(DEFAULT_DAYS, max_days())


def create(
    ep: Endpoint,
    session_id: str,
    user,
    snap: Snapshot,
    *,
    kind: str,
    days: int,
    max_views: int | None = None,
) -> tuple[Share, str]:
    """A new share of ``snap``; returns (share, the token shown once). The caller has
    checked the person's support role on the session (the door)."""
    if kind not in allowed_kinds():
        raise Refused(f"Sharing {kind} is turned off on this dashboard (HERMES_UI_SHARING).")
    if not 1 <= days <= max_days():
        raise Refused(f"A link lasts 1 to {max_days()} days.", status=400)
    if max_views is not None and not 1 <= max_views <= MAX_VIEWS:
        raise Refused(f"A view limit is 1 to {MAX_VIEWS}.", status=400)
    purge_ended()
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        share = Share.objects.create(
            **ep.scope(),
            session_id=session_id,
            source=snap.source,
            kind=kind,
            digest=digest(token),
            created_by=user,
            created_by_name=user.get_username(),
            created_at=now,
            expires_at=now + timedelta(days=days),
            max_views=max_views,
            title=snap.title,
            snapshot=snap.body,
            masked=snap.masked,
        )
        _audit(user, share, "share_create", max_views=max_views, masked=snap.masked)
    # The receivers queue tasks in the database; after the share's commit, they see it.
    _announce(events.SHARE_CREATED, share, user)
    if kind == OUTSIDE:
        _announce(events.SHARE_APPROVAL_NEEDED, share, user)
    return share, token


def find(token: str) -> Share | None:
    """The share ``token`` names (any state), or None."""
    if not token or len(token) > 100:
        return None
    return Share.objects.filter(digest=digest(token)).first()


def may_open(user, share: Share) -> bool:
    """May ``user`` (perhaps anonymous) see ``share`` at all? False answers as an unknown
    link does: an inside link to a person who may not see its session, an outside link
    not yet approved, a link of an endpoint no longer configured."""
    if share.endpoint not in settings.HERMES_ENDPOINTS:
        return False
    if share.kind == INSIDE:
        return access_of(user).sees(share.endpoint, share.source)
    return share.approved_at is not None


def gone_reason(share: Share, now=None) -> str | None:
    """Why a share that ``may_open`` no longer works (a 410), or None."""
    if share.kind not in allowed_kinds():
        return "Sharing links of this kind is turned off on this dashboard."
    state = share.state(now)
    return {
        "revoked": "This link was revoked.",
        "expired": "This link has expired.",
        "used up": "This link has been opened as many times as it allows.",
    }.get(state)


def count_view(share: Share, user, client: str) -> bool:
    """Count one view (atomically, against the limit) and audit it; False if over it."""
    counted = Share.objects.filter(live_q(), pk=share.pk).update(views=F("views") + 1)
    if counted:
        share.views += 1
        _audit(user, share, "share_view", client=truncated(client))
    return bool(counted)


def truncated(address: str) -> str:
    """The client's network, not its address: IPv4 to /24, IPv6 to /48."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return "unknown"
    prefix = 24 if ip.version == 4 else 48
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def visible_to(user):
    """The shares ``user`` may list and revoke: their own, and every one of a session
    they are admin of (endpoint and source)."""
    access = access_of(user)
    if access.instance_admin:
        return Share.objects.all()
    return Share.objects.filter(Q(created_by=user) | access.session_q(ADMIN))


def reachable(user, pk: int) -> Share | None:
    """The share ``pk`` if ``user`` may see its session (else None, as for no share): a
    person who may see the session may know that it was shared, not more."""
    share = Share.objects.filter(pk=pk).first()
    if share is None or not (
        share.created_by_id == user.pk or access_of(user).sees(share.endpoint, share.source)
    ):
        return None
    return share


def may_revoke(user, share: Share) -> bool:
    return share.created_by_id == user.pk or access_of(user).has(
        ADMIN, share.endpoint, share.source
    )


def may_approve(user, share: Share) -> bool:
    """A second admin of the session's endpoint (and source), never the sharer."""
    return (
        share.kind == OUTSIDE
        and share.created_by_id != user.pk
        and access_of(user).has(ADMIN, share.endpoint, share.source)
    )


def approve(share: Share, user) -> None:
    if not may_approve(user, share):
        if share.created_by_id == user.pk:
            raise Refused("The four-eyes rule: an admin other than the sharer approves.")
        raise Refused("Only an admin of this session's endpoint approves an outside link.")
    if OUTSIDE not in allowed_kinds():
        raise Refused("Outside links are turned off on this dashboard (HERMES_UI_SHARING).")
    if share.state() != "awaiting approval":
        raise Refused(f"This link is {share.state()}: there is nothing to approve.", status=409)
    with transaction.atomic():
        done = Share.objects.filter(pk=share.pk, approved_at__isnull=True).update(
            approved_at=timezone.now(), approved_by=user
        )
        if not done:
            raise Refused("This link was approved meanwhile.", status=409)
        _audit(user, share, "share_approve")
    _announce(events.SHARE_APPROVED, share, user)


def revoke(share: Share, user) -> bool:
    """Revoke ``share`` (once); True if this call revoked it."""
    if not may_revoke(user, share):
        raise Refused("Only the sharer or an admin of this session's endpoint revokes it.")
    with transaction.atomic():
        done = Share.objects.filter(pk=share.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now(), revoked_by=user, snapshot={}, title=""
        )
        if done:
            _audit(user, share, "share_revoke")
    if done:
        _announce(events.SHARE_REVOKED, share, user)
    return bool(done)


def purge_ended(now=None) -> int:
    """Blank the snapshots of links that can no longer open (revoked, expired, used up):
    the row stays for the list and the audit trail, the transcript goes. The
    ``share-purge`` round runs it every minute, and lists and new shares call it too."""
    ended = Share.objects.exclude(live_q(now)).exclude(title="", snapshot={})
    return ended.update(snapshot={}, title="")


def _audit(user, share: Share, capability: str, **more) -> None:
    trail.record(
        user,
        capability=capability,
        endpoint=share.endpoint,
        outcome=Outcome.SUCCESS,
        session_id=share.session_id,
        evidence={
            "share_id": share.pk,
            "kind": share.kind,
            "expires_at": share.expires_at.isoformat(timespec="seconds"),
            **more,
        },
    )


def _announce(name: str, share: Share, user) -> None:
    events.emit(
        name,
        endpoint=share.endpoint,
        actor=user,
        users=[share.created_by_id] if share.created_by_id else [],
        ids={"share_id": share.pk, "session_id": share.session_id, "kind": share.kind},
    )
