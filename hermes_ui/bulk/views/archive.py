"""Bulk archive: review the selection, then archive each session (a job)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.background.jobs.respond import started
from hermes_ui.bulk import archive_job
from hermes_ui.changes import flags
from hermes_ui.changes.forms import KeyedForm
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.search import selection
from hermes_ui.web.roles import SUPPORT, role_required

TEMPLATE = "bulk/archive.html"


@require_POST
@role_required(SUPPORT)
def bulk_archive(request: HttpRequest, endpoint) -> HttpResponse:
    """From the index: the review form; then ``stage=confirm`` starts the archiving job."""
    ep = get_endpoint(endpoint)
    context = selection.review(ep, request.POST, request.user)
    context["needs"] = flags.NEEDS if flags.refused_here(ep) else ""
    if context["selection"].error or context["needs"]:
        return render(request, TEMPLATE, context, status=400)
    if request.POST.get("stage") != "confirm":
        return render(
            request, TEMPLATE, {**context, "form": KeyedForm(initial={"key": mint_key()})}
        )
    form = KeyedForm(request.POST)
    if not form.is_valid():
        return render(request, TEMPLATE, {**context, "form": form}, status=400)
    job = archive_job.start(ep, request.user, context["selection"].ids, form.cleaned_data["key"])
    return started(request, job)
