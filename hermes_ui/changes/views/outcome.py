"""The outcome page of one change, and "check what happened".

A GET only reads. "Check what happened" is a POST from its button, because a
fork child it finds is then remembered; a GET of the same URL reads only.
"""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from hermes_ui.changes.outcome_page import render_outcome
from hermes_ui.platform.endpoints import get_endpoint


@require_GET
@vary_on_headers("HX-Request")
def change_outcome(request: HttpRequest, endpoint, event_id) -> HttpResponse:
    return render_outcome(request, get_endpoint(endpoint), event_id)


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def change_check(request: HttpRequest, endpoint, event_id) -> HttpResponse:
    """Read the current state and say what happened; htmx gets just the panel."""
    record = request.method == "POST"
    return render_outcome(request, get_endpoint(endpoint), event_id, check=True, record=record)
