"""``GET /e/<endpoint>/live/``: an endpoint's changes as server-sent events.

The one rule (``hermes_ui.access``): a watched session (``?session=``) the
person may not see answers 404 as a missing one; a source-limited person's
frames carry only the sessions of their sources; a grant taken away ends
the stream at the next check (``listeners``).
"""

from __future__ import annotations

import json

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponseBadRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_GET

from hermes_ui.access import scope
from hermes_ui.access.rules import Access
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.index.models import IndexedSession
from hermes_ui.live import channel, fanout, listeners
from hermes_ui.platform.db_steps import released
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web.roles import SUPPORT, role_required

KEEPALIVE_SECONDS = 15.0
RETRY_MS = 3000
POLL_SECONDS = 30
MAX_CURSOR_DIGITS = 18
MAX_SESSION_ID = 300


def frame(event: str, data: dict, event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _cursor(request) -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.GET.get("after") or ""
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= MAX_CURSOR_DIGITS):
        raise ValueError(
            f"The stream cursor (Last-Event-ID or ?after=) must be an event number: "
            f"up to {MAX_CURSOR_DIGITS} ASCII digits."
        )
    return int(raw)


def _session(request) -> str:
    session_id = request.GET.get("session", "")
    if session_id:
        check_path_id(session_id)
        if len(session_id) > MAX_SESSION_ID:
            raise IdError(f"A session id is at most {MAX_SESSION_ID} characters.")
    return session_id


@require_GET
@role_required(SUPPORT)
async def live_stream(request: HttpRequest, endpoint) -> HttpResponseBase:
    ep = get_endpoint(endpoint)
    try:
        after, session_id = _cursor(request), _session(request)
    except (ValueError, IdError) as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    if session_id:  # the door of the session page: 404 for one this person may not see
        await _db(scope.check)(request, ep.id, session_id)
    who = await listeners.listener(request)
    if fanout.open_streams() >= settings.HERMES_UI_LIVE_MAX_STREAMS:
        body = _poll_once(ep.id, after, who.access)
    else:
        if session_id and not await _db(_exists)(ep, session_id):
            session_id = ""  # no watched slot for a session nobody can open
        body = _follow(ep.id, session_id, after, who)
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies must not buffer the stream
    return response


def _db(fn):
    return sync_to_async(released(fn), thread_sensitive=False)


def _exists(ep, session_id: str) -> bool:
    """In the index, or (a session made since the last sync) in Hermes."""
    indexed = IndexedSession.objects.filter(
        **ep.scope(), session_id=session_id, vanished_at__isnull=True
    )
    if indexed.exists():
        return True
    try:
        client_for(ep).get_session(session_id)
    except HermesError:
        return False
    return True


def ending(reason: str) -> str:
    """The last frames of a stream ``listeners`` ended: one of too many polls instead."""
    if reason == "replaced":
        return f"retry: {POLL_SECONDS * 1000}\n\n" + frame(
            "poll", {"seconds": POLL_SECONDS, "reason": reason}
        )
    return frame("end", {"reason": reason})


def seen_changes(endpoint_id: str, access: Access, payload: dict) -> dict:
    """``payload`` with only the sessions ``access`` may see (one query, and only for a
    source-limited person: everyone else sees every session of the endpoint)."""
    if not access.source_limited(endpoint_id) or not payload.get("changes"):
        return payload
    ids = [session_id for session_id, _kinds in payload["changes"]]
    sources = dict(
        IndexedSession.objects.filter(endpoint=endpoint_id, session_id__in=ids).values_list(
            "session_id", "source"
        )
    )
    kept = [
        [session_id, found]
        for session_id, found in payload["changes"]
        if session_id in sources and access.sees(endpoint_id, sources[session_id])
    ]
    return {**payload, "changes": kept}


def _seen_since(endpoint_id: str, after: int, access: Access) -> dict:
    return seen_changes(endpoint_id, access, channel.since(endpoint_id, after))


async def _since(endpoint_id: str, after: int | None, access: Access) -> tuple[str, int]:
    """The ``since`` frame for a cursor ("" when none was given), and the id it reaches."""
    if after is None:
        return "", 0
    summary = await _db(_seen_since)(endpoint_id, after, access)
    return frame("since", summary, summary["id"]), summary["id"]


async def _poll_once(endpoint_id: str, after: int | None, access: Access):
    yield f"retry: {POLL_SECONDS * 1000}\n\n"
    text, _reached = await _since(endpoint_id, after, access)
    if not text:
        last = await _db(channel.last_id)()
        text = frame("since", {"id": last, "changes": [], "more": 0, "reset": False}, last)
    yield text
    yield frame("poll", {"seconds": POLL_SECONDS})


async def _follow(endpoint_id: str, session_id: str, after: int | None, who):
    feed, queue = await fanout.join(endpoint_id, session_id)
    # What the queue will carry starts after the feed's id at joining; read it
    # now, before any await lets the feed take a newer event into the queue.
    joined = feed.last_id
    listeners.hold(who, queue)
    try:
        yield f"retry: {RETRY_MS}\n\n"
        # Subscribed first, then the summary: nothing falls between the two.
        text, reached = await _since(endpoint_id, after, who.access)
        if text:
            yield text
        else:
            reached = joined
        if feed.paused:
            yield frame("status", {"paused": True, "reason": feed.paused})
        async for item in listeners.items(queue, who, KEEPALIVE_SECONDS):
            if item is None:
                yield ": keepalive\n\n"
            elif isinstance(item, listeners.Ended):
                yield ending(item.reason)
            elif item[0] == "changes":
                if item[1]["id"] > reached:  # else already in the summary
                    shown = item[1]
                    if who.access.source_limited(endpoint_id):
                        shown = await _db(seen_changes)(endpoint_id, who.access, shown)
                        if not shown["changes"] and not shown["more"]:
                            continue  # nothing of theirs: the frame is not sent at all
                    yield frame("changes", shown, shown["id"])
            else:
                yield frame(*item)
    finally:
        listeners.let_go(who, queue)
        feed.unsubscribe(queue, session_id)
