"""The live session list: one page of ``sessions_list`` at a time."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.endpoints import get_endpoint
from hermes_ui.hermes import HermesError, client_for, is_closed
from hermes_ui.lineage.classify import LABELS, edge_kind
from hermes_ui.sessions.forms import ListQuery
from hermes_ui.sessions.models import SeenSource
from hermes_ui.web import links
from hermes_ui.web.failures import error_context, retry_after
from hermes_ui.web.roles import ADMIN, require_role


@require_GET
@vary_on_headers("HX-Request")
def session_list(request, endpoint):
    ep = get_endpoint(endpoint)
    query = ListQuery(request.GET)
    template = "sessions/list.html#results" if request.htmx else "sessions/list.html"
    context = {"endpoint": ep, "query": query, "sources": _sources(ep.id)}
    if not query.is_valid():
        return render(request, template, context, status=400)
    params = query.cleaned_data
    offset = params["offset"] or 0
    limit = params["limit"] or settings.HERMES_LIST_PAGE_SIZE
    children = bool(params["children"])
    if children:
        require_role(request.user, ADMIN)
    client = client_for(ep)
    try:
        page = client.list_sessions(
            limit=limit,
            offset=offset,
            source=params["source"] or None,
            include_children=children,
        )
        rows = _dedupe(page["data"])
        if children:
            _label_kinds(client, rows)
    except HermesError as error:
        context.update(error_context(error, ep))
        return retry_after(
            render(request, template, context, status=context["error_status"]), error
        )
    _remember_sources(ep.id, rows)
    context["sources"] = _sources(ep.id)
    returned = len(page["data"])
    state = {"source": params["source"], "children": children or None, "limit": params["limit"]}
    context.update(
        rows=rows,
        offset=offset,
        limit=limit,
        children=children,
        source=params["source"],
        first_number=offset + 1,
        last_number=offset + returned,
        # Advance by what was returned and stop on a short page: has_more is
        # only "the page was full", so it is a hint, never the stop signal.
        next_url=links.list_url(ep.id, offset=offset + returned, **state)
        if returned == limit
        else None,
        prev_url=links.list_url(ep.id, offset=max(0, offset - limit), **state)
        if offset > 0
        else None,
        duplicates=returned - len(rows),
    )
    return render(request, template, context)


def _dedupe(rows: list) -> list[ListRow]:
    seen, result = set(), []
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("id"), str) and row["id"] not in seen:
            seen.add(row["id"])
            result.append(ListRow(row))
    return result


@dataclass
class ListRow:
    """A list row as the template needs it; Hermes' ``_lineage_root_id`` kept by name."""

    s: dict
    kind: str = ""
    kind_label: str = ""

    @property
    def lineage_root_id(self) -> str | None:
        value = self.s.get("_lineage_root_id")
        return value if isinstance(value, str) and value != self.s.get("id") else None

    @property
    def closed(self) -> bool:
        return is_closed(self.s)


def _label_kinds(client, rows: list[ListRow]) -> None:
    """Label raw rows of the administrative list as root/branch/continuation/delegate."""
    by_id = {row.s["id"]: row.s for row in rows}
    for row in rows:
        parent_id = row.s.get("parent_session_id")
        parent = by_id.get(parent_id) if parent_id else None
        if parent_id and parent is None:
            try:
                parent = by_id[parent_id] = client.get_session(parent_id).as_row()
            except HermesError:
                parent = None
        row.kind = edge_kind(row.s, parent)
        row.kind_label = LABELS[row.kind]


def _remember_sources(endpoint_id: str, rows: list[dict]) -> None:
    seen = {r.s["source"][:200] for r in rows if isinstance(r.s.get("source"), str)}
    known = set(_sources(endpoint_id))
    SeenSource.objects.bulk_create(
        [SeenSource(endpoint=endpoint_id, source=source) for source in seen - known],
        ignore_conflicts=True,
    )


def _sources(endpoint_id: str) -> list[str]:
    return list(SeenSource.objects.filter(endpoint=endpoint_id).values_list("source", flat=True))
