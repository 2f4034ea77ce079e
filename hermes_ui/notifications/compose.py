"""The words of a mail: stable subjects, and per notice the event, ids, a masked title
and a link. Never transcript text, note text or labels' values: a notice holds none,
and the one thing read here, a session's title from the index, goes through the
export redactor."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from hermes_ui.index.models import IndexedSession
from hermes_ui.notifications import kinds
from hermes_ui.notifications.models import Notice
from hermes_ui.platform.redaction import Redactor
from hermes_ui.web.links import session_url

PREFIX = "[Hermes UI]"
TITLE_MAX = 120


def absolute(path: str) -> str:
    return settings.HERMES_UI_BASE_URL + path  # type: ignore[operator]


def preferences_url() -> str:
    return absolute(reverse("notification_preferences"))


def _ref(notice: Notice) -> str:
    ids = notice.ids
    if "batch_id" in ids:
        return f"bulk deletion #{ids['batch_id']}"
    return f"deletion request #{ids.get('request_id')}"


def subject(notice: Notice) -> str:
    """One notice's subject: fixed words and ids, so mail filters can rely on them."""
    kind, ids, counts = notice.kind, notice.ids, notice.counts
    if kind == kinds.APPROVAL_NEEDED.key:
        text = f"{_ref(notice).capitalize()} awaits your approval"
    elif kind == kinds.REQUEST_DECIDED.key:
        verdict = "approved" if notice.event.endswith("approved") else "rejected"
        text = f"Your {_ref(notice)} was {verdict}"
    elif kind == kinds.REQUEST_EXECUTED.key:
        text = f"Your {_ref(notice)} was executed"
        if counts.get("incomplete"):
            text += " (incomplete)"
    elif kind == kinds.MENTIONED.key:
        text = "You were mentioned in a note"
    elif kind == kinds.QUEUE_ASSIGNED.key:
        text = f"You were assigned to review queue #{ids.get('queue_id')}"
    elif kind == kinds.QUEUE_WAITING.key:
        text = f"Review queue #{ids.get('queue_id')} has items waiting over a day"
    elif kind == kinds.SHARE_APPROVAL_NEEDED.key:
        text = f"Outside share link #{ids.get('share_id')} awaits your approval"
    elif kind == kinds.TOKEN_EXPIRING.key:
        text = "Your API token expires in 7 days"
    else:
        text = f"Webhook #{ids.get('webhook_id')} was disabled"
    return f"{PREFIX} {text}"


def digest_subject() -> str:
    return f"{PREFIX} Daily digest"


def _title(notice: Notice) -> str:
    if not notice.session_id:
        return ""
    title = (
        IndexedSession.objects.filter(
            endpoint=notice.endpoint, endpoint_fp=notice.endpoint_fp, session_id=notice.session_id
        )
        .values_list("title", flat=True)
        .first()
    )
    if not title:
        return ""
    masked = Redactor(enabled=True).text(title)
    return masked if len(masked) <= TITLE_MAX else masked[: TITLE_MAX - 1] + "…"


def link(notice: Notice) -> str:
    ids = notice.ids
    if "batch_id" in ids:
        return absolute(reverse("deletion_batch", kwargs={"pk": ids["batch_id"]}))
    if "request_id" in ids:
        return absolute(reverse("deletion_detail", kwargs={"pk": ids["request_id"]}))
    if notice.kind == kinds.MENTIONED.key and notice.session_id:
        return absolute(session_url(notice.endpoint, notice.session_id))
    if "queue_id" in ids and notice.endpoint:
        return absolute(
            reverse(
                "review_queue", kwargs={"endpoint": notice.endpoint, "queue_id": ids["queue_id"]}
            )
        )
    if "share_id" in ids:
        return absolute(reverse("share_list"))
    if "webhook_id" in ids:
        return absolute(reverse("webhook_detail", kwargs={"pk": ids["webhook_id"]}))
    return absolute(reverse("notification_preferences"))


def block(notice: Notice) -> list[str]:
    """The lines one notice adds to a mail."""
    lines = [subject(notice)[len(PREFIX) + 1 :], f"  Event: {notice.event}"]
    lines.append(f"  When: {notice.created_at:%Y-%m-%d %H:%M} UTC")
    if notice.endpoint:
        lines.append(f"  Endpoint: {notice.endpoint}")
    if notice.session_id:
        title = _title(notice)
        lines.append(f"  Session: {notice.session_id}" + (f" ({title})" if title else ""))
    for key, value in sorted(notice.counts.items()):
        lines.append(f"  {key.replace('_', ' ').capitalize()}: {value}")
    lines.append(f"  Open: {link(notice)}")
    return lines


def body(notices: list[Notice], *, digest: bool) -> str:
    head = (
        f"What happened in the dashboard since your last digest ({len(notices)} events):"
        if digest
        else "Something in the dashboard is waiting for you:"
    )
    parts = [head, ""]
    for notice in notices:
        parts.extend(block(notice))
        parts.append("")
    parts.append(f"Choose what you are sent, and how often: {preferences_url()}")
    return "\n".join(parts) + "\n"
