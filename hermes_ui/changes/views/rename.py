"""Rename a session and set its close reason: PATCH with ``title`` or ``end_reason`` only."""

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply, perform
from hermes_ui.changes.forms import CloseForm, RenameForm
from hermes_ui.changes.outcome_page import render_outcome
from hermes_ui.hermes import HermesError, Session, client_for
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web import links
from hermes_ui.web.failures import error_page
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import SUPPORT, role_required

FORMS = {"rename": RenameForm, "close": CloseForm}
TEMPLATE = "changes/rename.html"


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@role_required(SUPPORT)
def session_rename(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    """GET: the rename and close forms (``?part=`` gives one, inline); POST: apply one."""
    ep = get_endpoint(endpoint)
    if request.method == "POST":
        return _submit(request, ep, session_id)
    try:
        session = client_for(ep).get_session(session_id)
    except HermesError as error:
        return error_page(request, error, ep)
    part = request.GET.get("part") if request.htmx else None
    context = _context(ep, session_id, session)
    if part in FORMS:
        return render(request, f"{TEMPLATE}#{part}_form", context)
    return render(request, TEMPLATE, context)


def _submit(request, ep, session_id):
    op = request.POST.get("op")
    form = FORMS[op](request.POST) if op in FORMS else None
    if form is None or not form.is_valid():
        return _show(request, ep, session_id, op if op in FORMS else "rename", status=400)
    if op == "rename":
        fields = {"title": form.cleaned_data["title"]}
    else:
        fields = {"end_reason": form.cleaned_data["end_reason"]}
    applied = perform.patch(ep, request.user, session_id, op, form.cleaned_data["key"], fields)
    if applied.outcome == Outcome.SUCCESS:
        return _saved(request, ep, session_id, op, applied)
    status = apply.status_for(applied)
    if request.htmx or applied.outcome in {Outcome.REJECTED, Outcome.REFUSED}:
        return _show(request, ep, session_id, op, applied=applied, status=status)
    return render_outcome(request, ep, applied.result.event_id, status=status)


def _saved(request, ep, session_id, op, applied):
    evidence = applied.evidence
    if op == "close" and not evidence.get("applied"):
        text = "This session was already closed; its first close reason stays."
    elif op == "close":
        text = "The session is now closed. Nothing reopens it."
    elif evidence.get("title", {}).get("present"):
        text = "The title was saved."
    else:
        text = "The title was removed."
    if applied.replayed:
        text = "This form was already submitted. " + text
    if request.htmx and op == "rename" and applied.session is not None:
        context = {
            "saved": text,
            "session": applied.session,
            "endpoint": ep,
            "session_id": session_id,
        }
        return render(request, f"{TEMPLATE}#rename_saved", context)
    messages.success(request, text)
    url = links.session_url(ep.id, session_id)
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _show(request, ep, session_id, op, *, applied=None, status=200):
    """The form again, as typed but with a fresh key, and the verdict next to its field."""
    try:
        session = client_for(ep).get_session(session_id)
    except HermesError:
        session = Session(id=session_id)
    context = _context(ep, session_id, session)
    data = request.POST.copy()
    data["key"] = context["new_key"]
    form = FORMS.get(op, RenameForm)(data)
    form.is_valid()
    if applied is not None and applied.outcome in {Outcome.REJECTED, Outcome.REFUSED}:
        on_title = op == "rename" and applied.result.error_code == "invalid_title"
        form.add_error(
            "title" if on_title else None, applied.provider_message or applied.result.message
        )
    context.update({f"{op}_form": form, "applied": applied, "failed_op": op})
    template = f"{TEMPLATE}#{op}_form" if request.htmx else TEMPLATE
    return render(request, template, context, status=status)


def _context(ep, session_id, session) -> dict:
    """Fresh forms carry a fresh key: a rendered form is one intent."""
    key = mint_key()
    return {
        "endpoint": ep,
        "session": session,
        "session_id": session_id,
        "rename_form": RenameForm(initial={"key": key, "title": session.title or ""}),
        "close_form": CloseForm(initial={"key": key, "reason": "client_closed"}),
        "new_key": key,
        "chat_on_closed": settings.HERMES_ALLOW_CHAT_ON_CLOSED,
    }
