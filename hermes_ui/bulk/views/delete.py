"""Bulk deletion request: review the selection, give one reason, file one request."""

from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from hermes_ui.bulk import selection
from hermes_ui.deletion import batch as batches
from hermes_ui.deletion.forms import RequestForm
from hermes_ui.endpoints import get_endpoint
from hermes_ui.hermes import HermesError
from hermes_ui.web.failures import error_context
from hermes_ui.web.roles import SUPPORT, role_required

TEMPLATE = "bulk/delete.html"


@require_POST
@role_required(SUPPORT)
def bulk_delete(request, endpoint):
    """From the index: the request form (``stage`` absent); ``stage=confirm`` files it."""
    ep = get_endpoint(endpoint)
    context = selection.review(ep, request.POST)
    chosen = context["selection"]
    if chosen.error:
        return render(request, TEMPLATE, context, status=400)
    if request.POST.get("stage") != "confirm":
        return render(request, TEMPLATE, {**context, "form": RequestForm()})
    form = RequestForm(request.POST)
    if not form.is_valid():
        return render(request, TEMPLATE, {**context, "form": form}, status=400)
    try:
        made = batches.create(ep, chosen.ids, request.user, form.cleaned_data["reason"])
    except HermesError as error:
        failure = error_context(error, ep)
        return render(request, TEMPLATE, {**context, "form": form, **failure},
                      status=failure["error_status"])  # fmt: skip
    return redirect("deletion_batch", pk=made.pk)
