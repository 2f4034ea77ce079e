"""Bulk deletion request: review the selection, give one reason, file one request (a job)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from hermes_ui.background.jobs.respond import started
from hermes_ui.bulk import delete_job
from hermes_ui.deletion.forms import RequestForm
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.search import selection
from hermes_ui.web.roles import SUPPORT, role_required

TEMPLATE = "bulk/delete.html"


@require_POST
@role_required(SUPPORT)
def bulk_delete(request: HttpRequest, endpoint) -> HttpResponse:
    """From the index: the request form (``stage`` absent); ``stage=confirm`` starts the
    job filing it and answers with its progress page, which ends on the request's page."""
    ep = get_endpoint(endpoint)
    context = selection.review(ep, request.POST, request.user)
    chosen = context["selection"]
    if chosen.error:
        return render(request, TEMPLATE, context, status=400)
    if request.POST.get("stage") != "confirm":
        return render(request, TEMPLATE, {**context, "form": RequestForm()})
    form = RequestForm(request.POST)
    if not form.is_valid():
        return render(request, TEMPLATE, {**context, "form": form}, status=400)
    job = delete_job.start(ep, request.user, chosen.ids, form.cleaned_data["reason"])
    return started(request, job)
