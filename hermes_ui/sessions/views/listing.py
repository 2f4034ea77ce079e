"""The Sessions page: the index's list with search, or one page of Hermes' own list."""

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.access.rules import access_of
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.index import freshness
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.search.views import SEARCH_PARAMETERS, search_page
from hermes_ui.sessions import list_rows
from hermes_ui.sessions.forms import ListQuery
from hermes_ui.web.failures import error_context, retry_after
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import ADMIN, require_role


@require_GET
@vary_on_headers("HX-Request")
def session_list(request: HtmxHttpRequest, endpoint) -> HttpResponse:
    """Hermes' list when its paging asks for it or the index is not built; else the index's.

    A person who sees only some sources of the endpoint always gets the index's
    list: Hermes' own cannot be filtered by source, and paging through it with
    rows taken out would show gaps. Before the first index ends they see the
    rows indexed so far, and the freshness line says the rest are coming.
    """
    ep = get_endpoint(endpoint)
    asked, fresh = set(request.GET), freshness.of(ep)
    if access_of(request.user).source_limited(ep.id):
        return search_page(request, ep, fresh)
    building = None if fresh.indexed_at else fresh
    if asked & HERMES_LIST_PARAMETERS:
        return hermes_list(request, ep, building)
    if fresh.indexed_at or asked & SEARCH_PARAMETERS:
        return search_page(request, ep, fresh)
    return hermes_list(request, ep, building)


# The query string's names only Hermes' own list knows (its filter form sends offset=0).
HERMES_LIST_PARAMETERS = frozenset({"offset", "limit", "children"})


def hermes_list(request, ep, building=None):
    """One page of Hermes' own list; ``building``: the index's freshness, while it is not built."""
    query = ListQuery(request.GET)
    template = "sessions/list.html#results" if request.htmx else "sessions/list.html"
    query.offer_sources(list_rows.sources(ep.id))
    context = {"endpoint": ep, "query": query, "fresh": building}
    if not query.is_valid():
        return render(request, template, context, status=400)
    params = query.cleaned_data
    offset = params["offset"] or 0
    limit = params["limit"] or settings.HERMES_LIST_PAGE_SIZE
    children = bool(params["children"])
    if children:
        require_role(request.user, ADMIN)
    try:
        rows, returned = list_rows.fetch(
            client_for(ep),
            limit=limit,
            offset=offset,
            source=params["source"] or None,
            children=children,
        )
    except HermesError as error:
        context.update(error_context(error, ep))
        return retry_after(
            render(request, template, context, status=context["error_status"]),
            error,
        )
    list_rows.remember_sources(ep.id, rows)
    query.offer_sources(list_rows.sources(ep.id))  # with any this page showed first
    context.update(
        list_rows.page_context(ep.id, rows, params, offset=offset, limit=limit, returned=returned)
    )
    return render(request, template, context)
