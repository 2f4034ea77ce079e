"""Fork a session (reviewers and admins): a child holding a copy of its active messages."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.redact import describe_text
from hermes_ui.changes import apply, reconcile
from hermes_ui.changes.forms import ForkForm
from hermes_ui.changes.outcome_page import respond
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.index.forks import remember_fork
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


def _child_at_fork(client, child) -> dict:
    """The child as Hermes returned it, recorded so its outcome page judges this moment,
    not what the child became (a chat turn on it adds messages, which is no failure)."""
    facts = {"child_title": describe_text(child.title)}
    try:
        rows = client.get_messages(child.id)
    except HermesError:
        return facts  # the fork succeeded; its page reads the child instead
    if rows["session_id"] == child.id:
        facts.update(  # type: ignore[call-overload]
            child_message_count=len(rows["data"]),
            child_digest=reconcile.messages_digest(rows["data"]),
        )
    return facts


def _fork(request, ep, session_id, data):
    client = client_for(ep)

    def call(key, evidence):
        # What the parent looked like just before: the reconcile panel needs
        # it to tell "ended by this fork" from "was already closed".
        evidence["stage"] = "pre_read"
        parent = client.get_session(session_id)
        rows = client.get_messages(session_id)
        # Fork copies the parent's OWN rows; /messages shows them only when it
        # does not resolve elsewhere (a compression tip, an earlier fork's child).
        own = rows["session_id"] == session_id
        evidence.update(
            parent_open=not parent.closed,
            parent_end_reason=parent.end_reason,
            parent_message_count=len(rows["data"]) if own else parent.message_count,
            digest=reconcile.messages_digest(rows["data"]) if own else None,
            stage="fork",
        )
        child = client.fork_session(
            session_id, idempotency_key=key, child_id=data["child_id"], title=data["title"]
        )
        evidence.update(_child_at_fork(client, child))
        return child

    applied = apply.attempt(
        apply.FORK,
        ep,
        request.user,
        form_key=data["key"],
        inputs={"child_id": data["child_id"], "title": data["title"]},
        session_id=session_id,
        call=call,
    )
    if applied.outcome == Outcome.SUCCESS:
        remember_fork(ep, session_id, applied.evidence["child_id"], request.user)
    # After any fork error the outcome page reads the parent and the intended child.
    return respond(request, ep, applied)
