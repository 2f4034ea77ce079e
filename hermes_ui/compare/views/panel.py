"""The session page's compare panel as its own request: a fragment for htmx, a page without JS."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.compare import panel
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web import links
from hermes_ui.web.failures import bad_id
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import SUPPORT, role_required


@require_GET
@role_required(SUPPORT)
@vary_on_headers("HX-Request")
def session_panel(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    # The parent comes from the session page, which read it from Hermes; it
    # only picks which index rows are listed, all of which any role may read.
    parent_id = request.GET.get("parent") or None
    try:
        check_path_id(session_id)
        if parent_id is not None:
            check_path_id(parent_id)
    except IdError as exc:
        return bad_id(request, ep, str(exc))
    context = panel.context(ep, session_id, parent_id, request.user)
    if request.htmx:
        return render(request, "compare/_session_panel.html", context)
    context["session_url"] = links.session_url(ep.id, session_id)
    return render(request, "compare/session_panel_page.html", context)
