"""What people can be told, who is told, and how by default.

A *kind* is what a person chooses a mode for on ``/account/notifications/``;
several events may share one (approved and rejected are "your request was
decided"). The audience of an event comes from the event itself (the
people it names) or from roles (every admin but the requester), always kept
to who may see what it is about (``may_know``).
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.access import rows as seen
from hermes_ui.access.rules import access_of
from hermes_ui.notifications.models import DIGEST, IMMEDIATE
from hermes_ui.platform import events
from hermes_ui.web.roles import ADMIN, SUPPORT


@dataclass(frozen=True)
class Kind:
    key: str
    label: str
    default: str


APPROVAL_NEEDED = Kind("approval_needed", "A deletion request awaits your approval", IMMEDIATE)
REQUEST_DECIDED = Kind(
    "request_decided", "Your deletion request was approved or rejected", IMMEDIATE
)
REQUEST_EXECUTED = Kind(
    "request_executed", "Your deletion request was executed (or ended incomplete)", DIGEST
)
MENTIONED = Kind("mentioned", "You were mentioned in a note", IMMEDIATE)
QUEUE_ASSIGNED = Kind("queue_assigned", "You were assigned to a review queue", DIGEST)
QUEUE_WAITING = Kind(
    "queue_waiting", "A review queue you own has items waiting longer than a day", DIGEST
)
TOKEN_EXPIRING = Kind("token_expiring", "Your API token expires in 7 days", DIGEST)
WEBHOOK_DISABLED = Kind("webhook_disabled", "A failing webhook was disabled (admins)", DIGEST)
SHARE_APPROVAL_NEEDED = Kind(
    "share_approval_needed", "An outside share link awaits your approval", IMMEDIATE
)
KINDS = {
    k.key: k
    for k in (
        APPROVAL_NEEDED,
        REQUEST_DECIDED,
        REQUEST_EXECUTED,
        MENTIONED,
        QUEUE_ASSIGNED,
        QUEUE_WAITING,
        TOKEN_EXPIRING,
        WEBHOOK_DISABLED,
        SHARE_APPROVAL_NEEDED,
    )
}

BY_EVENT = {
    events.DELETION_REQUESTED: APPROVAL_NEEDED,
    events.DELETION_APPROVED: REQUEST_DECIDED,
    events.DELETION_REJECTED: REQUEST_DECIDED,
    events.DELETION_EXECUTED: REQUEST_EXECUTED,
    events.REVIEW_MENTIONED: MENTIONED,
    events.REVIEW_QUEUE_ASSIGNED: QUEUE_ASSIGNED,
    events.REVIEW_ITEMS_WAITING: QUEUE_WAITING,
    events.TOKEN_EXPIRING: TOKEN_EXPIRING,
    events.WEBHOOK_DISABLED: WEBHOOK_DISABLED,
    events.SHARE_APPROVAL_NEEDED: SHARE_APPROVAL_NEEDED,
}
# Told to every active admin but the one who caused it; the rest to the people named.
TO_ADMINS = {events.DELETION_REQUESTED, events.WEBHOOK_DISABLED, events.SHARE_APPROVAL_NEEDED}


ADMIN_KINDS = {BY_EVENT[name].key for name in TO_ADMINS}


def may_know(user, kind: str, endpoint: str = "", session_id: str = "") -> bool:
    """May ``user`` be told of a notice of ``kind`` about ``endpoint`` (and ``session_id``)?

    The one rule (``hermes_ui.access``), asked when the notice is made and
    again when its mail is sent: a session's notice needs sight of that
    session (its source, for a source-limited person), an endpoint's notice a
    role there, a deletion awaiting approval the admin role on its endpoint,
    a disabled webhook instance administration.
    """
    access = access_of(user)
    if kind == WEBHOOK_DISABLED.key:
        return access.instance_admin
    needed = ADMIN if kind in ADMIN_KINDS else SUPPORT
    if not endpoint:
        return access.has_somewhere(needed)
    if session_id:
        return seen.may_see(access, endpoint, session_id, needed)
    return access.has(needed, endpoint, any_source=True)


def refusal(user, notices) -> str:
    """Why ``user`` may be mailed none of ``notices`` ("" if some may go):
    mails go to people active, and still allowed to know, when they are sent."""
    if not user.is_active:
        return "recipient_inactive"
    if not told(user, notices):
        return "recipient_role"
    return ""


def told(user, notices) -> list:
    """The notices ``user`` may still be told of; the rest are left out of their mail."""
    return [n for n in notices if may_know(user, n.kind, n.endpoint, n.session_id)]


def audience(event: events.Event) -> list:
    """The active users with a role who are told of ``event`` (the actor never is)."""
    kind = BY_EVENT[event.name]
    users = seen.people()
    if event.name not in TO_ADMINS:
        users = users.filter(pk__in=event.users)
    if event.actor is not None:
        users = users.exclude(pk=event.actor)
    session_id = str(event.ids.get("session_id", "") or "")
    return [
        user
        for user in users.order_by("pk")
        if may_know(user, kind.key, event.endpoint or "", session_id)
    ]
