"""Add a tag to, or remove one from, one session (the session page's tags region)."""

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from hermes_ui.hermes import HermesError
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.tags import region, tagging
from hermes_ui.tags.forms import SessionTagForm
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.links import session_url
from hermes_ui.web.roles import REVIEWER, role_required


@require_POST
@role_required(REVIEWER)
def session_tags(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    """Without JavaScript the answer is the session page again; with htmx, the region."""
    ep = get_endpoint(endpoint)
    try:
        check_path_id(session_id)
        region.ensure_exists(ep, session_id)
    except IdError as exc:
        return bad_id(request, ep, str(exc))
    except HermesError as exc:
        return error_page(request, exc, ep)
    form = SessionTagForm(request.POST)
    if not form.is_valid():
        if request.htmx:
            data = region.context(request, ep, session_id, error=region.form_error(form))
            return render(request, "tags/_region.html", data, status=400)
        return bad_id(request, ep, region.form_error(form))
    data = form.cleaned_data
    try:
        tagging.change(ep, request.user, data["op"], data["tag"], [session_id])
    except tagging.AdminOnly as refusal:
        if not request.htmx:
            raise  # the 403 page, with the reason
        data = region.context(request, ep, session_id, error=str(refusal))
        return render(request, "tags/_region.html", data, status=403)
    if request.htmx:
        return render(request, "tags/_region.html", region.context(request, ep, session_id))
    return redirect(session_url(ep.id, session_id))
