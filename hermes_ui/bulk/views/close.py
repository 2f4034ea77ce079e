"""Bulk close: review the selection and pick one reason, then close each session (a job)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.background.jobs.respond import started
from hermes_ui.bulk import close_job
from hermes_ui.changes.forms import CloseForm
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.search import selection
from hermes_ui.web.roles import SUPPORT, role_required

TEMPLATE = "bulk/close.html"


@require_POST
@role_required(SUPPORT)
def bulk_close(request: HttpRequest, endpoint) -> HttpResponse:
    """From the index: the review form (``stage`` absent); then ``stage=confirm`` starts
    the job closing them and answers with its progress page."""
    ep = get_endpoint(endpoint)
    context = selection.review(ep, request.POST, request.user)
    chosen = context["selection"]
    if chosen.error:
        return render(request, TEMPLATE, context, status=400)
    if request.POST.get("stage") != "confirm":
        form = CloseForm(initial={"key": mint_key(), "reason": "client_closed"})
        return render(request, TEMPLATE, {**context, "form": form})
    form = CloseForm(request.POST)
    if not form.is_valid():
        return render(request, TEMPLATE, {**context, "form": form}, status=400)
    data = form.cleaned_data
    job = close_job.start(ep, request.user, chosen.ids, data["end_reason"], data["key"])
    return started(request, job)
