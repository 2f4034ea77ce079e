"""A turn's server-sent events for the browser: replay what was received, then follow.

Async, so an open stream holds no worker thread while other pages load;
the ORM is only reached through ``sync_to_async``, in steps that give their
connection back (``hermes_ui.platform.db_steps``).
"""

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user
from django.http import Http404, HttpRequest, HttpResponseBadRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.middleware.csrf import get_token
from django.views.decorators.http import require_GET

from hermes_ui.chat import access, frames
from hermes_ui.chat.models import Turn
from hermes_ui.platform.db_steps import released
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web.roles import SUPPORT, role_required


@require_GET
@role_required(SUPPORT)
async def turn_stream(request: HttpRequest, endpoint, turn_id) -> HttpResponseBase:
    ep = get_endpoint(endpoint)
    # One database step that gives its connection back: the stream that
    # follows runs for minutes (see hermes_ui.platform.db_steps).
    user, exists = await sync_to_async(released(_admit))(request, ep, turn_id)
    if not exists:
        raise Http404("No such chat turn on this endpoint.")
    try:
        after = last_event_id(request)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    response = StreamingHttpResponse(
        frames.stream(turn_id, after, get_token(request), viewer=user),
        content_type="text/event-stream",
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies must not buffer the stream
    return response


def _admit(request, ep, turn_id: int):
    user = get_user(request)
    turn = Turn.objects.filter(**ep.scope(), pk=turn_id).first()
    # A turn on a session this person may not see is as missing (the one rule).
    return user, turn is not None and access.may_read(turn, user)


MAX_CURSOR_DIGITS = 9


def last_event_id(request) -> int | None:
    """The browser's Last-Event-ID on an automatic reconnect (the seq it had), or ``?after=``.

    Only ASCII digits: ``str.isdigit()`` also accepts ``"²"`` and other digits
    ``int()`` refuses (that was a 500). Anything else is a ``ValueError`` the
    view answers with 400; an absent or empty cursor means "from the start".
    """
    raw = request.headers.get("Last-Event-ID") or request.GET.get("after") or ""
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= MAX_CURSOR_DIGITS):
        raise ValueError(
            f"The stream cursor (Last-Event-ID or ?after=) must be an event number: "
            f"up to {MAX_CURSOR_DIGITS} ASCII digits."
        )
    return int(raw)
