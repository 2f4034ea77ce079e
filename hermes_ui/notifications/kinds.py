"""What people can be told, who is told, and how by default.

A *kind* is what a person chooses a mode for on ``/account/notifications/``;
several events may share one (approved and rejected are "your request was
decided"). The audience of an event comes from the event itself (the
people it names) or from roles (every admin but the requester).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q

from hermes_ui.notifications.models import DIGEST, IMMEDIATE
from hermes_ui.platform import events
from hermes_ui.web.roles import ADMIN, ROLES, has_role, role_of


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
}
# Told to every active admin but the one who caused it; the rest to the people named.
TO_ADMINS = {events.DELETION_REQUESTED, events.WEBHOOK_DISABLED}


ADMIN_KINDS = {BY_EVENT[name].key for name in TO_ADMINS}


def refusal(user, kind_keys) -> str:
    """Why ``user`` may no longer be mailed notices of ``kind_keys`` ("" if they may):
    mails go to people active, and still in the role, when they are sent."""
    if not user.is_active:
        return "recipient_inactive"
    needed = ADMIN if set(kind_keys) & ADMIN_KINDS else None
    if role_of(user) is None or (needed and not has_role(user, needed)):
        return "recipient_role"
    return ""


def with_role():
    return (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(Q(is_superuser=True) | Q(groups__name__in=ROLES))
    )


def audience(event: events.Event) -> list:
    """The active users with a role who are told of ``event`` (the actor never is)."""
    users = with_role()
    if event.name in TO_ADMINS:
        users = users.filter(Q(is_superuser=True) | Q(groups__name=ADMIN))
    else:
        users = users.filter(pk__in=event.users)
    if event.actor is not None:
        users = users.exclude(pk=event.actor)
    return list(users.distinct().order_by("pk"))
