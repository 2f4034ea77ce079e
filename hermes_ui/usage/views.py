"""The usage page of one endpoint, the all-endpoints page (admins), and their CSV."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from hermes_ui.access.rules import access_of
from hermes_ui.platform.endpoints import Endpoint, all_endpoints, get_endpoint
from hermes_ui.search import visibility
from hermes_ui.usage import chart, csv_export, forms, report
from hermes_ui.web.roles import ADMIN, SUPPORT, has_role, role_required


@require_GET
@role_required(SUPPORT)
def usage_page(request: HttpRequest, endpoint) -> HttpResponse:
    ep = get_endpoint(endpoint)
    return _respond(request, [ep], ep)


@require_GET
@role_required(ADMIN)
def usage_all(request: HttpRequest) -> HttpResponse:
    """Every endpoint the person may see (their figures only, as on each endpoint's page)."""
    seen = set(access_of(request.user).endpoint_ids())
    return _respond(request, [ep for ep in all_endpoints() if ep.id in seen], None)


def _respond(request, endpoints: list[Endpoint], ep: Endpoint | None):
    form = forms.bound(request.GET, by="source" if ep else "endpoint")
    context = {
        "endpoint": ep,
        "form": form,
        "can_see_all": has_role(request.user, ADMIN),
        "partial": any(visibility.partial(request.user, e.id) for e in endpoints),
    }
    if not form.is_valid():
        return render(request, "usage/page.html", context, status=400)
    data = form.cleaned_data
    figures = report.build(endpoints, data["start"], data["end"], data["by"], request.user)
    group_label = dict(forms.GROUPS)[data["by"]]
    if request.GET.get("format") == "csv":
        name = f"usage-{ep.id if ep else 'all'}-{data['start']}-{data['end']}.csv"
        return csv_export.response(figures, group_label, name)
    query = request.GET.copy()
    query["format"] = "csv"
    context.update(  # type: ignore[call-overload]
        report=figures,
        chart=chart.build(figures, data["chart"]),
        group_label=group_label,
        columns=report.COLUMNS,
        rows=[(line, figures.cells(line)) for line in figures.lines],
        total=figures.cells(),
        csv_query=query.urlencode(),
    )
    return render(request, "usage/page.html", context)
