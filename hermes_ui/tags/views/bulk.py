"""Add or remove one tag on a bulk selection from the index (``selection.resolve``)."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.search import selection
from hermes_ui.tags import tagging
from hermes_ui.tags.forms import BulkTagForm
from hermes_ui.tags.models import Tag
from hermes_ui.web.roles import REVIEWER, role_required

TEMPLATE = "tags/bulk.html"


@require_POST
@role_required(REVIEWER)
def bulk_tags(request: HttpRequest, endpoint) -> HttpResponse:
    """From the index: the confirm page (``stage`` absent), which picks the tag and
    add or remove; ``stage=confirm`` changes exactly the listed ids (idempotent)."""
    ep = get_endpoint(endpoint)
    context = selection.review(ep, request.POST, request.user, REVIEWER)
    if context["selection"].error:
        return render(request, TEMPLATE, context, status=400)
    context["no_tags"] = not Tag.objects.exists()
    if request.POST.get("stage") != "confirm":
        return render(request, TEMPLATE, {**context, "form": BulkTagForm()})
    form = BulkTagForm(request.POST)
    if not form.is_valid():
        return render(request, TEMPLATE, {**context, "form": form}, status=400)
    data = form.cleaned_data
    try:
        done = tagging.change(ep, request.user, data["op"], data["tag"], context["selection"].ids)
    except tagging.AdminOnly as refusal:
        form.add_error(None, str(refusal))
        return render(request, TEMPLATE, {**context, "form": form}, status=403)
    verb = "added to" if done.op == tagging.ADD else "removed from"
    messages.success(
        request,
        f"Tag “{done.tag.name}” {verb} {len(done.changed)} session(s); "
        f"{done.unchanged} already {'had it' if done.op == tagging.ADD else 'lacked it'}.",
    )
    return redirect("session_list", endpoint=ep.id)
