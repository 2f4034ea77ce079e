"""The audit trail (admins): every change, approval and deletion, filterable and paged.

Each admin reads the entries of the endpoints where they are admin (``forms.visible``).
"""

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.access.rules import access_of
from hermes_ui.audit.forms import AuditFilter, filtered, visible
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import ADMIN, role_required

PAGE_SIZE = 50


@require_GET
@vary_on_headers("HX-Request")
@role_required(ADMIN)
def audit_log(request: HtmxHttpRequest) -> HttpResponse:
    query = AuditFilter(request.GET)
    template = "changes/audit_log.html#results" if request.htmx else "changes/audit_log.html"
    query.offer(**_choices(request.user))
    context = {"query": query}
    if not query.is_valid():
        return render(request, template, context, status=400)
    page = Paginator(filtered(query.cleaned_data, request.user), PAGE_SIZE).get_page(
        query.cleaned_data["page"] or 1
    )
    params = request.GET.copy()
    params.pop("page", None)
    context.update(page=page, events=page.object_list, params=params.urlencode())  # type: ignore[call-overload]
    return render(request, template, context)


def _choices(user) -> dict:
    """Values seen in the entries this person may read, for the filter's drop-downs.

    Only endpoints they may see are offered; only an instance admin is offered
    every account (others: the names in the entries they read, and their own).
    """
    events = visible(user)

    def distinct(name):
        return set(events.order_by().values_list(name, flat=True).distinct())

    access = access_of(user)
    if access.instance_admin:
        users = set(get_user_model().objects.values_list("username", flat=True))
    else:
        users = {user.get_username()}
    endpoints = distinct("endpoint") - {""}
    if not access.instance_admin:
        endpoints &= set(access.endpoint_ids(ADMIN))
    return {
        "capabilities": sorted(distinct("capability")),
        "endpoints_seen": sorted(endpoints),
        "usernames": sorted(distinct("username") | users),
    }
