"""The outcome page of one change, and "check what happened" (reads only)."""

from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.changes.outcome_page import render_outcome
from hermes_ui.endpoints import get_endpoint


@require_GET
@vary_on_headers("HX-Request")
def change_outcome(request, endpoint, event_id):
    return render_outcome(request, get_endpoint(endpoint), event_id)


@require_GET
@vary_on_headers("HX-Request")
def change_check(request, endpoint, event_id):
    """Read the current state and say what happened; htmx gets just the panel."""
    return render_outcome(request, get_endpoint(endpoint), event_id, check=True)
