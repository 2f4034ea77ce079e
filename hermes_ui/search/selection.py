"""What a bulk action covers: the ticked sessions, or every session matching a search.

"Select all N matching" is resolved here, on the server, from the same
index query the search page runs, and bounded by ``HERMES_BULK_LIMIT``
(500 by default): the page never has to carry thousands of ids. Ids are
checked like any path id; each belongs to the endpoint in the URL, and only
that endpoint's client is ever asked about them. Every id is checked against
the person's access (``search.visibility``) on the server, whatever the page sent.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from django.conf import settings

from hermes_ui.access.rules import SUPPORT
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries, visibility
from hermes_ui.search.forms import IndexQuery

FILTERS = ("q", "source", "kind", "state")


@dataclass
class Selection:
    ids: list[str] = field(default_factory=list)
    matching: int = 0  # how many matched the search, for a select-all
    all_matching: bool = False
    filters: dict = field(default_factory=dict)
    error: str = ""

    @property
    def truncated(self) -> bool:
        return self.all_matching and self.matching > len(self.ids)


def limit() -> int:
    return settings.HERMES_BULK_LIMIT


def resolve(endpoint: Endpoint, data, user=None, needed: str = SUPPORT) -> Selection:
    """The selection a form posted (``ids``, or ``all=1`` with the search filters);
    ``user``'s own feature filters (``new:yes``) resolve for them.

    Only sessions ``user`` may act on with ``needed`` are kept (``search.visibility``):
    any other is left out as "not found", never named, so a hidden id typed into
    the form is neither acted on nor confirmed to exist."""
    if data.get("all") == "1":
        form = IndexQuery({name: data.get(name, "") for name in FILTERS})
        if not form.is_valid():
            return Selection(error="The search of this selection is not valid; search again.")
        filters = {name: form.cleaned_data[name] for name in FILTERS if form.cleaned_data[name]}
        page = queries.search(
            endpoint, snapshot=0, limit=limit(), user=user, **_search(form.cleaned_data)
        )
        ids = [row["id"] for row in page.rows]
        if user is not None:
            ids = visibility.allowed_ids(user, endpoint, ids, needed)
        matching = page.total if len(ids) == len(page.rows) else len(ids)
        return Selection(ids, matching=matching, all_matching=True, filters=filters)
    ids = list(dict.fromkeys(data.getlist("ids")))
    if not ids:
        return Selection(error="No session is selected. Tick at least one.")
    if len(ids) > limit():
        return Selection(error=f"At most {limit()} sessions can be changed at once.")
    try:
        for session_id in ids:
            check_path_id(session_id)
    except IdError as exc:
        return Selection(error=str(exc))
    if user is not None:
        kept = visibility.allowed_ids(user, endpoint, ids, needed)
        if len(kept) < len(ids):
            return Selection(error=_not_found(len(ids) - len(kept)))
    return Selection(ids, matching=len(ids))


def _not_found(count: int) -> str:
    """The refusal of a selection naming sessions the person may not act on: the
    same words whether they are hidden or do not exist, and no id repeated."""
    if count == 1:
        return "One selected session was not found. Nothing was changed; select again."
    return f"{count} selected sessions were not found. Nothing was changed; select again."


def _search(cleaned: dict) -> dict:
    """The index search the page ran for these filters: the search box's own filters
    (``source:`` …) apply unless the selects say otherwise, as on the index page."""
    query = cleaned.get("query")
    if query is None:
        return {name: cleaned[name] for name in FILTERS}
    return {
        "q": query.plain_text if query.terms else "",
        "source": cleaned["source"] or query.source,
        "kind": cleaned["kind"] or query.kind,
        "state": cleaned["state"] or query.state,
        "reasons": query.reasons,
        "facets": query.facets,
    }


def rows(endpoint: Endpoint, ids: list[str]) -> list[dict]:
    """The index rows of the selection, in its order; an id the index lacks shows bare."""
    found = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for values in (
            queries.present(endpoint)
            .filter(session_id__in=chunk)
            .values("session_id", "title", "kind", "end_reason", "ended_at", "parent_session_id")
        ):
            found[values["session_id"]] = queries.api_row(values)
    return [found.get(session_id) or {"id": session_id, "missing": True} for session_id in ids]


def member_key(form_key: str, session_id: str) -> str:
    """Each session's own submission key, derived from the bulk form's key: a repeat of
    the bulk form replays every session's outcome, and no two sessions share a key."""
    digest = hashlib.sha256(session_id.encode()).hexdigest()[:16]
    return f"{form_key[:40]}-{digest}"


def review(endpoint: Endpoint, data, user=None, needed: str = SUPPORT) -> dict:
    """The context every bulk page starts from: the selection and, if valid, its rows."""
    chosen = resolve(endpoint, data, user, needed)
    context = {"endpoint": endpoint, "selection": chosen, "limit": limit()}
    if not chosen.error:
        context["rows"] = rows(endpoint, chosen.ids)
    return context
