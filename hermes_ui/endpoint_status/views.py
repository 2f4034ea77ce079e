"""The endpoints page: every configured endpoint, probed now, with its index and checks."""

from django.shortcuts import render
from django.views.decorators.http import require_GET

from hermes_ui.endpoint_status.probes import probe_all
from hermes_ui.endpoints import all_endpoints
from hermes_ui.hermes import breaker
from hermes_ui.index import freshness
from hermes_ui.verification.models import latest_report
from hermes_ui.web.roles import SUPPORT, role_required


@require_GET
@role_required(SUPPORT)
def endpoint_list(request):
    rows = [
        {"probe": found, "fresh": freshness.of(found.endpoint),
         "report": latest_report(found.endpoint),
         "breaker": breaker.status(found.endpoint)}
        for found in probe_all(all_endpoints())
    ]  # fmt: skip
    return render(request, "endpoint_status/list.html", {"rows": rows})
