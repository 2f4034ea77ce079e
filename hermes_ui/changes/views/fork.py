"""Fork a session (reviewers and admins): a child holding a copy of its active messages."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.changes import perform
from hermes_ui.changes.forms import ForkForm
from hermes_ui.changes.outcome_page import respond
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web import links
from hermes_ui.web.failures import error_page
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import REVIEWER, role_required


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@role_required(REVIEWER)
def session_fork(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    form = ForkForm(request.POST) if request.method == "POST" else None
    if form is not None and form.is_valid():
        return _fork(request, ep, session_id, form.cleaned_data)
    client = client_for(ep)
    try:
        parent = client.get_session(session_id)
        messages = client.get_messages(session_id)
    except HermesError as error:
        return error_page(request, error, ep)
    key = mint_key()
    if form is not None:
        # Typed values stay; the key is fresh because this is a new rendering.
        data = request.POST.copy()
        data["key"] = key
        form = ForkForm(data)
        form.is_valid()
    context = {
        "endpoint": ep,
        "session": parent,
        "session_id": session_id,
        "form": form or ForkForm(initial={"key": key}),
        # What fork will copy: the row's own messages, which /messages shows
        # only when it does not resolve to another session.
        "active_count": len(messages["data"])
        if messages["session_id"] == session_id
        else parent.message_count,
        "resolved_id": messages["session_id"],
        "tip_url": links.session_url(ep.id, messages["session_id"]),
    }
    template = "changes/fork.html#form" if form and request.htmx else "changes/fork.html"
    return render(request, template, context, status=400 if form else 200)


def _fork(request, ep, session_id, data):
    applied = perform.fork(ep, request.user, session_id, data)
    # After any fork error the outcome page reads the parent and the intended child.
    return respond(request, ep, applied)
