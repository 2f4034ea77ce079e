"""Reading the index: one lineage, and search pages over a snapshot.

Search pages are keyset-paged on (last activity, row id), newest first, and
later pages carry the snapshot generation the first page was drawn from.
Rows added, changed or deleted by a sync after that snapshot are left out
of later pages and counted instead ("12 sessions changed since"), so paging
never shows a row twice and never silently skips an unchanged one, however
often the index refreshes meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Q

from hermes_ui.index import observers
from hermes_ui.index import rows as r
from hermes_ui.index.models import IndexedSession
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import facets as feature_filters
from hermes_ui.search import visibility

SOURCES_TTL = 600  # seconds; a new generation or size gets a new key anyway
MAX_LINEAGE = 5000
# A filtered first page counts its matches by listing their ids when at most this many.
COUNT_SCAN = 2000  # sessions read for one picture; beyond this the list is cut
_ROW_FIELDS = (
    *r.API_FIELDS,
    *r.FLAG_FIELDS,
    "session_id",
    "visible_in_default_list",
    "former_parent_id",
    "listed",
    "kind",
    "child_count",
    "pk",
    "order_key",
    "changed_gen",
)
# What a lineage picture needs of each row (fewer columns: a 500-node lineage
# is read on every lineage page view).
LINEAGE_FIELDS = (
    "session_id",
    "parent_session_id",
    "title",
    "source",
    "message_count",
    "started_at",
    "ended_at",
    "end_reason",
    "last_active",
    "visible_in_default_list",
    "former_parent_id",
    "digest",
    # Usage counters: the lineage page sums them over the tree (``lineage.totals``).
    *observers.COUNTERS,
)


def api_row(values: dict) -> dict:
    """An index row (``.values()``) in the API's shape, plus the index's findings."""
    row = dict(values)
    row["id"] = row.pop("session_id")
    for name in ("parent_session_id", "end_reason", "title", "former_parent_id"):
        row[name] = row.get(name) or None
    return row


def present(ep: Endpoint):
    return IndexedSession.objects.filter(**ep.scope(), vanished_at__isnull=True)


def session_row(ep: Endpoint, session_id: str, fields=_ROW_FIELDS) -> dict | None:
    found = present(ep).filter(session_id=session_id).values(*fields).first()
    return api_row(found) if found else None


@dataclass
class LineageRows:
    rows: list[dict]
    root_id: str
    truncated: bool


def lineage(ep: Endpoint, session_id: str) -> LineageRows | None:
    """Every indexed row of the lineage holding ``session_id``: root to all descendants."""
    start = session_row(ep, session_id, LINEAGE_FIELDS)
    if start is None:
        return None
    rows, chain = {start["id"]: start}, start
    while chain["parent_session_id"] and len(rows) < MAX_LINEAGE:
        parent = session_row(ep, chain["parent_session_id"], LINEAGE_FIELDS)
        if parent is None or parent["id"] in rows:
            break  # an unlisted parent, or a loop
        rows[parent["id"]] = chain = parent
    root_id = chain["id"]
    frontier, expanded = [root_id], {root_id}
    while frontier and len(rows) < MAX_LINEAGE:
        found = []
        for start_at in range(0, len(frontier), 500):
            found += (
                present(ep)
                .filter(parent_session_id__in=frontier[start_at : start_at + 500])
                .values(*LINEAGE_FIELDS)
            )
        frontier = []
        for values in found:
            row = api_row(values)
            rows.setdefault(row["id"], row)
            if row["id"] not in expanded:  # a loop is walked once
                expanded.add(row["id"])
                frontier.append(row["id"])
    return LineageRows(list(rows.values())[:MAX_LINEAGE], root_id, len(rows) >= MAX_LINEAGE)


@dataclass
class Page:
    rows: list[dict]
    total: int
    snapshot: int
    next_after: str | None
    changed_since: int


def search(
    ep: Endpoint,
    *,
    snapshot: int,
    q: str = "",
    source: str = "",
    kind: str = "",
    state: str = "",
    reasons: tuple[str, ...] = (),
    after: tuple[float, int] | None = None,
    limit: int = 50,
    present_total: int | None = None,
    facets=(),
    user=None,
    active_before: float | None = None,
) -> Page:
    """``present_total``: every present row counted already (the freshness line
    does), which is this first page's total when nothing filters it.
    ``facets``: the feature filters of the query (``search.facets``), for ``user``.
    ``reasons``: closed with one of these end reasons (``reason:``).
    ``active_before``: last active (else started) before this epoch time (retention).
    Only the rows ``user`` may see are listed and counted (``search.visibility``)."""
    facets = feature_filters.with_defaults(ep, facets)  # archived:no unless asked
    limited = visibility.limits(user, ep.id)
    unfiltered = (
        not (q or source or kind or state or reasons or facets or active_before or limited)
        and after is None
    )
    rows = feature_filters.restrict(
        visibility.visible(present(ep), user, endpoint_id=ep.id), ep, facets, user
    )
    if q:
        rows = rows.filter(
            Q(session_id__icontains=q) | Q(title__icontains=q) | Q(preview__icontains=q)
        )
    if source:
        rows = rows.filter(source=source)
    if kind:
        rows = rows.filter(kind=kind)
    if state == "open":
        rows = rows.filter(ended_at__isnull=True, end_reason="")
    elif state == "closed":
        rows = rows.filter(Q(ended_at__isnull=False) | ~Q(end_reason=""))
    if reasons:
        rows = rows.filter(end_reason__in=reasons)
    if active_before is not None:
        rows = rows.filter(order_key__lt=active_before)
    changed_since = 0
    if after is not None:
        # A later page: only the snapshot's rows, in the snapshot's order.
        changed_since = visibility.visible(
            IndexedSession.objects.filter(**ep.scope(), changed_gen__gt=snapshot),
            user,
            endpoint_id=ep.id,
        ).count()
        rows = rows.filter(changed_gen__lte=snapshot)
    matching = rows
    if after is not None:
        key, pk = after
        rows = rows.filter(Q(order_key__lt=key) | Q(order_key=key, pk__lt=pk))
    ordered = rows.order_by("-order_key", "-pk")
    counted = None
    if after is None and not unfiltered:
        ordered, counted = _first_page(ordered, limit)
    found = [api_row(values) for values in ordered.values(*_ROW_FIELDS)[: limit + 1]]
    more = len(found) > limit
    # A first page that holds every match is its own count (one scan, not two).
    if after is None and not more:
        total = len(found)
    elif counted is not None:
        total = counted
    elif unfiltered and present_total is not None:
        total = present_total
    else:
        total = matching.count()
    found = found[:limit]
    next_after = f"{found[-1]['order_key']!r}:{found[-1]['pk']}" if more and found else None
    return Page(found, total, snapshot, next_after, changed_since)


def search_query(ep: Endpoint, query, **options) -> Page:
    """``search`` for a parsed search box (``syntax.Query``): its words and its
    session and feature filters, as the index page, the API, queue rules and retention
    rules read them. ``options`` are ``search``'s own (snapshot, after, limit, user …)."""
    return search(
        ep,
        q=query.plain_text if query.terms else "",
        source=query.source,
        kind=query.kind,
        state=query.state,
        reasons=query.reasons,
        facets=query.facets,
        **options,
    )


def _first_page(ordered, limit: int):
    """A filtered first page: the ids of up to ``COUNT_SCAN`` matches, in order, read
    off the order index (no row read). The page's rows are then read by id, and when
    that was every match their number is the total: the filters' subqueries run once
    rather than for the rows and again for a COUNT. (ordered rows, total or None)"""
    ids = list(ordered.values_list("pk", flat=True)[: COUNT_SCAN + 1])
    page = ordered.model.objects.filter(pk__in=ids[: limit + 1]).order_by("-order_key", "-pk")
    return page, (len(ids) if len(ids) <= COUNT_SCAN else None)


def parse_after(text: str) -> tuple[float, int] | None:
    key, sep, pk = (text or "").partition(":")
    if not sep:
        return None
    try:
        return float(key), int(pk)
    except ValueError:
        return None


def sources(ep: Endpoint, version: tuple | None = None, user=None) -> list[str]:
    """The sources of present sessions (those ``user`` may see, when given); cached
    under ``version`` (the index's generation and size) when given, as reading them
    scans every row."""
    key = (
        f"index-sources:{ep.id}:{ep.fingerprint}:" + "-".join(map(str, version))
        if version
        else None
    )
    found = cache.get(key) if key else None
    if found is None:
        rows = present(ep).exclude(source="").values_list("source", flat=True).distinct()
        found = sorted(set(rows))
        if key:
            cache.set(key, found, SOURCES_TTL)
    return visibility.sources(user, ep.id, found)
