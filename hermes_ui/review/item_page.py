"""What the review page of one item shows: the transcript window, the rubric form, the
reviews so far. Reads Hermes through ``client_for`` only."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from hermes_ui.hermes import client_for, transcript
from hermes_ui.review import items, rubrics
from hermes_ui.review.models import Item, Queue
from hermes_ui.web import links
from hermes_ui.web.roles import ADMIN, has_role


def item_url(ep_id: str, queue_id: int, item_id: int, at=None) -> str:
    url = reverse(
        "review_item", kwargs={"endpoint": ep_id, "queue_id": queue_id, "item_id": item_id}
    )
    return f"{url}?at={at}#msg-{at}" if at is not None else url


def shown_ids(item: Item, rows_in_window: list[dict], message_fields) -> list:
    """The messages of the window that get the rubric's message fields."""
    if not message_fields:
        return []
    ids = [row.get("id") for row in rows_in_window if isinstance(row.get("id"), int)]
    if item.message_id is not None:
        return [item.message_id] if item.message_id in ids else []
    return ids


def posted_ids(ep, item: Item, posted: list[int]) -> list[int]:
    """The posted message ids that are messages of the item: a form cannot label a
    message the session does not have (raises ``HermesError`` when Hermes cannot say)."""
    if item.message_id is not None:
        return [i for i in posted if i == item.message_id]
    if not posted:
        return []
    rows = client_for(ep).get_messages(item.session_id)["data"]
    present = {row.get("id") for row in rows}
    return [i for i in posted if i in present]


def read(ep, item: Item, at):
    """The session, its messages and the window to show (raises ``HermesError``)."""
    client = client_for(ep)
    session = client.get_session(item.session_id)
    messages = client.get_messages(item.session_id)
    rows = messages["data"]
    focus = at if at is not None else item.message_id
    start, chunk, after = transcript.page_around(rows, focus, settings.HERMES_MESSAGES_PAGE_SIZE)
    return session, messages, rows, start, chunk, after


def _reviews(item: Item, user) -> list:
    """Completed reviews with their labels: for a completed item, or for an admin."""
    if item.state != Item.COMPLETED and not has_role(user, ADMIN, item.endpoint):
        return []
    return list(item.reviews.filter(done=True).prefetch_related("labels"))


def context(request, ep, queue: Queue, item: Item, own, form, window) -> dict:
    session, messages, rows, start, chunk, after = window
    version = form.version
    groups = form.message_groups()
    built = transcript.build(chunk, transcript.calls_in(rows[:start]))
    holder = items.holder(item)
    editable = item.state in items.OPEN and (holder is None or holder.pk == request.user.pk)
    if not editable:
        form.freeze()
    return {
        "endpoint": ep,
        "queue": queue,
        "item": item,
        "session": session,
        "session_id": item.session_id,
        "resolved_id": messages["session_id"],
        "version": version,
        "form": form,
        "pairs": [(m, groups.get(m.id)) for m in built],
        "message_total": len(rows),
        "window_first": start + 1,
        "window_last": start + len(chunk),
        "at": chunk[0].get("id") if chunk else None,
        "earlier_at": rows[max(start - settings.HERMES_MESSAGES_PAGE_SIZE, 0)].get("id")
        if start
        else None,
        "later_at": rows[start + len(chunk)].get("id") if after is not None else None,
        "own": own,
        "editable": editable,
        "item_url": item_url(ep.id, queue.pk, item.pk),
        "holder": holder,
        "reviews": _reviews(item, request.user),
        "session_url": links.session_url(ep.id, item.session_id),
        "has_message_fields": bool(rubrics.split(version)[1]),
    }
