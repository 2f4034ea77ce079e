"""Notes: a session's or a message's thread (read, add) and deleting one note.

Without JavaScript a form posts and the answer redirects to the session page
at the thread; with htmx the thread swaps in place (``review/thread.html#thread``).
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from hermes_ui.access import rows as seen
from hermes_ui.hermes import HermesError
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import mentions, note_marks, notes
from hermes_ui.review.models import Note
from hermes_ui.review.note_forms import MessageQuery
from hermes_ui.review.thread_page import note_target, page_context
from hermes_ui.web.errors import whole_page
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import SUPPORT, role_required

TEMPLATE = "review/thread.html"
_BAD_MESSAGE = "The 'message' value must be a message id."


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@role_required(SUPPORT)
def session_notes(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    """GET: the thread (``?message=`` for a message's); POST: add a note to it."""
    ep = get_endpoint(endpoint)
    query = MessageQuery(request.POST if request.method == "POST" else request.GET)
    try:
        check_path_id(session_id)
    except IdError as exc:
        return whole_page(request, bad_id(request, ep, str(exc)))
    if not query.is_valid():
        return whole_page(request, bad_id(request, ep, _BAD_MESSAGE))
    message_id = query.cleaned_data["message"]
    if request.method == "POST":
        return _add(request, ep, session_id, message_id)
    if request.htmx:
        thread = note_marks.thread(request, ep, session_id, message_id)
        return render(request, TEMPLATE + "#thread", {"endpoint": ep, "thread": thread})
    try:
        context = page_context(request, ep, session_id, message_id)
    except HermesError as error:
        return error_page(request, error, ep)
    return render(request, TEMPLATE, context)


def _add(request, ep, session_id: str, message_id: int | None):
    form = note_marks.note_form(request.POST, message_id)
    try:
        target = note_target(ep, session_id, message_id)
    except HermesError as error:
        return error_page(request, error, ep)
    if target is None:
        form.add_error(None, "This session has no such message (its transcript may have changed).")
    elif form.is_valid():  # a mention of someone who may not see the session is refused
        named = mentions.users(form.cleaned_data["body"], author=request.user)
        refused = mentions.unseeing(ep.id, target, named)
        if refused:
            form.add_error("body", notes.refusal(refused))
    if not form.is_valid():
        return _thread(request, ep, target or session_id, message_id, form=form, status=400)
    notes.add(ep, request.user, target, message_id, form.cleaned_data["body"])  # type: ignore[arg-type]
    if request.htmx:
        return _thread(request, ep, target, message_id)
    messages.success(request, "Your note was added.")
    return redirect(note_marks.back_url(ep, target, message_id))  # type: ignore[arg-type]


@require_POST
@vary_on_headers("HX-Request")
@role_required(SUPPORT)
def note_delete(request: HtmxHttpRequest, endpoint, pk) -> HttpResponse:
    """Authors delete their own notes, admins any; everyone else gets a 403."""
    ep = get_endpoint(endpoint)
    note = get_object_or_404(Note, pk=pk, **ep.scope())
    if not seen.may_see(request.user, ep.id, note.session_id):
        raise Http404("No Note matches the given query.")  # as for a missing one
    if not notes.may_delete(request.user, note):
        raise PermissionDenied("Only its author or an admin can delete a note.")
    notes.delete(ep, request.user, note)
    if request.htmx:
        return _thread(request, ep, note.session_id, note.message_id)
    messages.success(request, "The note was deleted.")
    return redirect(note_marks.back_url(ep, note.session_id, note.message_id))


def _thread(request, ep, session_id, message_id, *, form=None, status=200):
    """The thread again: a fragment for htmx (with the message's new count), else the page."""
    thread = note_marks.thread(request, ep, session_id, message_id, form=form)
    context = {"endpoint": ep, "thread": thread, "swap_count": bool(request.htmx)}
    if request.htmx:
        return render(request, TEMPLATE + "#thread", context, status=status)
    return render(request, TEMPLATE, {**context, "message": None}, status=status)
