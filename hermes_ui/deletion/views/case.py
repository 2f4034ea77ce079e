"""One deletion request's page."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.deletion.case_page import case_or_403, render_case


@require_GET
@vary_on_headers("HX-Request")
def deletion_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render_case(request, case_or_403(request, pk))
