"""The endpoints page: every configured endpoint, its recent probe, its index and checks.

A view reads the probes of the last ``HERMES_PROBE_CACHE_SECONDS`` (asking
only endpoints without one) and writes nothing; "Probe now" POSTs, asks every
endpoint again and records the answers, then shows the page again (a
redirect without JavaScript, the refreshed table with htmx).

Only the endpoints a person may see are listed or probed (the one rule,
``access.rules``); an endpoint without a grant does not exist for them. No page
here changes an endpoint's settings: those live in the server's settings.
"""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from hermes_ui.access.rules import access_of
from hermes_ui.background.workers import liveness
from hermes_ui.endpoint_status import probes
from hermes_ui.hermes import breaker
from hermes_ui.index import freshness
from hermes_ui.platform.endpoints import all_endpoints
from hermes_ui.verification.models import latest_report
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import SUPPORT, role_required


@require_GET
@role_required(SUPPORT)
def endpoint_list(request: HtmxHttpRequest) -> HttpResponse:
    return _page(request, probes.recent(visible_endpoints(request.user)))


@require_POST
@role_required(SUPPORT)
def endpoint_probe(request: HtmxHttpRequest) -> HttpResponse:
    found = probes.refresh(visible_endpoints(request.user))
    if request.htmx:
        return _page(request, found)
    return redirect("endpoint_list")


def visible_endpoints(user):
    """The configured endpoints this person may see: an endpoint without a grant does not
    exist for them, so it is neither listed nor probed on their behalf."""
    seen = set(access_of(user).endpoint_ids())
    return [ep for ep in all_endpoints() if ep.id in seen]


def _page(request, found: list[probes.Probe]):
    rows = [
        {
            "probe": each,
            "fresh": freshness.of(each.endpoint),
            "report": latest_report(each.endpoint),
            "breaker": breaker.status(each.endpoint),
        }
        for each in found
    ]
    context = {
        "rows": rows,
        "cache_seconds": settings.HERMES_PROBE_CACHE_SECONDS,
        "workers": liveness.workers(),
    }
    return render(request, "endpoint_status/list.html", context)
