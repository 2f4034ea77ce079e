"""The lineage graph page, and its lazy panel on the session page."""

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.compare import verdicts
from hermes_ui.hermes import HermesError
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.index import freshness
from hermes_ui.lineage import picture
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web import links
from hermes_ui.web.failures import bad_id, error_context, error_page
from hermes_ui.web.htmx import HtmxHttpRequest

MAX_EXPANDED = 50


@require_GET
@vary_on_headers("HX-Request")
def lineage_page(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    expanded = frozenset(request.GET.getlist("expand")[:MAX_EXPANDED])
    as_list = request.GET.get("as") == "list"
    context, failure = _picture_context(
        request, ep, session_id, expanded, picture.PAGE_BUDGET, draw=not as_list
    )
    if failure is not None:
        return failure
    template = "lineage/page.html#graph" if request.htmx else "lineage/page.html"
    return render(request, template, context)


@require_GET
def lineage_panel(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    """The session page's panel: fetched by htmx once the panel is in view."""
    ep = get_endpoint(endpoint)
    context, failure = _picture_context(
        request, ep, session_id, frozenset(), picture.PANEL_BUDGET, panel=True
    )
    if failure is not None:
        return failure
    return render(request, "lineage/_panel_body.html", context)


def _picture_context(request, ep, session_id, expanded, budget, *, draw=True, panel=False):
    try:
        check_path_id(session_id)
        shown = picture.for_session(
            ep,
            session_id,
            expanded=expanded,
            budget=budget,
            draw=draw,
            preferred=verdicts.preferred_ids(ep),
            user=request.user,
        )
    except IdError as exc:
        return None, bad_id(request, ep, str(exc))
    except HermesError as error:
        if panel and request.htmx:
            # The panel is one region of a page that did load: it shows the
            # failure in place, with the status of the failure.
            context = error_context(error, ep)
            return None, render(
                request, "lineage/_panel_error.html", context, status=context["error_status"]
            )
        return None, error_page(request, error, ep)
    return {
        "endpoint": ep,
        "session_id": session_id,
        "pic": shown,
        # Our own Graphviz output, checked element by element before caching
        # (render.checked_svg); every label inside it was escaped for DOT.
        "svg": mark_safe(shown.svg) if shown.svg else None,  # noqa: S308
        "fresh": freshness.of(ep),
        "session_url": links.session_url(ep.id, session_id),
        "tip_url": None if shown.tip_hidden else links.session_url(ep.id, shown.tip_id),
        "page_url": picture.lineage_url(ep.id, session_id),
        "list_url": picture.lineage_url(ep.id, session_id, expanded, view="list"),
        "expanded": sorted(expanded),
        "as_list": not draw,
    }, None
