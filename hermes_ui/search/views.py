"""Search and list sessions from the dashboard's index, and refresh it."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from hermes_ui.index import freshness, refresher
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.saved_views import catalogue
from hermes_ui.search import listing, visibility
from hermes_ui.search.forms import IndexQuery
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import ADMIN, SUPPORT, require_role

# The query string's names that ask for a search of the index (``source`` is
# shared with Hermes' own list and asks for neither).
SEARCH_PARAMETERS = frozenset(IndexQuery.base_fields) - {"source"}


@require_GET
def index_moved(request: HttpRequest, endpoint) -> HttpResponse:
    """The search page's old address: the Sessions page answers the same query."""
    url = reverse("session_list", kwargs={"endpoint": get_endpoint(endpoint).id})
    query = request.META.get("QUERY_STRING", "")
    return redirect(url + "?" + query if query else url)


def search_page(request: HtmxHttpRequest, ep, fresh) -> HttpResponse:
    """The Sessions page drawn from the index: search box, filters, views and table."""
    if not request.GET and (start := catalogue.start(request, ep)):  # the user's default view
        return redirect(listing.Paging(request.path, {}).url(**start))
    form = IndexQuery(request.GET)
    template = "search/index.html#results" if request.htmx else "search/index.html"
    context = listing.page_context(ep, form, fresh, request.user)
    if not form.is_valid():
        return render(request, template, context, status=400)
    params = form.cleaned_data
    query = listing.effective_query(params)
    paging = listing.Paging(
        reverse("session_list", kwargs={"endpoint": ep.id}), listing.active_filters(params)
    )
    context.update(
        filters=paging.filters,
        first_url=paging.url(),
        query=query,
        content_on=settings.HERMES_INDEX_CONTENT,
    )
    content = query.has_text and settings.HERMES_INDEX_CONTENT
    table_only = bool(request.htmx and params["table"])
    if content and not table_only:
        context.update(listing.transcript_hits(ep, query, paging, params, fresh, request.user))
    if params["cafter"] is not None:
        return render(request, template, context)  # a later page of transcripts only
    if content and not params["table"] and params["after"] is None:
        # Transcript hits come first; the id/title/preview table loads when
        # scrolled to (or by its link without JavaScript).
        context["table_url"] = paging.url(table="on")
        return render(request, template, context)
    context.update(listing.title_matches(ep, query, paging, params, fresh, request.user))
    if table_only:
        return render(request, "search/_title_matches.html", context)
    return render(request, template, context)


@require_POST
def index_refresh(request: HtmxHttpRequest, endpoint) -> HttpResponse:
    """Start a sync off the request; the status line polls until it is done."""
    ep = get_endpoint(endpoint)
    full = request.POST.get("full") == "1"
    # A full sweep costs the provider ~100 list calls at 10,000 sessions, so
    # only admins start one by hand; the periodic sweep runs anyway.
    require_role(request.user, ADMIN if full else SUPPORT)
    refresher.sync_in_background(ep, full=True if full else None)
    if request.htmx:
        return _status(request, ep)
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        target = reverse("session_list", kwargs={"endpoint": ep.id})
    return redirect(target)


@require_GET
def index_status(request: HtmxHttpRequest, endpoint) -> HttpResponse:
    return _status(request, get_endpoint(endpoint))


def _status(request, ep):
    fresh = freshness.of(ep)
    hidden = visibility.partial(request.user, ep.id)
    asked = request.POST if request.method == "POST" else request.GET
    on_list = asked.get("list") == "1"  # Hermes' list, shown while the index is built
    context = {"endpoint": ep, "fresh": fresh, "counts_hidden": hidden, "on_list": on_list}
    response = render(request, "index/_freshness.html", context)
    if not fresh.running and request.GET.get("polling"):
        # The sync the page was waiting for is over: let its results reload.
        response["HX-Trigger"] = "index-refreshed"
        if on_list and fresh.indexed_at:
            # The first index is built: the list's banner says so and links to it.
            banner = {**context, "oob": True}
            response.write(render_to_string("sessions/list.html#index-banner", banner, request))
    return response
