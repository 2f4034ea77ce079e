"""What happened that someone may want to hear about: features ``emit``, receivers listen.

An event carries ids and counts only, never text: a receiver looks up what it
may show. Receivers must be quick; ``emit`` never raises and logs a failing
receiver by its exception's class only (why this is not a Django ``Signal``:
``send_robust`` logs the message, which could carry what the receiver held).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.utils.module_loading import import_string

log = logging.getLogger(__name__)

# Webhook-visible events (the names other tools subscribe to).
DELETION_REQUESTED = "deletion.requested"
DELETION_APPROVED = "deletion.approved"
DELETION_REJECTED = "deletion.rejected"
DELETION_EXECUTED = "deletion.executed"
REVIEW_ITEM_COMPLETED = "review.item_completed"
REVIEW_QUEUE_COMPLETED = "review.queue_completed"
SESSION_TAGGED = "session.tagged"
ENDPOINT_DOWN = "endpoint.down"
ENDPOINT_UP = "endpoint.up"
SHARE_CREATED = "share.created"
SHARE_APPROVED = "share.approved"
SHARE_REVOKED = "share.revoked"
PUBLIC = (
    DELETION_REQUESTED,
    DELETION_APPROVED,
    DELETION_REJECTED,
    DELETION_EXECUTED,
    REVIEW_ITEM_COMPLETED,
    REVIEW_QUEUE_COMPLETED,
    SESSION_TAGGED,
    ENDPOINT_DOWN,
    ENDPOINT_UP,
    SHARE_CREATED,
    SHARE_APPROVED,
    SHARE_REVOKED,
)
# Events only people are told about (by mail).
REVIEW_MENTIONED = "review.mentioned"
REVIEW_QUEUE_ASSIGNED = "review.queue_assigned"
REVIEW_ITEMS_WAITING = "review.items_waiting"
# An outside share link awaits a second admin's approval (admins are told, by mail).
SHARE_APPROVAL_NEEDED = "share.approval_needed"
# Told to no one: open pages follow it (``live``): a queue's items changed (labelled,
# skipped, added) without an item completing.
REVIEW_QUEUE_CHANGED = "review.queue_changed"
# Sent by the API tokens feature (api_tokens/expiry.py): a token of ``users[0]`` expires
# within 7 days.
TOKEN_EXPIRING = "token.expiring"  # noqa: S105 (an event name, not a secret)
# Sent by the webhooks package: a webhook failing for a day was disabled (admins are told).
WEBHOOK_DISABLED = "webhook.disabled"
ALL = (
    *PUBLIC,
    REVIEW_MENTIONED,
    REVIEW_QUEUE_ASSIGNED,
    REVIEW_ITEMS_WAITING,
    SHARE_APPROVAL_NEEDED,
    REVIEW_QUEUE_CHANGED,
    TOKEN_EXPIRING,
    WEBHOOK_DISABLED,
)

# Who hears every event, by dotted path (the platform imports no feature).
RECEIVERS = {
    "live_notices": "hermes_ui.live.notices.record",  # the queue pages follow their changes
    "notifications": "hermes_ui.notifications.receivers.on_event",
    "webhooks": "hermes_ui.webhooks.receivers.on_event",
}


@functools.cache
def receivers() -> dict[str, Callable[[Event], None]]:
    """The table's receivers by name, imported on first use."""
    return {uid: import_string(path) for uid, path in RECEIVERS.items()}


@dataclass(frozen=True)
class Event:
    name: str
    endpoint: str = ""  # endpoint id, "" when the event is about no endpoint
    actor: int | None = None  # pk of the user who caused it (None: the dashboard itself)
    users: tuple[int, ...] = ()  # pks of the people it is about (requester, mentioned, ...)
    ids: dict = field(default_factory=dict)  # request_id, batch_id, session_id, queue_id, ...
    counts: dict = field(default_factory=dict)


def emit(
    name: str,
    *,
    endpoint: str = "",
    actor=None,
    users=(),
    ids: dict | None = None,
    counts: dict | None = None,
) -> Event:
    """Tell every receiver; never raises. ``actor`` and ``users`` are users or pks."""
    if name not in ALL:
        raise ValueError(f"unknown event {name!r}")
    event = Event(
        name=name,
        endpoint=endpoint,
        actor=_pk(actor),
        users=tuple(pk for pk in (_pk(u) for u in users) if pk is not None),
        ids=dict(ids or {}),
        counts=dict(counts or {}),
    )
    for uid, receiver in list(receivers().items()):
        try:
            receiver(event)
        except Exception as exc:
            log.warning("event %s: receiver %s failed: %s", name, uid, type(exc).__name__)
    return event


def _pk(user) -> int | None:
    if user is None:
        return None
    if isinstance(user, int):
        return user
    return getattr(user, "pk", None)
