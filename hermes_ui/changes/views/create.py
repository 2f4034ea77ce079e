"""Create a session (reviewers and admins): optional id, title, model and system prompt."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply, perform
from hermes_ui.changes.forms import CreateForm
from hermes_ui.changes.outcome_page import respond
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web import links
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import REVIEWER, role_required

TEMPLATE = "changes/create.html"
# Which field a provider verdict belongs to.
FIELD_FOR = {
    "session_exists": "session_id",
    "invalid_session_id": "session_id",
    "invalid_title": "title",
    "invalid_system_prompt": "system_prompt",
}


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@role_required(REVIEWER)
def session_create(request: HtmxHttpRequest, endpoint) -> HttpResponse:
    ep = get_endpoint(endpoint)
    if request.method == "GET":
        return render(
            request, TEMPLATE, {"endpoint": ep, "form": CreateForm(initial={"key": mint_key()})}
        )
    form = CreateForm(request.POST)
    if not form.is_valid():
        return _again(request, ep, form, status=400)
    applied = perform.create(ep, request.user, form.cleaned_data)
    if applied.outcome in {Outcome.REJECTED, Outcome.REFUSED}:
        code = applied.result.error_code
        form.add_error(FIELD_FOR.get(code), applied.provider_message or applied.result.message)
        return _again(request, ep, form, applied=applied, status=apply.status_for(applied))
    return respond(request, ep, applied)


def _again(request, ep, form, *, applied=None, status):
    """The form with its errors and a fresh key.

    With htmx only the feedback and the key are swapped, so what was typed
    stays in the browser. Without JavaScript the page is rendered again,
    but the system prompt is never sent back in an error response.
    """
    conflict = applied.conflict_id if applied else None
    existing = (
        form.data.get("session_id", "").strip()
        if applied and (applied.result.error_code == "session_exists")
        else ""
    )
    context = {
        "endpoint": ep,
        "form": form,
        "new_key": mint_key(),
        "applied": applied,
        "prompt_withheld": bool(form.data.get("system_prompt", "").strip()),
        "conflict_url": links.session_url(ep.id, conflict) if conflict else "",
        "existing_url": links.session_url(ep.id, existing) if existing else "",
    }
    template = f"{TEMPLATE}#feedback" if request.htmx else TEMPLATE
    return render(request, template, context, status=status)
