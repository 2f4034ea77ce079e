"""The live session list's rows and paging: what ``session_list`` shows of a page."""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.hermes import HermesError, is_closed
from hermes_ui.lineage.graph.classify import LABELS, edge_kind
from hermes_ui.sessions.models import SeenSource
from hermes_ui.web import links


def fetch(client, *, limit: int, offset: int, source, children: bool) -> tuple[list, int]:
    """One page of ``sessions_list``: its distinct rows, and how many Hermes returned.

    Raises ``HermesError`` as the client does.
    """
    page = client.list_sessions(
        limit=limit, offset=offset, source=source, include_children=children
    )
    rows = dedupe(page["data"])
    if children:
        label_kinds(client, rows)
    return rows, len(page["data"])


def page_context(endpoint_id: str, rows: list, params: dict, *, offset, limit, returned) -> dict:
    children = bool(params["children"])
    state = {"source": params["source"], "children": children or None, "limit": params["limit"]}
    return {
        "rows": rows,
        "offset": offset,
        "limit": limit,
        "children": children,
        "source": params["source"],
        "first_number": offset + 1,
        "last_number": offset + returned,
        # Advance by what was returned and stop on a short page: has_more is
        # only "the page was full", so it is a hint, never the stop signal. A newer
        # Hermes adds pinned rows past the limit: a longer page is full too.
        "next_url": links.list_url(endpoint_id, offset=offset + returned, **state)
        if returned >= limit
        else None,
        "prev_url": links.list_url(endpoint_id, offset=max(0, offset - limit), **state)
        if offset > 0
        else None,
        "duplicates": returned - len(rows),
    }


def dedupe(rows: list) -> list[ListRow]:
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


def label_kinds(client, rows: list[ListRow]) -> None:
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


def remember_sources(endpoint_id: str, rows: list[dict]) -> None:
    seen = {r.s["source"][:200] for r in rows if isinstance(r.s.get("source"), str)}  # type: ignore[attr-defined]
    known = set(sources(endpoint_id))
    SeenSource.objects.bulk_create(
        [SeenSource(endpoint=endpoint_id, source=source) for source in seen - known],
        ignore_conflicts=True,
    )


def sources(endpoint_id: str) -> list[str]:
    return list(SeenSource.objects.filter(endpoint=endpoint_id).values_list("source", flat=True))
