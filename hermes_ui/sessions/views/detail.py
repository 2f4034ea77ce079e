"""One session: its exact row, and its active transcript loaded progressively."""

import dataclasses

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.access.scope import seen_or_none
from hermes_ui.hermes import HermesError, client_for, transcript
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.sessions import cache as transcripts
from hermes_ui.sessions import find, reading, transcript_pages
from hermes_ui.sessions.forms import MessagesQuery, SessionPageQuery
from hermes_ui.web import links, routes
from hermes_ui.web.after_response import after
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.signals import session_viewed


@require_GET
def session_open(request: HtmxHttpRequest, endpoint) -> HttpResponse:
    """Open a session by id from a query string: the "go to id" box, and the
    ids ``.`` and ``..``, which no path segment can carry. Any other id is
    redirected to its canonical page."""
    session_id, missing = routes.query_id(request, endpoint)
    if missing is not None:
        return missing
    if session_id in links.DOT_IDS:
        return session_detail(request, endpoint, session_id)
    return redirect(links.session_url(get_endpoint(endpoint).id, session_id))


@require_GET
@vary_on_headers("HX-Request")
def session_detail(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    client = client_for(ep)
    place = SessionPageQuery(request.GET)
    where = place.cleaned_data if place.is_valid() else {}
    # The latest turns need only the last page (one more message: the link before them).
    latest = where.get("at") == "latest" and not where.get("find") and where.get("upto") is None
    size = settings.HERMES_MESSAGES_PAGE_SIZE + 1 if latest else None
    try:
        check_path_id(session_id)
        session, messages, incomplete = reading.session_and_messages(
            client, session_id, latest=size
        )
        return _page(request, ep, session_id, session, messages, incomplete, place, where)
    except IdError as exc:
        return bad_id(request, ep, str(exc))
    except HermesError as error:
        return error_page(request, error, ep)


def visible_parent(request, ep, session):
    """The session, without its parent when the person may not see that parent."""
    if seen_or_none(request.user, ep.id, session.parent_id) == session.parent_id:
        return session
    raw = {**session.raw, "parent_session_id": None} if session.raw else session.raw
    return dataclasses.replace(session, parent_id=None, raw=raw)


def _page(request, ep, session_id, session, messages, incomplete, place, where):
    session = visible_parent(request, ep, session)
    finding = None
    if where.get("find"):
        if incomplete is not None:
            raise incomplete  # find looks in the whole transcript or says why it cannot
        finding = find.find(messages["data"], where["find"], where.get("hit"))
    if finding and finding.focus_id is not None and where.get("hit") is None:
        # The box was just submitted: go to the first match, anchored.
        return redirect(transcript_pages.find_url(ep.id, session_id, finding, finding.current))
    focus_id = finding.focus_id if finding else where.get("upto")
    latest = where.get("at") == "latest" and focus_id is None
    context = transcript_pages.page_context(
        ep,
        session_id,
        session,
        messages,
        incomplete=incomplete,
        finding=finding,
        focus_id=focus_id,
        latest=latest,
    )
    context.update(focus_id=focus_id, find_form=place)  # the find box's words
    response = render(request, "sessions/detail.html", context)
    if incomplete is None and not messages.get("latest_only"):
        # A part is never kept as the transcript.
        transcripts.remember(ep, session_id, messages)
    # Listeners (the read watermark) write after the answer is sent, off the page's path.
    viewed = {"endpoint": ep, "session_id": session_id, "session": session}
    return after(
        response,
        session_viewed.send,
        session_detail,
        request=request,
        **viewed,
        message_count=len(messages["data"]),
    )


@require_GET
@vary_on_headers("HX-Request")
def session_messages(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    """The next chunk of the transcript: a fragment for htmx, a page without JS."""
    ep = get_endpoint(endpoint)
    query = MessagesQuery(request.GET)
    if not query.is_valid():
        return bad_id(request, ep, "The 'after' value must be a message id.")
    after = query.cleaned_data["after"]
    messages = cache.get(transcripts.transcript_cache_key(ep, session_id))
    if messages is None:
        try:
            check_path_id(session_id)
            messages = client_for(ep).get_messages(session_id)
        except IdError as exc:
            return bad_id(request, ep, str(exc))
        except HermesError as error:
            return error_page(request, error, ep)
        transcripts.store(ep, session_id, messages)
    rows = messages["data"]
    chunk, next_after = transcript.page_after(rows, after, settings.HERMES_MESSAGES_PAGE_SIZE)
    earlier = rows[: rows.index(chunk[0])] if chunk else []
    known_calls = transcript_pages.calls_before(rows, len(earlier))
    context = {
        "endpoint": ep,
        "session_id": session_id,
        "resolved_id": messages["session_id"],
        "transcript": transcript.build(chunk, known_calls),
        "next_url": transcript_pages.next_url(ep.id, session_id, next_after),
        "session_url": links.session_url(ep.id, session_id),
        "message_total": len(rows),
        "first_number": len(earlier) + 1,
    }
    template = "sessions/messages.html#chunk" if request.htmx else "sessions/messages.html"
    return render(request, template, context)
