"""What a session's page and its transcript chunks show: windows, find, links."""

from django.conf import settings

from hermes_ui.hermes import transcript
from hermes_ui.sessions import live_tip
from hermes_ui.web import links


def page_context(ep, session_id: str, session, messages: dict, *, incomplete, **where) -> dict:
    """What the session page shows: the row, the transcript's window (``transcript_context``
    with ``where``), the live tip, and why the transcript is incomplete, if it is."""
    context = {
        "endpoint": ep,
        "session": session,
        "session_id": session_id,
        "parent_url": links.session_url(ep.id, session.parent_id) if session.parent_id else None,
    }
    total = getattr(session, "message_count", None)
    context.update(transcript_context(ep, session_id, messages, **where, total=total))
    context.update(live_tip.context(ep, session, context["resolved_id"]))
    context["incomplete"] = incomplete.message if incomplete else ""
    return context


def transcript_context(
    ep, session_id: str, messages: dict, *, finding, focus_id, latest=False, total=None
) -> dict:
    """The session page's transcript around ``focus_id`` (a find match, or the ``upto``
    message), or, with ``latest``, its last window: the latest turns, loaded directly."""
    rows = messages["data"]
    size = settings.HERMES_MESSAGES_PAGE_SIZE
    if messages.get("latest_only"):
        return _latest_window(ep, session_id, messages, total)
    if latest and rows:
        start = max(0, len(rows) - size)
        chunk, next_after = rows[start:], None
    else:
        start, chunk, next_after = transcript.page_around(rows, focus_id, size)
    resolved_id = messages["session_id"]
    start_url = links.session_url(ep.id, session_id) + "#transcript-h"
    return {
        "long": len(rows) > size,
        "latest": bool(latest and rows),
        "window_size": len(chunk),
        "start_url": start_url,
        "latest_url": latest_url(ep.id, session_id, rows),
        "resolved_id": resolved_id,
        "resolved_differs": resolved_id != session_id,
        "tip_url": links.session_url(ep.id, resolved_id),
        "message_total": len(rows),
        "transcript": transcript.build(chunk, calls_before(rows, start)),
        "next_url": next_url(ep.id, session_id, next_after),
        "window_first": start + 1,
        "window_last": start + len(chunk),
        # The chunk before this one, when the page opened further down.
        "earlier_url": (
            links.session_url(ep.id, session_id, upto=rows[start - 1].get("id"))
            + f"#msg-{rows[start - 1].get('id')}"
        )
        if start
        else None,
        "find": find_context(ep.id, session_id, finding),
        "incomplete": "",
        # Newer servers include the rows of compression ancestors: they are those
        # sessions' own, so they are named here, not shown a second time.
        "ancestors": [
            (aid, links.session_url(ep.id, aid))
            for aid in sorted({row["session_id"] for row in messages.get("ancestor_rows", ())})
        ],
    }


def _latest_window(ep, session_id: str, messages: dict, total: int | None) -> dict:
    """The latest turns from the last page alone (a paging server): the messages
    before them are not read, so ``total`` (the row's count) numbers the window."""
    rows, size = messages["data"], settings.HERMES_MESSAGES_PAGE_SIZE
    chunk, before = rows[-size:], rows[:-size]
    resolved_id = messages["session_id"]
    if total is None or total < len(chunk) or resolved_id != session_id:
        total = None  # the row counts another session's messages: no numbers then
    first = total - len(chunk) + 1 if total else 1
    earlier = before[-1].get("id") if before else None
    return {
        "long": bool(before),
        "latest": bool(chunk),
        "window_size": len(chunk),
        "start_url": links.session_url(ep.id, session_id) + "#transcript-h",
        "latest_url": latest_url(ep.id, session_id, rows),
        "resolved_id": resolved_id,
        "resolved_differs": resolved_id != session_id,
        "tip_url": links.session_url(ep.id, resolved_id),
        "message_total": total,  # None: unknown, the template says "latest N" only
        "transcript": transcript.build(chunk),
        "next_url": None,
        "window_first": first,
        "window_last": first + len(chunk) - 1,
        "earlier_url": (
            links.session_url(ep.id, session_id, upto=earlier) + f"#msg-{earlier}"
            if before
            else None
        ),
        "find": None,
        "incomplete": "",
        "ancestors": [],
    }


def calls_before(rows: list, start: int) -> dict:
    """Tool calls made before a chunk, so its results name the call they answer
    (only the earlier rows' calls are read: the transcript is built once, for the chunk)."""
    return transcript.calls_in(rows[:start])


def latest_url(endpoint_id: str, session_id: str, rows: list) -> str:
    """The page at its latest turns, scrolled to the last message."""
    url = links.session_url(endpoint_id, session_id, at="latest")
    return f"{url}#msg-{rows[-1].get('id')}" if rows else url


def find_url(endpoint_id: str, session_id: str, finding, position: int) -> str:
    message_id = finding.matches[position - 1]
    url = links.session_url(endpoint_id, session_id, find=finding.text, hit=position)
    return f"{url}#msg-{message_id}"


def find_context(endpoint_id: str, session_id: str, finding) -> dict | None:
    if finding is None:
        return None

    def url(position):
        return find_url(endpoint_id, session_id, finding, position) if position else None

    return {
        "text": finding.text,
        "count": finding.count,
        "current": finding.current,
        "previous_url": url(finding.previous),
        "next_url": url(finding.next),
        "listed": [(n, mid, url(n)) for n, mid in finding.listed],
    }


def next_url(endpoint_id: str, session_id: str, after) -> str | None:
    if after is None:
        return None
    return links.session_url(endpoint_id, session_id, "session_messages", after=after)
