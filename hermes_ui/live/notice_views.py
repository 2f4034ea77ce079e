"""Event streams of dashboard notices: the deletion queue's and a review queue's.

Each stream carries only what its person may see (``hermes_ui.access``): an
admin hears of the deletion requests of the endpoints they administer, anyone
else of their own on endpoints they still see; a source-limited reviewer's
review notices name no session.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponseBadRequest, StreamingHttpResponse
from django.views.decorators.http import require_GET

from hermes_ui.access.models import ADMIN
from hermes_ui.live import fanout, listeners, notice_feed, notices
from hermes_ui.live.views import (
    KEEPALIVE_SECONDS,
    POLL_SECONDS,
    RETRY_MS,
    _cursor,
    _db,
    ending,
    frame,
)
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import queues
from hermes_ui.web.roles import REVIEWER, SUPPORT, role_required

SINCE_LIMIT = 500


@require_GET
@role_required(SUPPORT)
async def deletion_notices(request):
    try:
        after = _cursor(request)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    user = await request.auser()
    who = await listeners.listener(request)
    access, pk = who.access, user.pk

    def wants(row) -> bool:  # pure: the feed asks it on the event loop
        if access.has(ADMIN, row.endpoint, any_source=True):
            return True
        return pk in row.users and access.role_on(row.endpoint, any_source=True) is not None

    return _response(notices.DELETIONS, wants, after, who)


@require_GET
@role_required(REVIEWER)
async def review_notices(request, endpoint, queue_id):
    ep = get_endpoint(endpoint)
    try:
        after = _cursor(request)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    queue = await _db(queues.get)(ep, queue_id)  # 404 for another endpoint's queue
    pk = queue.pk

    def wants(row):
        return row.endpoint == ep.id and row.ids.get("queue_id") == pk

    who = await listeners.listener(request)
    # The page only redraws; a source-limited reviewer is not told which session changed.
    shape = _nameless if who.access.source_limited(ep.id) else notices.frame_data
    return _response(notices.REVIEW, wants, after, who, shape)


def _nameless(row) -> dict:
    data = notices.frame_data(row)
    data.pop("session_id", None)
    return data


def _response(
    topic: str, wants, after: int | None, who, shape=notices.frame_data
) -> StreamingHttpResponse:
    busy = fanout.open_streams() + notice_feed.open_streams()
    if busy >= settings.HERMES_UI_LIVE_MAX_STREAMS:
        body = _poll_once(topic, wants, after, shape)
    else:
        body = _follow(topic, wants, after, who, shape)
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _missed(topic: str, wants, after: int, shape) -> tuple[list[str], set[int]]:
    """Frames of the notices after ``after`` this stream may hear of, and the ids read."""
    texts = []
    if notices.reset(after):
        texts.append(frame("since", {"reset": True}))
    rows = notices.after(topic, after, limit=SINCE_LIMIT)
    texts.extend(frame("notice", shape(r), r.id) for r in rows if wants(r))
    return texts, {r.id for r in rows}


async def _poll_once(topic: str, wants, after: int | None, shape):
    yield f"retry: {POLL_SECONDS * 1000}\n\n"
    if after is not None:
        texts, _read = await _db(_missed)(topic, wants, after, shape)
        for text in texts:
            yield text
    yield frame("poll", {"seconds": POLL_SECONDS})


async def _follow(topic: str, wants, after: int | None, who, shape):
    feed, queue = await notice_feed.join(topic, wants)
    listeners.hold(who, queue)
    # The queue carries each notice the feed takes from now on, once; what was
    # missed is read after joining, so a notice may come both ways.
    read: set[int] = set()
    top = after or 0
    try:
        yield f"retry: {RETRY_MS}\n\n"
        if after is not None:
            texts, read = await _db(_missed)(topic, wants, after, shape)
            for text in texts:
                yield text
            top = max([top, *read])
        async for row in listeners.items(queue, who, KEEPALIVE_SECONDS):
            if row is None:
                yield ": keepalive\n\n"
            elif isinstance(row, listeners.Ended):
                yield ending(row.reason)
            elif row.id not in read:  # else already sent as missed
                # One that committed late (below an id sent) goes without an SSE id:
                # the browser's Last-Event-ID stays the highest it has.
                yield frame("notice", shape(row), row.id if row.id > top else None)
                top = max(top, row.id)
    finally:
        listeners.let_go(who, queue)
        notice_feed.leave(feed, queue)
