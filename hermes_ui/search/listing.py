"""What the index page shows for a valid query: its filters, transcript hits and table."""

from dataclasses import dataclass, replace
from urllib.parse import urlencode

from django.conf import settings

from hermes_ui.index import content_store
from hermes_ui.search import badges, content_search, facets, queries, visibility
from hermes_ui.search.syntax import Query

PAGE_SIZE = 50  # sessions per page of the id/title/preview table
CONTENT_PAGE_SIZE = 20  # transcripts per page of results


@dataclass(frozen=True)
class Paging:
    """The page's own URL and the filters every link from it keeps."""

    base: str
    filters: dict

    def url(self, **extra) -> str:
        params = {**self.filters, **extra}
        return self.base + "?" + urlencode(params) if params else self.base


def page_context(ep, form, fresh, user=None) -> dict:
    """What every answer of the index page shows, valid query or not: only the
    sources ``user`` may see are offered, and the index's totals only to those who
    see all of it."""
    form.offer_sources(queries.sources(ep, version=(fresh.generation, fresh.total), user=user))
    return {
        "endpoint": ep,
        "counts_hidden": visibility.partial(user, ep.id),
        "form": form,
        "fresh": fresh,
        "bulk_limit": settings.HERMES_BULK_LIMIT,
        "feature_filters": [facet.help for facet in facets.all_facets() if facet.help],
    }


def effective_query(params: dict) -> Query:
    """The box's own filters (``source:`` …) apply unless the selects say otherwise."""
    query = params["query"]
    return replace(
        query,
        source=params["source"] or query.source,
        kind=params["kind"] or query.kind,
        state=params["state"] or query.state,
    )


def active_filters(params: dict) -> dict:
    return {k: params[k] for k in ("q", "source", "kind", "state", "view") if params[k]}


def transcript_hits(ep, query: Query, paging: Paging, params: dict, fresh, user) -> dict:
    """One page of transcript matches, linked to the sessions they belong to."""
    found = content_search.search(
        ep, query, after=params["cafter"], limit=CONTENT_PAGE_SIZE, user=user
    )
    content_search.link(ep, found)
    done, total = content_store.completeness(ep, total=fresh.total, version=fresh.version)
    return {
        "found": found,
        "content_done": done,
        "content_total": total,
        "content_next_url": paging.url(cafter=found.next_after) if found.next_after else None,
    }


def title_matches(ep, query: Query, paging: Paging, params: dict, fresh, user) -> dict:
    """One page of the id/title/preview table, read from one snapshot of the index."""
    snapshot = params["snap"] if params["after"] else fresh.generation
    page = queries.search_query(
        ep,
        query,
        snapshot=snapshot,
        after=params["after"],
        limit=PAGE_SIZE,
        present_total=fresh.total,
        user=user,
    )
    badges.attach(ep, page.rows, user)
    later = {"snap": page.snapshot, "after": page.next_after}
    return {
        "page": page,
        "next_url": paging.url(**later) if page.next_after else None,
        "paging": params["after"] is not None,
    }
